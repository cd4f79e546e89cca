// traceprism SDK: the reference's microsecond doubles, shared by the host and plugins.
// Header-only C++17.
#pragma once

#include <cstdint>

namespace traceprism {

// The reference (TraceLens) works on absolute microseconds in doubles: ts and dur are parsed
// from the JSON text with correctly rounded conversion and t_end = ts + dur in double. To
// reproduce its numbers (and its tie-breaking in the call tree) we rebuild exactly those
// doubles from our exact integer nanoseconds (times written with more than 3 decimals keep
// their parsed double in the index, see EventIndex::ts_us).
inline double reference_us(std::int64_t ns) {
  constexpr std::int64_t kExact = std::int64_t(1) << 53;
  if (ns > -kExact && ns < kExact) {
    return static_cast<double>(ns) / 1000.0;  // exact numerator, one correctly rounded division
  }
  // Epoch-based nanosecond clocks exceed 2^53 ns: x86-64 long double keeps a 64-bit mantissa,
  // so ns is exact and the quotient is rounded once more when narrowed to double
  // (docs/compatibility.md shows this never differs from the correctly rounded value).
  return static_cast<double>(static_cast<long double>(ns) / 1000.0L);
}

}  // namespace traceprism
