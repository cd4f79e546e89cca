#include "index/string_pool.hpp"

#include <cstring>
#include <functional>

#include "io/utf8_text.hpp"

namespace traceprism::index {

namespace {
std::uint32_t hash_of(std::string_view text) {
  const std::size_t h = std::hash<std::string_view>{}(text);
  return static_cast<std::uint32_t>(h ^ (h >> 32));
}
}  // namespace

StringPool::StringPool() : slots_(1024) {
  strings_.emplace_back();
  keys_.emplace_back();
}

std::size_t StringPool::slot_of(std::string_view text, std::uint32_t hash) const {
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
    const Slot& slot = slots_[i];
    if (slot.id == kNoString || (slot.hash == hash && keys_[slot.id] == text)) return i;
  }
}

StringId StringPool::intern(std::string_view text) {
  const std::uint32_t hash = hash_of(text);
  std::size_t at = slot_of(text, hash);
  if (slots_[at].id != kNoString) return slots_[at].id;
  if (2 * (used_slots_ + 1) > slots_.size()) {
    grow();
    at = slot_of(text, hash);
  }
  std::string_view stored = store(text);
  auto id = static_cast<StringId>(strings_.size());
  // Invalid bytes are looked up as read but shown repaired, so every output is valid UTF-8.
  strings_.push_back(io::is_valid_utf8(stored) ? stored : store(io::valid_utf8(stored)));
  keys_.push_back(stored);
  slots_[at] = {hash, id};
  ++used_slots_;
  return id;
}

StringId StringPool::find(std::string_view text) const {
  return slots_[slot_of(text, hash_of(text))].id;
}

void StringPool::grow() {
  std::vector<Slot> old(slots_.size() * 2);
  old.swap(slots_);
  const std::size_t mask = slots_.size() - 1;
  for (const Slot& slot : old) {
    if (slot.id == kNoString) continue;
    std::size_t i = slot.hash & mask;
    while (slots_[i].id != kNoString) i = (i + 1) & mask;
    slots_[i] = slot;
  }
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
