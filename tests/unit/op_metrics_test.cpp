// The per-instance metrics and roofline of one op (model/op_metrics.hpp), in particular the
// matrix precision a platform gives no peak for (docs/compatibility.md).
#include "model/op_metrics.hpp"

#include <gtest/gtest.h>

namespace {

using traceprism::model::compute_op_metrics;

traceprism::platform::PlatformInfo mi300x_like() {
  traceprism::platform::PlatformInfo p;
  p.numbers["peak_tflops.matrix_bf16"] = 1000;
  p.numbers["peak_tflops.matrix_fp8"] = 2000;
  p.numbers["hbm_bandwidth_gbps"] = 5000;
  return p;
}

TEST(OpMetrics, AMatrixPrecisionWithoutAPeakUsesTheBf16Peak) {
  const auto platform = mi300x_like();
  // 2 GFLOP, 100 MB in 50 µs: compute 2 µs at 1000 TFLOPS, memory 20 µs at 5 TB/s.
  const auto decode = compute_op_metrics(2e9, 100e6, 50, "matrix_fp4", &platform);
  ASSERT_TRUE(decode.has_roofline);
  EXPECT_FALSE(decode.compute_bound);
  EXPECT_DOUBLE_EQ(decode.roofline_time_us, 20);
  EXPECT_DOUBLE_EQ(decode.pct_roofline, 40);
  // 1 TFLOP, 100 MB in 2000 µs: compute 1000 µs, memory 20 µs.
  const auto prefill = compute_op_metrics(1e12, 100e6, 2000, "matrix_fp4", &platform);
  ASSERT_TRUE(prefill.has_roofline);
  EXPECT_TRUE(prefill.compute_bound);
  EXPECT_DOUBLE_EQ(prefill.pct_roofline, 50);
  // A spec the platform has keeps its own peak; a vector spec it lacks has no roofline.
  EXPECT_DOUBLE_EQ(compute_op_metrics(1e12, 100e6, 2000, "matrix_fp8", &platform).pct_roofline, 25);
  EXPECT_FALSE(compute_op_metrics(2e9, 100e6, 50, "vector_bfloat16", &platform).has_roofline);
}

TEST(OpMetrics, NoRooflineWithoutPlatformOrBytes) {
  const auto platform = mi300x_like();
  EXPECT_FALSE(compute_op_metrics(2e9, 100e6, 50, "matrix_bf16", nullptr).has_roofline);
  EXPECT_FALSE(compute_op_metrics(2e9, -1, 50, "matrix_bf16", &platform).has_roofline);
  const auto m = compute_op_metrics(2e9, 100e6, 50, "matrix_bf16", &platform);
  EXPECT_DOUBLE_EQ(m.tflops_per_s, 40);  // 2 GFLOP / 50 µs
  EXPECT_DOUBLE_EQ(m.tb_per_s, 2);       // 100 MB / 50 µs
}

// One RooflinePeaks answers every spec as a fresh look-up would, in any order of asking.
TEST(OpMetrics, RooflinePeaksRemembersEachSpecsAnswer) {
  const auto platform = mi300x_like();
  traceprism::model::RooflinePeaks peaks(&platform);
  for (int round = 0; round < 2; ++round) {
    for (const char* spec : {"matrix_fp4", "matrix_fp8", "vector_bfloat16", "matrix_bf16"}) {
      const auto cached = compute_op_metrics(1e12, 100e6, 2000, spec, peaks);
      const auto fresh = compute_op_metrics(1e12, 100e6, 2000, spec, &platform);
      EXPECT_EQ(cached.has_roofline, fresh.has_roofline) << spec;
      if (fresh.has_roofline) {
        EXPECT_DOUBLE_EQ(cached.pct_roofline, fresh.pct_roofline) << spec;
      }
    }
  }
  EXPECT_EQ(peaks.tflops("matrix_fp4"), 1000.0);  // the bf16 fallback
  EXPECT_EQ(peaks.tflops("matrix_fp8"), 2000.0);
  EXPECT_FALSE(peaks.tflops("vector_bfloat16").has_value());
  EXPECT_EQ(peaks.bandwidth_gbps(), 5000.0);
  traceprism::model::RooflinePeaks none(nullptr);
  EXPECT_FALSE(none.tflops("matrix_bf16").has_value());
  EXPECT_FALSE(compute_op_metrics(1e12, 100e6, 2000, "matrix_bf16", none).has_roofline);
}

}  // namespace
