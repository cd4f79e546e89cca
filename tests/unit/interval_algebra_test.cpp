#include <traceprism/intervals.hpp>

#include <gtest/gtest.h>

using traceprism::Interval;
using traceprism::merge_intervals;
using traceprism::subtract_intervals;
using traceprism::total_length;

using I = Interval<long>;

TEST(IntervalAlgebra, MergeJoinsOverlappingAndTouching) {
  auto merged = merge_intervals<long>({{10, 20}, {0, 5}, {5, 8}, {15, 30}, {40, 41}});
  ASSERT_EQ(merged.size(), 3u);
  EXPECT_EQ(merged[0].start, 0);
  EXPECT_EQ(merged[0].end, 8);
  EXPECT_EQ(merged[1].start, 10);
  EXPECT_EQ(merged[1].end, 30);
  EXPECT_EQ(total_length(merged), 8 + 20 + 1);
}

TEST(IntervalAlgebra, SubtractRemovesCoveredParts) {
  std::vector<I> b = {{0, 100}, {200, 300}};
  std::vector<I> a = {{10, 20}, {50, 250}, {290, 400}};
  auto d = subtract_intervals(b, a);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].start, 0);
  EXPECT_EQ(d[0].end, 10);
  EXPECT_EQ(d[1].start, 20);
  EXPECT_EQ(d[1].end, 50);
  EXPECT_EQ(d[2].start, 250);
  EXPECT_EQ(d[2].end, 290);
}

TEST(IntervalAlgebra, SubtractWithNothingToRemoveOrEverythingCovered) {
  std::vector<I> b = {{0, 10}};
  EXPECT_EQ(total_length(subtract_intervals(b, {})), 10);
  EXPECT_TRUE(subtract_intervals(b, {{0, 10}}).empty());
  EXPECT_TRUE(subtract_intervals(b, {{-5, 20}}).empty());
}

TEST(IntervalAlgebra, NegativeLengthCountsNegativeLikeTheReference) {
  // trace-format spec §4.6: kernels (1000, dur -5) and (1010, dur 10) -> busy 5, total 20.
  auto merged = merge_intervals<double>({{1000, 995}, {1010, 1020}});
  EXPECT_DOUBLE_EQ(total_length(merged), 5);
  EXPECT_DOUBLE_EQ(merged.back().end - merged.front().start, 20);
}
