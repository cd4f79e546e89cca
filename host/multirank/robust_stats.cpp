#include "multirank/robust_stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace traceprism::multirank {

namespace {

// Floor of the mean of lo ≤ hi. The difference is taken in uint64 so extreme values (-2^63 and
// 2^63 − 1) cannot overflow; half of it added to lo stays within [lo, hi].
std::int64_t floor_mean(std::int64_t lo, std::int64_t hi) {
  const std::uint64_t gap = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + gap / 2);
}

std::uint64_t distance(std::int64_t a, std::int64_t b) {
  return a >= b ? static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b)
                : static_cast<std::uint64_t>(b) - static_cast<std::uint64_t>(a);
}

std::uint64_t median_of_unsigned(std::vector<std::uint64_t>& values) {
  const std::size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
  const std::uint64_t upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  const std::uint64_t lower = *std::max_element(values.begin(), values.begin() + mid);
  return lower + (upper - lower) / 2;
}

}  // namespace

std::int64_t median(std::vector<std::int64_t> values) {
  if (values.empty()) return 0;
  const std::size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
  const std::int64_t upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  const std::int64_t lower = *std::max_element(values.begin(), values.begin() + mid);
  return floor_mean(lower, upper);
}

std::int64_t median_absolute_deviation(const std::vector<std::int64_t>& values) {
  if (values.empty()) return 0;
  const std::int64_t center = median(values);
  std::vector<std::uint64_t> deviations;
  deviations.reserve(values.size());
  for (const std::int64_t v : values) deviations.push_back(distance(v, center));
  const std::uint64_t mad = median_of_unsigned(deviations);
  constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  return static_cast<std::int64_t>(std::min(mad, kMax));
}

double median(std::vector<double> values) {
  std::erase_if(values, [](double v) { return std::isnan(v); });
  if (values.empty()) return 0;
  const std::size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
  const double upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  const double lower = *std::max_element(values.begin(), values.begin() + mid);
  return lower + (upper - lower) / 2;
}

double median_absolute_deviation(std::vector<double> values) {
  std::erase_if(values, [](double v) { return std::isnan(v); });
  const double center = median(values);
  for (double& v : values) v = std::fabs(v - center);
  return median(std::move(values));
}

double robust_z(double value, double median, double mad, double floor) {
  const double scale = std::max(kMadToSigma * mad, floor);
  if (!(scale > 0) || !std::isfinite(scale)) return 0;
  const double z = (value - median) / scale;
  return std::isfinite(z) ? z : 0;
}

}  // namespace traceprism::multirank
