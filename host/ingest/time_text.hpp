#pragma once

#include <cstdint>
#include <string_view>

namespace traceprism::ingest {

// Every time the index keeps (ts, dur and ts + dur) lies within ±kTimeLimitNs (±146 years), so
// that the difference of any two, and the span of a trace, fits in a signed 64-bit integer.
inline constexpr std::int64_t kTimeLimitNs = (std::int64_t{1} << 62) - 1;

enum class TimeParse { kOk, kRounded, kNotANumber, kOutOfRange };

// Converts the decimal text of a JSON number of microseconds ("1419247333291.708", "5.633",
// "1682725898236567", "1.5e3") to integer nanoseconds exactly, without going through a double.
// Digits below 1 ns are rounded half-to-even and reported as kRounded; a magnitude above
// kTimeLimitNs is kOutOfRange.
TimeParse microseconds_text_to_ns(std::string_view text, std::int64_t& ns);

}  // namespace traceprism::ingest
