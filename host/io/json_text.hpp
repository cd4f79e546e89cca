#pragma once

#include <string>
#include <string_view>

namespace traceprism::io {

// Appends `s` as a JSON string literal (quotes included): ", \ and control characters escaped,
// everything else byte for byte. Used for the canonical args text of the index and for the
// JSON the report writers produce.
inline void append_json_string(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  std::size_t plain_from = 0;  // bytes from here on are appended as one run
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (static_cast<unsigned char>(c) >= 0x20 && c != '"' && c != '\\') continue;
    out.append(s.data() + plain_from, i - plain_from);
    plain_from = i + 1;
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        out += "\\u00";
        out += kHex[(c >> 4) & 0xf];
        out += kHex[c & 0xf];
    }
  }
  out.append(s.data() + plain_from, s.size() - plain_from);
  out += '"';
}

}  // namespace traceprism::io
