#include "ingest/time_text.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

using traceprism::ingest::microseconds_text_to_ns;
using traceprism::ingest::TimeParse;

namespace {

std::int64_t ns_of(const char* text, TimeParse expected = TimeParse::kOk) {
  std::int64_t ns = -12345;
  EXPECT_EQ(microseconds_text_to_ns(text, ns), expected) << text;
  return ns;
}

TEST(TimeText, KinetoMicrosecondsWithThreeDecimals) {
  EXPECT_EQ(ns_of("1419247333291.708"), 1419247333291708);
  EXPECT_EQ(ns_of("5.633"), 5633);
  EXPECT_EQ(ns_of("0.001"), 1);
  EXPECT_EQ(ns_of("0"), 0);
  EXPECT_EQ(ns_of("41.28"), 41280);
}

TEST(TimeText, IntegerMicrosecondsOfOldTraces) {
  EXPECT_EQ(ns_of("1682725898236567"), 1682725898236567000);
  EXPECT_EQ(ns_of("68"), 68000);
}

TEST(TimeText, ExponentsAndSigns) {
  EXPECT_EQ(ns_of("1.5e3"), 1500000);
  EXPECT_EQ(ns_of("2E-3"), 2);
  EXPECT_EQ(ns_of("-5"), -5000);
  EXPECT_EQ(ns_of("-0.5"), -500);
}

TEST(TimeText, SubNanosecondDigitsRoundHalfToEven) {
  EXPECT_EQ(ns_of("1.0005", TimeParse::kRounded), 1000);  // tie -> even
  EXPECT_EQ(ns_of("1.0015", TimeParse::kRounded), 1002);  // tie -> even
  EXPECT_EQ(ns_of("1.00051", TimeParse::kRounded), 1001);
  EXPECT_EQ(ns_of("1712195495519689.0474", TimeParse::kRounded), 1712195495519689047);
}

TEST(TimeText, RejectsNonNumbersAndOverflow) {
  std::int64_t ns = 0;
  EXPECT_EQ(microseconds_text_to_ns("abc", ns), TimeParse::kNotANumber);
  EXPECT_EQ(microseconds_text_to_ns("", ns), TimeParse::kNotANumber);
  EXPECT_EQ(microseconds_text_to_ns("1e400", ns), TimeParse::kOutOfRange);
  EXPECT_EQ(microseconds_text_to_ns("99999999999999999", ns), TimeParse::kOutOfRange);
}

// ±(2^62 - 1) ns is the limit, so that the difference of any two times fits in an int64.
TEST(TimeText, TimesBeyondTheLimitAreOutOfRange) {
  EXPECT_EQ(ns_of("4611686018427387.903", TimeParse::kOk), traceprism::ingest::kTimeLimitNs);
  EXPECT_EQ(ns_of("-4611686018427387.903", TimeParse::kOk), -traceprism::ingest::kTimeLimitNs);
  std::int64_t ns = 0;
  EXPECT_EQ(microseconds_text_to_ns("4611686018427387.904", ns), TimeParse::kOutOfRange);
  EXPECT_EQ(microseconds_text_to_ns("-9.2e15", ns), TimeParse::kOutOfRange);
}

}  // namespace

// Plain decimals of every length around the fast path's 18-digit bound, each checked against
// the value worked out digit by digit here: "I.F" with k fraction digits is I * 1000 ns plus F
// scaled to nanoseconds, rounded half to even below 1 ns.
TEST(TimeText, PlainDecimalsOfEveryLengthAgreeWithIntegerArithmetic) {
  std::uint64_t seed = 12345;
  auto next = [&seed] {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return seed >> 33;
  };
  for (int integer_digits = 0; integer_digits <= 15; ++integer_digits) {
    for (int fraction_digits = 0; fraction_digits <= 6; ++fraction_digits) {
      if (integer_digits + fraction_digits == 0) continue;
      for (int round = 0; round < 20; ++round) {
        std::string integer, fraction;
        for (int i = 0; i < integer_digits; ++i) integer += static_cast<char>('0' + next() % 10);
        for (int i = 0; i < fraction_digits; ++i) fraction += static_cast<char>('0' + next() % 10);
        const bool negative = next() % 4 == 0;
        std::string text = (negative ? "-" : "") + integer;
        if (fraction_digits > 0) text += "." + fraction;

        std::int64_t expected = integer.empty() ? 0 : std::stoll(integer) * 1000;
        bool rounded = false;
        if (fraction_digits > 0) {
          const std::string ns_digits = (fraction + "000").substr(0, 3);
          expected += std::stoll(ns_digits);
          if (fraction_digits > 3) {
            const std::string below = fraction.substr(3);
            const std::int64_t tail = std::stoll(below);
            std::int64_t half = 5;
            for (std::size_t i = 1; i < below.size(); ++i) half *= 10;
            rounded = tail != 0;
            if (tail > half || (tail == half && expected % 2 == 1)) ++expected;
          }
        }
        if (negative) expected = -expected;
        std::int64_t ns = 0;
        ASSERT_EQ(microseconds_text_to_ns(text, ns), rounded ? TimeParse::kRounded : TimeParse::kOk)
            << text;
        ASSERT_EQ(ns, expected) << text;
      }
    }
  }
}
