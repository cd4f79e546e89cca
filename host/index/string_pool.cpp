#include "index/string_pool.hpp"

#include <cstring>

#include "io/utf8_text.hpp"

namespace traceprism::index {

StringPool::StringPool() {
  strings_.emplace_back();
}

StringId StringPool::intern(std::string_view text) {
  auto it = ids_.find(text);
  if (it != ids_.end()) return it->second;
  std::string_view stored = store(text);
  auto id = static_cast<StringId>(strings_.size());
  // Invalid bytes are looked up as read but shown repaired, so every output is valid UTF-8.
  strings_.push_back(io::is_valid_utf8(stored) ? stored : store(io::valid_utf8(stored)));
  ids_.emplace(stored, id);
  return id;
}

StringId StringPool::find(std::string_view text) const {
  auto it = ids_.find(text);
  return it == ids_.end() ? kNoString : it->second;
}

std::string_view StringPool::store(std::string_view text) {
  if (text.empty()) return std::string_view("");  // non-null data, as every stored text
  bytes_ += text.size();
  if (text.size() > kBlockSize / 4) {
    // Very long strings (templated kernel names can reach kilobytes) get a block of their own.
    auto& block = blocks_.emplace_back(new char[text.size()]);
    std::memcpy(block.get(), text.data(), text.size());
    return {block.get(), text.size()};
  }
  if (block_used_ + text.size() > kBlockSize) {
    current_block_ = blocks_.emplace_back(new char[kBlockSize]).get();
    block_used_ = 0;
  }
  char* dst = current_block_ + block_used_;
  std::memcpy(dst, text.data(), text.size());
  block_used_ += text.size();
  return {dst, text.size()};
}

}  // namespace traceprism::index
