// numpy / pandas statistics. The pairwise-sum cases use 1e16, where the spacing of doubles is
// 2: adding 1 to an even multiple of 2 rounds back down (ties to even), so each summation
// order gives a different, hand-predictable result.
#include "perf_report/numpy_stats.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

using namespace traceprism::perf_report;

namespace {

constexpr double kBig = 1e16;

std::vector<double> big_then_ones(std::size_t n) {
  std::vector<double> v(n, 1.0);
  v[0] = kBig;
  return v;
}

}  // namespace

TEST(NumpySum, UnderEightIsLeftToRight) {
  // ((1e16 + 1) -> 1e16) - 1e16 = 0, + 1 = 1 (the exact sum is 2).
  const std::vector<double> v = {kBig, 1, -kBig, 1};
  EXPECT_EQ(numpy_sum(v), 1.0);
  // 7 values: 1e16 absorbs every single 1.
  EXPECT_EQ(numpy_sum(big_then_ones(7)), kBig);
  EXPECT_EQ(numpy_sum(std::vector<double>{}), 0.0);
}

TEST(NumpySum, EightToOneTwentyEightUsesEightAccumulators) {
  // n = 9: r = a[0..7]; ((1e16+1 -> 1e16) + 2) + (2 + 2) = 1e16 + 6; then the remainder a[8]:
  // 1e16 + 7 is a tie between +6 (odd mantissa) and +8 (even) -> 1e16 + 8.
  EXPECT_EQ(numpy_sum(big_then_ones(9)), kBig + 8);
  // n = 16: one more block of 8; r0 = 1e16 (absorbs), r1..r7 = 2:
  // ((1e16 + 2 + 2+2) + ((2+2) + (2+2))) = 1e16 + 6 + 8 = 1e16 + 14.
  EXPECT_EQ(numpy_sum(big_then_ones(16)), kBig + 14);
  // n = 128 (the block size, no split): r0 = 1e16, r1..r7 = 16 each:
  // (1e16 + 16) + 32 + 64 = 1e16 + 112.
  EXPECT_EQ(numpy_sum(big_then_ones(128)), kBig + 112);
}

TEST(NumpySum, AboveOneTwentyEightSplitsAtAMultipleOfEight) {
  // n = 136: split at 68 rounded down to 64. Left (64): r0 = 1e16, r1..r7 = 8 ->
  // (1e16 + 8) + 16 + 32 = 1e16 + 56. Right (72 ones) = 72. Total 1e16 + 128.
  // (Without the split it would be 1e16 + 118; left to right 1e16.)
  EXPECT_EQ(numpy_sum(big_then_ones(136)), kBig + 128);
  // n = 129: split at 64 rounded down to 64: left = 1e16 + 56, right 65 ones: r_j = 8,
  // 64 + the remainder 1 = 65 -> 1e16 + 121 -> tie between +120 and +122; 1e16 + 120 has an
  // even mantissa ((1e16+120)/2 = 5e15+60) -> 1e16 + 120.
  EXPECT_EQ(numpy_sum(big_then_ones(129)), kBig + 120);
}

TEST(NumpyStats, MeanStdMedian) {
  const std::vector<double> v = {1, 2, 3, 4};
  EXPECT_EQ(numpy_mean(v), 2.5);
  // Deviations -1.5, -0.5, 0.5, 1.5; squares sum 5; population std sqrt(5/4).
  EXPECT_EQ(numpy_std(v), std::sqrt(1.25));
  EXPECT_EQ(numpy_median(v), 2.5);
  EXPECT_EQ(numpy_median(std::vector<double>{3, 1, 2}), 2.0);
  EXPECT_EQ(numpy_std(std::vector<double>{41.28}), 0.0);
  EXPECT_EQ(numpy_min(v), 1.0);
  EXPECT_EQ(numpy_max(v), 4.0);
  EXPECT_TRUE(std::isnan(numpy_mean(std::vector<double>{})));
}

TEST(NumpyStats, GoldenKernelDurations) {
  // Two kernels of the torch_compile_triton golden: np.mean / np.std / np.median of
  // [1775.035, 1974.13] print 1874.5825, 99.5475 and 1874.5825.
  const std::vector<double> v = {1775.035, 1974.13};
  EXPECT_EQ(numpy_sum(v), 3749.165);
  EXPECT_EQ(numpy_mean(v), 1874.5825);
  EXPECT_EQ(numpy_std(v), 99.5475);
  EXPECT_EQ(numpy_median(v), 1874.5825);
}

TEST(PandasStats, SampleStdAndCompensatedSum) {
  const std::vector<double> v = {1, 2, 3, 4};
  // Sample variance 5/3.
  EXPECT_DOUBLE_EQ(pandas_std(v), std::sqrt(5.0 / 3.0));
  EXPECT_TRUE(std::isnan(pandas_std(std::vector<double>{5})));
  // Kahan: the compensation keeps the 1s that a plain left-to-right sum drops.
  EXPECT_EQ(pandas_sum(big_then_ones(5)), kBig + 4);
  EXPECT_EQ(pandas_mean(std::vector<double>{2, 4}), 3.0);
  EXPECT_EQ(pandas_sum(std::vector<double>{}), 0.0);
  EXPECT_EQ(pandas_median(std::vector<double>{4, 1, 3, 2}), 2.5);
}

TEST(PandasSort, DescendingOrderIsNumpysQuicksort) {
  // Up to 16 rows numpy's quicksort is an insertion sort: ties keep their order.
  const std::vector<double> few = {1, 3, 3, 2, 3};
  EXPECT_EQ(pandas_descending_order(few), (std::vector<std::size_t>{1, 2, 4, 3, 0}));
  // 18 rows: one median-of-3 partition step first. The eight 3s (rows 1 2 5 7 10 12 14 16)
  // come out as 5 7 1 10 2 12 14 16, not in row order: the order pandas 1.5 / numpy 1.24
  // produce (checked against the mi210 gpu_only kernel_summary golden, where two kernels tie).
  const std::vector<double> many = {5, 3, 3, 9, 1, 3, 7, 3, 2, 8, 3, 6, 3, 4, 3, 0, 3, 5};
  EXPECT_EQ(
      pandas_descending_order(many),
      (std::vector<std::size_t>{3, 9, 6, 11, 0, 17, 13, 5, 7, 1, 10, 2, 12, 14, 16, 8, 4, 15}));
  // NaN rows go last, in their order.
  const std::vector<double> with_nan = {std::nan(""), 2, std::nan(""), 5};
  EXPECT_EQ(pandas_descending_order(with_nan), (std::vector<std::size_t>{3, 1, 0, 2}));
  EXPECT_TRUE(pandas_descending_order(std::vector<double>{}).empty());
}

TEST(PandasSort, DegenerateInputsStillSort) {
  // Many equal keys in a sawtooth: deep partitioning over long runs of ties; the result must
  // still be ordered.
  std::vector<double> v;
  for (int i = 0; i < 5000; ++i) v.push_back(static_cast<double>((i * 7919) % 13));
  const auto order = pandas_descending_order(v);
  ASSERT_EQ(order.size(), v.size());
  for (std::size_t i = 1; i < order.size(); ++i) EXPECT_GE(v[order[i - 1]], v[order[i]]);
}

TEST(NumpyStats, MedianIsTheMiddleOfTheSortedValues) {
  // Odd and even lengths with repeats and negatives, against a full sort.
  for (std::size_t n = 1; n <= 40; ++n) {
    std::vector<double> v;
    for (std::size_t i = 0; i < n; ++i)
      v.push_back(static_cast<double>((i * 7919) % 13) - 6.0 + (i % 3) * 0.25);
    std::vector<double> sorted = v;
    std::sort(sorted.begin(), sorted.end());
    const double expected = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
    EXPECT_EQ(numpy_median(v), expected) << n << " values";
  }
}
