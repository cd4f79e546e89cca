// Medians, MADs and robust z-scores of cross-rank numbers (multi-rank.md §6, §9.2): the rounding
// of integer medians, overflow-free extremes and a zero MAD.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "multirank/robust_stats.hpp"

namespace traceprism::multirank {
namespace {

constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

TEST(RobustStats, IntegerMedianFloorsTheMeanOfTheTwoMiddles) {
  EXPECT_EQ(median(std::vector<std::int64_t>{}), 0);
  EXPECT_EQ(median(std::vector<std::int64_t>{5}), 5);
  EXPECT_EQ(median(std::vector<std::int64_t>{3, 1, 2}), 2);
  EXPECT_EQ(median(std::vector<std::int64_t>{4, 1, 3, 2}), 2);  // (2 + 3) / 2 = 2.5 → 2
  EXPECT_EQ(median(std::vector<std::int64_t>{-2, -3}), -3);     // -2.5 → -3 (toward -inf)
  EXPECT_EQ(median(std::vector<std::int64_t>{10, 20, 30, 40}), 25);
}

TEST(RobustStats, IntegerMedianOfExtremesDoesNotOverflow) {
  EXPECT_EQ(median(std::vector<std::int64_t>{kMin, kMax}), -1);  // -0.5 → -1
  EXPECT_EQ(median(std::vector<std::int64_t>{kMax, kMax}), kMax);
  EXPECT_EQ(median_absolute_deviation(std::vector<std::int64_t>{kMin, kMax}), kMax);
}

TEST(RobustStats, MadIsTheMedianDistanceFromTheMedian) {
  // median 3; distances 2, 1, 0, 1, 97 → 1
  EXPECT_EQ(median_absolute_deviation(std::vector<std::int64_t>{1, 2, 3, 4, 100}), 1);
  // median 25; distances 15, 5, 5, 15 → (5 + 15) / 2 = 10
  EXPECT_EQ(median_absolute_deviation(std::vector<std::int64_t>{10, 20, 30, 40}), 10);
  EXPECT_EQ(median_absolute_deviation(std::vector<std::int64_t>{7, 7, 7, 7}), 0);
  EXPECT_EQ(median_absolute_deviation(std::vector<std::int64_t>{}), 0);
}

TEST(RobustStats, DoubleMedianAveragesTheMiddlesAndSkipsNan) {
  EXPECT_DOUBLE_EQ(median(std::vector<double>{10.0, 1.0, 4.0, 2.0}), 3.0);
  EXPECT_DOUBLE_EQ(median(std::vector<double>{std::nan(""), 3.0, 1.0}), 2.0);
  EXPECT_DOUBLE_EQ(median(std::vector<double>{}), 0.0);
  // median 3; distances 2, 1, 1, 7 → 1.5
  EXPECT_DOUBLE_EQ(median_absolute_deviation(std::vector<double>{1.0, 2.0, 4.0, 10.0}), 1.5);
}

TEST(RobustStats, RobustZUsesTheFloorWhenMadIsZero) {
  // Seven ranks on time, one 500 µs late: MAD = 0, the 10 µs floor is the scale.
  const std::vector<double> lateness_us = {0, 0, 0, 0, 0, 0, 0, 500};
  const double m = median(lateness_us);
  const double mad = median_absolute_deviation(lateness_us);
  EXPECT_DOUBLE_EQ(m, 0.0);
  EXPECT_DOUBLE_EQ(mad, 0.0);
  EXPECT_DOUBLE_EQ(robust_z(500, m, mad, 10), 50.0);
  EXPECT_DOUBLE_EQ(robust_z(0, m, mad, 10), 0.0);
  EXPECT_DOUBLE_EQ(robust_z(-5, m, mad, 10), -0.5);
}

TEST(RobustStats, RobustZScalesTheMadToSigma) {
  // scale = 1.4826 × 20 = 29.652; (159.304 − 100) / 29.652 = 2
  EXPECT_NEAR(robust_z(159.304, 100, 20, 10), 2.0, 1e-12);
  // the floor wins when it is larger: (130 − 100) / max(1.4826, 15) = 2
  EXPECT_DOUBLE_EQ(robust_z(130, 100, 1, 15), 2.0);
}

TEST(RobustStats, RobustZWithoutAnyScaleIsZero) {
  EXPECT_EQ(robust_z(500, 0, 0, 0), 0.0);
  EXPECT_EQ(robust_z(500, 0, 0, -1), 0.0);
  EXPECT_EQ(robust_z(500, 0, std::nan(""), 0), 0.0);
}

}  // namespace
}  // namespace traceprism::multirank
