#include "io/utf8_text.hpp"

#include <cstdint>

namespace traceprism::io {
namespace {

struct Sequence {
  std::size_t length;  // bytes read: the whole sequence, or its maximal ill-formed prefix
  bool valid;
};

bool in(unsigned char c, unsigned char low, unsigned char high) {
  return c >= low && c <= high;
}

// The sequence starting at text[at] (Unicode Table 3-7, well-formed byte sequences).
Sequence sequence_at(std::string_view text, std::size_t at) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[at + i]); };
  const unsigned char lead = byte(0);
  if (lead < 0x80) return {1, true};
  std::size_t length = 0;
  unsigned char second_low = 0x80, second_high = 0xBF;
  if (in(lead, 0xC2, 0xDF)) {
    length = 2;
  } else if (in(lead, 0xE0, 0xEF)) {
    length = 3;
    if (lead == 0xE0) second_low = 0xA0;
    if (lead == 0xED) second_high = 0x9F;  // no surrogates
  } else if (in(lead, 0xF0, 0xF4)) {
    length = 4;
    if (lead == 0xF0) second_low = 0x90;
    if (lead == 0xF4) second_high = 0x8F;  // nothing above U+10FFFF
  } else {
    return {1, false};
  }
  for (std::size_t i = 1; i < length; ++i) {
    if (at + i >= text.size()) return {i, false};
    const bool ok = i == 1 ? in(byte(i), second_low, second_high) : in(byte(i), 0x80, 0xBF);
    if (!ok) return {i, false};
  }
  return {length, true};
}

}  // namespace

bool is_valid_utf8(std::string_view text) {
  for (std::size_t at = 0; at < text.size();) {
    if (static_cast<unsigned char>(text[at]) < 0x80) {
      ++at;
      continue;
    }
    const Sequence s = sequence_at(text, at);
    if (!s.valid) return false;
    at += s.length;
  }
  return true;
}

std::string valid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 8);
  for (std::size_t at = 0; at < text.size();) {
    const Sequence s = sequence_at(text, at);
    if (s.valid)
      out.append(text.substr(at, s.length));
    else
      out += "\xEF\xBF\xBD";  // U+FFFD
    at += s.length;
  }
  return out;
}

}  // namespace traceprism::io
