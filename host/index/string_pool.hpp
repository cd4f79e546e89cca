#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

namespace traceprism::index {

// Interned string id. 0 is reserved for "no string" (absent field); "" is interned like any
// other string.
using StringId = std::uint32_t;
inline constexpr StringId kNoString = 0;

// Append-only pool of unique strings. Bytes live in fixed blocks that never move, so the
// string_views handed out stay valid for the pool's lifetime. A string that is not valid UTF-8
// keeps its id under its bytes as read, but view() shows it with each ill-formed sequence
// replaced by U+FFFD (io/utf8_text.hpp), so no output carries invalid bytes.
class StringPool {
 public:
  StringPool();
  StringPool(StringPool&&) noexcept = default;
  StringPool& operator=(StringPool&&) noexcept = default;

  StringId intern(std::string_view text);
  // Id of `text` if it was interned, else kNoString.
  StringId find(std::string_view text) const;
  std::string_view view(StringId id) const { return strings_[id]; }
  // The bytes `id` was interned under (view() repairs invalid UTF-8; this does not).
  std::string_view interned_bytes(StringId id) const { return keys_[id]; }
  // Number of ids handed out, including the reserved id 0.
  std::size_t size() const { return strings_.size(); }
  std::size_t bytes() const { return bytes_; }

 private:
  std::string_view store(std::string_view text);

  static constexpr std::size_t kBlockSize = 1 << 20;
  std::vector<std::unique_ptr<char[]>> blocks_;
  char* current_block_ = nullptr;  // block that small strings are appended to
  std::size_t block_used_ = kBlockSize;
  std::size_t bytes_ = 0;
  // Where `text` (hashed to `hash`) is or would go in slots_.
  std::size_t slot_of(std::string_view text, std::uint32_t hash) const;
  void grow();

  std::vector<std::string_view> strings_;  // what each id shows
  std::vector<std::string_view> keys_;     // the bytes each id was interned under, as read
  // Open addressing with linear probing over a power-of-two table kept at most half full: a
  // look-up (two per event while reading) compares a hash in the table before any text.
  struct Slot {
    std::uint32_t hash = 0;
    StringId id = kNoString;  // kNoString: empty
  };
  std::vector<Slot> slots_;
  std::size_t used_slots_ = 0;
};

}  // namespace traceprism::index
