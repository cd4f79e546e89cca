// ASCII case folding for names and keys (dtype names, class names, platform keys); locale-free,
// so results do not depend on the user's environment.
#pragma once

#include <cctype>
#include <string>
#include <string_view>

namespace traceprism::io {

inline std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace traceprism::io
