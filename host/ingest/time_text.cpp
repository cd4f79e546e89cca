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

// [-]digits[.digits] with at most 18 digits and no exponent (how Kineto writes every ts and
// dur): the digits as an integer and the power of ten they are scaled by, in one pass without
// the general loop's per-character bookkeeping. False for any other text.
bool read_plain_decimal(std::string_view text, bool& negative, std::uint64_t& mantissa,
                        int& exponent) {
  const char* p = text.data();
  const char* const end = p + text.size();
  negative = p != end && *p == '-';
  if (negative) ++p;
  const char* const integer_start = p;
  std::uint64_t m = 0;
  for (; p != end && static_cast<unsigned>(*p - '0') < 10; ++p) m = m * 10 + (*p - '0');
  const std::ptrdiff_t integer_digits = p - integer_start;
  std::ptrdiff_t fraction_digits = 0;
  if (p != end && *p == '.') {
    const char* const fraction_start = ++p;
    for (; p != end && static_cast<unsigned>(*p - '0') < 10; ++p) m = m * 10 + (*p - '0');
    fraction_digits = p - fraction_start;
  }
  const std::ptrdiff_t digits = integer_digits + fraction_digits;
  if (p != end || digits == 0 || digits > 18) return false;
  mantissa = m;
  exponent = -static_cast<int>(fraction_digits);
  return true;
}

// Decimal text -> (sign, significant digits, power of ten, digits dropped): any JSON number.
TimeParse read_decimal(std::string_view text, bool& negative, std::uint64_t& mantissa,
                       int& exponent, bool& sticky) {
  std::size_t i = 0;
  const std::size_t n = text.size();
  negative = false;
  if (i < n && (text[i] == '-' || text[i] == '+')) negative = text[i++] == '-';

  mantissa = 0;
  int digits = 0;  // significant digits kept in mantissa
  exponent = 0;    // value = mantissa * 10^exponent (before the e-part)
  sticky = false;  // a non-zero digit was dropped beyond kMaxDigits
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
  return TimeParse::kOk;
}

}  // namespace

TimeParse microseconds_text_to_ns(std::string_view text, std::int64_t& ns) {
  bool negative = false;
  std::uint64_t mantissa = 0;
  int exponent = 0;
  bool sticky = false;
  if (!read_plain_decimal(text, negative, mantissa, exponent)) {
    if (TimeParse parsed = read_decimal(text, negative, mantissa, exponent, sticky);
        parsed != TimeParse::kOk)
      return parsed;
  }

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
