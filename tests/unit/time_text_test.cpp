#include "ingest/time_text.hpp"

#include <gtest/gtest.h>

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
