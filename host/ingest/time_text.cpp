#include "ingest/time_text.hpp"

#include <limits>

namespace traceprism::ingest {

namespace {
constexpr std::uint64_t kPow10[] = {1ull,
                                    10ull,
                                    100ull,
                                    1000ull,
                                    10000ull,
                                    100000ull,
                                    1000000ull,
                                    10000000ull,
                                    100000000ull,
                                    1000000000ull,
                                    10000000000ull,
                                    100000000000ull,
                                    1000000000000ull,
                                    10000000000000ull,
                                    100000000000000ull,
                                    1000000000000000ull,
                                    10000000000000000ull,
                                    100000000000000000ull,
                                    1000000000000000000ull,
                                    10000000000000000000ull};
constexpr int kMaxDigits = 19;  // fits a uint64 without overflow
}  // namespace

TimeParse microseconds_text_to_ns(std::string_view text, std::int64_t& ns) {
  std::size_t i = 0;
  const std::size_t n = text.size();
  bool negative = false;
  if (i < n && (text[i] == '-' || text[i] == '+')) negative = text[i++] == '-';

  std::uint64_t mantissa = 0;
  int digits = 0;       // significant digits kept in mantissa
  int exponent = 0;     // value = mantissa * 10^exponent (before the e-part)
  bool sticky = false;  // a non-zero digit was dropped beyond kMaxDigits
  bool any_digit = false;
  bool in_fraction = false;
  for (; i < n; ++i) {
    char c = text[i];
    if (c == '.') {
      if (in_fraction) return TimeParse::kNotANumber;
      in_fraction = true;
      continue;
    }
    if (c < '0' || c > '9') break;
    any_digit = true;
    if (digits < kMaxDigits) {
      if (mantissa != 0 || c != '0') {
        mantissa = mantissa * 10 + static_cast<unsigned>(c - '0');
        ++digits;
      }
      if (in_fraction) --exponent;
    } else {
      if (c != '0') sticky = true;
      if (!in_fraction) ++exponent;
    }
  }
  if (!any_digit) return TimeParse::kNotANumber;
  if (i < n && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool exp_negative = false;
    if (i < n && (text[i] == '-' || text[i] == '+')) exp_negative = text[i++] == '-';
    int e = 0;
    bool exp_digit = false;
    for (; i < n && text[i] >= '0' && text[i] <= '9'; ++i) {
      exp_digit = true;
      if (e < 10000) e = e * 10 + (text[i] - '0');
    }
    if (!exp_digit) return TimeParse::kNotANumber;
    exponent += exp_negative ? -e : e;
  }
  if (i != n) return TimeParse::kNotANumber;

  int shift = exponent + 3;  // microseconds -> nanoseconds
  std::uint64_t magnitude = 0;
  bool rounded = sticky;
  if (mantissa == 0) {
    magnitude = 0;
  } else if (shift >= 0) {
    if (shift > kMaxDigits) return TimeParse::kOutOfRange;
    std::uint64_t scale = kPow10[shift];
    if (mantissa > std::numeric_limits<std::uint64_t>::max() / scale) return TimeParse::kOutOfRange;
    magnitude = mantissa * scale;
  } else if (-shift > kMaxDigits) {
    magnitude = 0;
    rounded = true;
  } else {
    std::uint64_t divisor = kPow10[-shift];
    std::uint64_t quotient = mantissa / divisor;
    std::uint64_t remainder = mantissa % divisor;
    if (remainder != 0) rounded = true;
    // Round half to even; the dropped tail (sticky) breaks exact ties upwards.
    std::uint64_t half = divisor / 2;
    if (remainder > half || (remainder == half && (sticky || (quotient & 1)))) ++quotient;
    magnitude = quotient;
  }
  if (magnitude > static_cast<std::uint64_t>(kTimeLimitNs)) {
    return TimeParse::kOutOfRange;
  }
  ns = negative ? -static_cast<std::int64_t>(magnitude) : static_cast<std::int64_t>(magnitude);
  return rounded ? TimeParse::kRounded : TimeParse::kOk;
}

}  // namespace traceprism::ingest
