#pragma once

#include <cstdint>
#include <string_view>

namespace traceprism::ingest {

enum class TimeParse { kOk, kRounded, kNotANumber, kOutOfRange };

// Converts the decimal text of a JSON number of microseconds ("1419247333291.708", "5.633",
// "1682725898236567", "1.5e3") to integer nanoseconds exactly, without going through a double.
// Digits below 1 ns are rounded half-to-even and reported as kRounded.
TimeParse microseconds_text_to_ns(std::string_view text, std::int64_t& ns);

}  // namespace traceprism::ingest
