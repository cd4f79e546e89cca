// traceprism SDK: Python's repr() of floats and strings, the text of every reference CSV cell
// and of op-model parameters; shared by the host's writers and plugins. Header-only C++17.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

namespace traceprism::py {

// Python's repr() of a float: shortest round-trip digits, scientific iff the decimal exponent
// is < -4 or >= 16, integral values with ".0"; "nan", "inf".
inline std::string float_repr(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  if (value == 0) return std::signbit(value) ? "-0.0" : "0.0";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
  std::string_view sci(buf, static_cast<std::size_t>(res.ptr - buf));
  const bool negative = sci[0] == '-';
  if (negative) sci.remove_prefix(1);
  const std::size_t e_pos = sci.find('e');
  const int exponent = std::atoi(std::string(sci.substr(e_pos + 1)).c_str());
  std::string digits;
  for (char c : sci.substr(0, e_pos))
    if (c != '.') digits += c;
  std::string out = negative ? "-" : "";
  if (exponent < -4 || exponent >= 16) {
    out += digits[0];
    if (digits.size() > 1) out += "." + digits.substr(1);
    out += exponent < 0 ? "e-" : "e+";
    const int magnitude = std::abs(exponent);
    if (magnitude < 10) out += '0';
    return out + std::to_string(magnitude);
  }
  if (exponent < 0) {
    out += "0.";
    out.append(static_cast<std::size_t>(-exponent - 1), '0');
    return out + digits;
  }
  const auto int_digits = static_cast<std::size_t>(exponent) + 1;
  if (digits.size() <= int_digits) {
    out += digits;
    out.append(int_digits - digits.size(), '0');
    return out + ".0";
  }
  return out + digits.substr(0, int_digits) + "." + digits.substr(int_digits);
}

namespace detail {

// Code points CPython's str.isprintable() rejects beyond ASCII control characters: C1
// controls, spaces other than ' ', format characters, separators, private use and surrogates.
// This covers the blocks seen in practice; rarer unassigned code points are kept as text.
inline bool is_unprintable(std::uint32_t cp) {
  return (cp >= 0x80 && cp <= 0xa0) || cp == 0xad || (cp >= 0x600 && cp <= 0x605) || cp == 0x61c ||
         cp == 0x6dd || cp == 0x70f || cp == 0x1680 || cp == 0x180e ||
         (cp >= 0x2000 && cp <= 0x200f) || (cp >= 0x2028 && cp <= 0x202f) ||
         (cp >= 0x205f && cp <= 0x2064) || (cp >= 0x2066 && cp <= 0x206f) || cp == 0x3000 ||
         (cp >= 0xd800 && cp <= 0xf8ff) || cp == 0xfeff || (cp >= 0xfff9 && cp <= 0xfffb) ||
         (cp >= 0xe0000 && cp <= 0xe007f) || cp >= 0xf0000;
}

inline void append_hex(std::string& out, std::uint32_t value, int digits) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4) out += kHex[(value >> shift) & 0xf];
}

inline void append_escaped_code_point(std::string& out, std::uint32_t cp) {
  if (cp <= 0xff) {
    out += "\\x";
    append_hex(out, cp, 2);
  } else if (cp <= 0xffff) {
    out += "\\u";
    append_hex(out, cp, 4);
  } else {
    out += "\\U";
    append_hex(out, cp, 8);
  }
}

// Decodes one UTF-8 sequence at text[i]; returns its length (1 for an invalid byte, whose
// value is then returned as the code point so that it prints as \xNN).
inline std::size_t decode_utf8(std::string_view text, std::size_t i, std::uint32_t& cp) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  std::size_t length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  if (length == 1 || i + length > text.size()) {
    cp = lead;
    return 1;
  }
  cp = lead & (0x7f >> length);
  for (std::size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xc0) != 0x80) {
      cp = lead;
      return 1;
    }
    cp = (cp << 6) | (byte(i + k) & 0x3f);
  }
  return length;
}

inline void append_ascii_escaped(std::string& out, char c, char quote) {
  if (c == quote || c == '\\') {
    out += '\\';
    out += c;
  } else if (c == '\t') {
    out += "\\t";
  } else if (c == '\n') {
    out += "\\n";
  } else if (c == '\r') {
    out += "\\r";
  } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
    append_escaped_code_point(out, static_cast<unsigned char>(c));
  } else {
    out += c;
  }
}

}  // namespace detail

// repr() of a Python str: single quotes, or double quotes when the text holds a single quote
// and no double quote; backslash, the quote, control and unprintable characters escaped as
// CPython does (\t, \n, \r, \xNN, \uNNNN); invalid UTF-8 bytes as \xNN.
inline std::string str_repr(std::string_view text) {
  const bool has_single = text.find('\'') != std::string_view::npos;
  const bool has_double = text.find('"') != std::string_view::npos;
  const char quote = has_single && !has_double ? '"' : '\'';
  std::string out(1, quote);
  for (std::size_t i = 0; i < text.size();) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      detail::append_ascii_escaped(out, text[i], quote);
      ++i;
      continue;
    }
    std::uint32_t cp = 0;
    const std::size_t length = detail::decode_utf8(text, i, cp);
    if (length == 1 || detail::is_unprintable(cp)) {
      detail::append_escaped_code_point(out, cp);
    } else {
      out.append(text.substr(i, length));
    }
    i += length;
  }
  out += quote;
  return out;
}

}  // namespace traceprism::py
