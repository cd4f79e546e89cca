// Number formatting shared by the cpu-idle analyzer's figures and prose.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace cpu_idle {

// Python's round(x, n) on a double: the correctly rounded n-decimal text of the exact binary
// value, read back. glibc's printf rounds the exact value too, so "%.*f" then strtod matches.
inline double py_round(double x, int decimals) {
  if (!std::isfinite(x)) return x;
  char buf[400];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, x);
  return std::strtod(buf, nullptr);
}

inline std::string fixed(double x, int decimals) {
  char buf[400];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, x);
  return buf;
}

// Milliseconds for prose and tables: 1 decimal from 10 ms, 2 from 0.1 ms, 3 below; "0 ms".
inline std::string ms(double value_ms) {
  if (value_ms == 0) return "0 ms";
  double a = std::fabs(value_ms);
  return fixed(value_ms, a >= 10 ? 1 : (a >= 0.1 ? 2 : 3)) + " ms";
}

// "1 call", "3 calls"; `plural` for nouns that do not just take an "s".
inline std::string count_of(std::uint64_t n, const char* noun, const char* plural = nullptr) {
  if (n == 1) return "1 " + std::string(noun);
  return std::to_string(n) + " " + (plural ? std::string(plural) : std::string(noun) + "s");
}

inline std::string us(double value_us) {
  return fixed(value_us, std::fabs(value_us) >= 100 ? 0 : 1) + " \xC2\xB5s";
}

// The shortest text that reads back as `x` for option values: 5, 2.5, 0.1.
inline std::string plain(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

inline std::string percent(double value) {
  return fixed(value, 1) + "%";
}

// A kernel name cut to `max` bytes (on a UTF-8 boundary) with "..." appended when cut.
inline std::string shorten(std::string_view name, std::size_t max = 80) {
  if (name.size() <= max) return std::string(name);
  std::size_t cut = max - 3;
  while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80) --cut;
  return std::string(name.substr(0, cut)) + "...";
}

}  // namespace cpu_idle
