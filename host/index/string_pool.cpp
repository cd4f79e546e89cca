#include "index/string_pool.hpp"

#include <cstring>

namespace traceprism::index {

StringPool::StringPool() {
  strings_.emplace_back();
}

StringId StringPool::intern(std::string_view text) {
  auto it = ids_.find(text);
  if (it != ids_.end()) return it->second;
  std::string_view stored = store(text);
  auto id = static_cast<StringId>(strings_.size());
  strings_.push_back(stored);
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
