// The layout-transform analyzer (diagnosis.md §6.4) on the SDK's fake host: a finding when the
// kernels that only convert layouts take more than 2 % of computation, channels-last advice only
// for NCHW <-> NHWC conversions (MIOpen named on AMD), the launching ops in a table, and an
// impact of 50 / 75 / 90 % of that time in % of E2E, worked out by hand from the events.
#include "layout_transform/layout_transform_analyzer.hpp"

#include <gtest/gtest.h>

#include <traceprism/testing.hpp>

#include <string>
#include <vector>

namespace traceprism::plugins::layout_transform {
namespace {

using traceprism::testing::FakeTrace;
using traceprism::testing::Finding;
using traceprism::testing::RunResult;

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(LayoutKind, NamesFromRealTraces) {
  EXPECT_EQ(layout_kind("void cudnn::ops::nchwToNhwcKernel<float, float, float, false, true, "
                        "(cudnnKernelDataType_t)0>(cudnn::ops::nchw2nhwc_params_t<float>, ...)"),
            LayoutKind::kToChannelsLast);
  EXPECT_EQ(layout_kind("void cudnn::ops::nhwcToNchwKernel<float, float, float, true, false>"),
            LayoutKind::kFromChannelsLast);
  EXPECT_EQ(layout_kind("batched_transpose_64x64_pack_4x4_ediv_4x4_half"),
            LayoutKind::kBatchedTranspose);
  EXPECT_EQ(layout_kind("transpose_readWrite_alignment_kernel<float, 1, false>"),
            LayoutKind::kTranspose);
  for (const char* other :
       {"volta_sgemm_64x64_nt", "void at::native::vectorized_elementwise_kernel<4, add>",
        "void at::native::(anonymous namespace)::max_pool_forward_nchw<float, float>",
        "Cijk_Ailk_Bljk_BBS_BH_MT128x64x64_MI32x32x8x1_SN"})
    EXPECT_EQ(layout_kind(other), LayoutKind::kNone) << other;
}

// Kernels on one stream, each launched by a runtime call under a chain of cpu_ops.
class LayoutTrace {
 public:
  void kernel(const std::string& name, double ts, double dur,
              const std::vector<std::string>& ops = {"aten::add"}) {
    Row parent = kNoRow;
    for (const std::string& op : ops) parent = trace.cpu_op(op, ts - 5, 4).parent(parent);
    const Row call = trace.runtime("cudaLaunchKernel", ts - 4, 2).parent(parent).correlation(next_);
    trace.kernel(name, ts, dur).launcher(call).correlation(next_++);
  }
  RunResult run() const {
    return traceprism::testing::run(
        trace, analyzer<LayoutTransformAnalyzer>("layout-transform", "", kLayoutOptions));
  }
  FakeTrace trace;

 private:
  std::int64_t next_ = 1;
};

constexpr const char* kToNhwc = "void cudnn::ops::nchwToNhwcKernel<float, float, float>";
constexpr const char* kToNchw = "void cudnn::ops::nhwcToNchwKernel<float, float, float>";
constexpr const char* kConv = "sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nhwc";

// [0, 1000) µs of computation, no gap: 60 + 40 µs of conversions around a 700 µs convolution.
TEST(LayoutTransformAnalyzer, ReportsConversionsWithChannelsLast) {
  LayoutTrace t;
  const std::vector<std::string> conv = {"aten::conv2d", "aten::cudnn_convolution"};
  t.kernel(kToNhwc, 0, 60, conv);
  t.kernel(kConv, 60, 700, conv);
  t.kernel(kToNchw, 760, 40, conv);
  t.kernel("void at::native::vectorized_elementwise_kernel<4, add>", 800, 200);
  const RunResult r = t.run();
  ASSERT_EQ(r.findings.size(), 1u);
  const Finding& f = r.findings[0];
  EXPECT_EQ(f.tier, Tier::kCompute);
  EXPECT_EQ(f.cause, "layout");
  EXPECT_DOUBLE_EQ(f.metric("percent_of_computation"), 10.0);
  EXPECT_DOUBLE_EQ(f.share_percent, 10.0);
  EXPECT_NEAR(f.impact_low, 5.0, 1e-9);
  EXPECT_NEAR(f.impact_mid, 7.5, 1e-9);
  EXPECT_NEAR(f.impact_high, 9.0, 1e-9);
  EXPECT_TRUE(has(f.action, "torch.channels_last")) << f.action;
  EXPECT_FALSE(has(f.action, "MIOpen")) << f.action;
  EXPECT_DOUBLE_EQ(f.metric("under_convolution_us"), 100.0);
  ASSERT_EQ(f.tables.size(), 3u);  // Data (from the unified perf summary), kernels, ops
  EXPECT_EQ(f.tables[0].columns[0], "Operation");
  ASSERT_EQ(f.tables[2].rows.size(), 1u);
  EXPECT_EQ(f.tables[2].rows[0][0], "aten::conv2d \u2192 aten::cudnn_convolution");
  EXPECT_EQ(f.rows.size(), 2u);
}

TEST(LayoutTransformAnalyzer, MiopenTransposesNameMiopen) {
  LayoutTrace t;
  t.kernel("batched_transpose_32x16_half", 0, 100, {"aten::miopen_convolution"});
  t.kernel("igemm_fwd_gtcx2_nhwc_fp16_bx0_ex1", 100, 900, {"aten::miopen_convolution"});
  const RunResult r = t.run();
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_TRUE(has(r.findings[0].action, "channels_last"));
  EXPECT_TRUE(has(r.findings[0].action, "convolution library (MIOpen)"));
}

// Transposes that are not NCHW <-> NHWC conversions: no memory-format advice.
TEST(LayoutTransformAnalyzer, OtherTransposesGetTheProducerAdvice) {
  LayoutTrace t;
  t.kernel("transpose_readWrite_alignment_kernel<float>", 0, 100, {"aten::contiguous"});
  t.kernel("volta_sgemm_64x64_nt", 100, 900);
  const RunResult r = t.run();
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_FALSE(has(r.findings[0].action, "channels_last")) << r.findings[0].action;
  EXPECT_TRUE(has(r.findings[0].action, "producer write the layout"));
}

// 20 µs of 1000 is exactly 2 %: not more than 2 %, so no finding; 30 µs is; the option moves it.
TEST(LayoutTransformAnalyzer, ThresholdIsMoreThanTwoPercentOfComputation) {
  LayoutTrace at;
  at.kernel(kToNhwc, 0, 20);
  at.kernel(kConv, 20, 980);
  EXPECT_TRUE(at.run().findings.empty());
  EXPECT_DOUBLE_EQ(at.run().figure("layout.percent_of_computation"), 2.0);

  LayoutTrace above;
  above.kernel(kToNhwc, 0, 30);
  above.kernel(kConv, 30, 970);
  EXPECT_EQ(above.run().findings.size(), 1u);

  above.trace.set_option("layout-transform.LayoutSharePercent", "5");
  EXPECT_TRUE(above.run().findings.empty());
}

TEST(LayoutTransformAnalyzer, NoLayoutKernelsNoFinding) {
  LayoutTrace t;
  t.kernel(kConv, 0, 1000);
  const RunResult r = t.run();
  EXPECT_TRUE(r.findings.empty());
  EXPECT_DOUBLE_EQ(r.figure("layout.time_us"), 0.0);
}

}  // namespace
}  // namespace traceprism::plugins::layout_transform
