#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace traceprism::perf_report {

// Statistics computed exactly as the reference's numpy / pandas calls compute them, so that
// printed digits match (trace-format spec §9, §12). The kernel-details summaries are compared
// exactly by the reference's test, so the numpy functions must be bit-exact; the pandas
// group aggregations only need to agree to ~1e-12 but follow pandas' algorithms anyway.

// np.sum of a contiguous float64 array: numpy's pairwise summation (blocks of 8 accumulators
// up to 128 elements, recursive halving above).
double numpy_sum(std::span<const double> values);
// np.mean: numpy_sum / n (NaN for an empty array).
double numpy_mean(std::span<const double> values);
// np.std with ddof 0: sqrt(numpy_sum((x - mean)^2) / n) (NaN for an empty array).
double numpy_std(std::span<const double> values);
// np.median: the middle element of the sorted values, or the mean of the two middle ones.
double numpy_median(std::span<const double> values);
double numpy_min(std::span<const double> values);
double numpy_max(std::span<const double> values);

// pandas groupby sum: Kahan-compensated left-to-right sum of the non-NaN values (0 for none).
double pandas_sum(std::span<const double> values);
// pandas groupby mean: the compensated sum / n (NaN for an empty group).
double pandas_mean(std::span<const double> values);
// pandas groupby std: sample std (ddof 1) from Welford's running variance; NaN for fewer than
// two values.
double pandas_std(std::span<const double> values);
// pandas groupby median (same rule as numpy; NaN for an empty group).
double pandas_median(std::span<const double> values);

// The row order of pandas' sort_values(by=one float column, ascending=False): nargsort reverses
// the column, argsorts it with numpy's quicksort (an introsort, not stable) and reverses the
// result; NaN rows go last in their original order. Up to 16 rows this keeps ties in their
// original order; above, ties come out as numpy's partitioning leaves them, which the
// reference's goldens show (the SIMD sorts some numpy builds use on AVX-512 could differ).
std::vector<std::size_t> pandas_descending_order(std::span<const double> values);

}  // namespace traceprism::perf_report
