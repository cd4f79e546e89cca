#pragma once

#include <cstdint>
#include <limits>

namespace traceprism::multirank {

inline constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();
inline constexpr std::int64_t kInt64Min = std::numeric_limits<std::int64_t>::min();

// Trace times and user offsets are untrusted input: saturate rather than overflow.
inline std::int64_t saturating_sub(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  if (!__builtin_sub_overflow(a, b, &out)) return out;
  return b < 0 ? kInt64Max : kInt64Min;
}

inline std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  if (!__builtin_add_overflow(a, b, &out)) return out;
  return b > 0 ? kInt64Max : kInt64Min;
}

}  // namespace traceprism::multirank
