// Order statistics for cross-rank numbers (multi-rank.md §6, §9.2): medians, median absolute
// deviations and robust z-scores. Integer versions work on int64 ns without overflow and round
// the same way on every platform, so reports stay byte-identical.
#pragma once

#include <cstdint>
#include <vector>

namespace traceprism::multirank {

// Scales a MAD to the standard deviation of a normal distribution (§9.2).
inline constexpr double kMadToSigma = 1.4826;

// Median of integers: the middle value, or for an even count the mean of the two middle values
// rounded toward negative infinity (floor), computed without overflow. 0 for no values.
std::int64_t median(std::vector<std::int64_t> values);

// Median absolute deviation from the median (same rounding as median), saturated at INT64_MAX.
// 0 for no values.
std::int64_t median_absolute_deviation(const std::vector<std::int64_t>& values);

// Median of doubles: mean of the two middle values for an even count. NaNs are ignored; 0 when
// nothing remains.
double median(std::vector<double> values);
double median_absolute_deviation(std::vector<double> values);

// (value − median) / max(kMadToSigma × mad, floor). With MAD = 0 the floor is the scale, so a
// rank equal to the median scores 0 and others score by the floor. A scale that is still not
// positive (floor ≤ 0 and MAD = 0) or not finite gives 0: without a spread to measure against
// nothing can be called an outlier.
double robust_z(double value, double median, double mad, double floor);

}  // namespace traceprism::multirank
