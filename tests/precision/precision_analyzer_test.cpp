// The matrix-precision analyzer (diagnosis.md §6.1) on the SDK's fake host, and its kernel
// classifier on names taken from real traces. A finding needs FP32/TF32 matrix time of at least
// 5 % of computation and a platform whose BF16/FP16 peak is faster; its impact is that time x
// (1 - peak_fp32 / peak_low) x 0.5 / 0.7 / 0.9 in % of E2E, worked out here by hand from the
// events and peaks each test sets; without peaks it is "not quantifiable".
#include "precision/precision_analyzer.hpp"

#include <gtest/gtest.h>

#include <traceprism/testing.hpp>

#include <string>

namespace traceprism::plugins::precision {
namespace {

using traceprism::testing::FakeTrace;
using traceprism::testing::Finding;
using traceprism::testing::RunResult;

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(MatrixPrecisionClassifier, ReadsThePrecisionFromRealKernelNames) {
  const std::pair<const char*, Precision> cases[] = {
      {"void cutlass::Kernel2<cutlass_80_simt_sgemm_128x32_8x5_nn_align1>(...)", Precision::kFp32},
      {"volta_sgemm_64x64_nt", Precision::kFp32},
      {"ampere_sgemm_32x32_sliced1x4_tn", Precision::kFp32},
      {"cudnn_infer_volta_scudnn_128x64_relu_medium_nn_v1", Precision::kFp32},
      {"void cudnn::detail::implicit_convolve_sgemm<float, float, 128, 5, 5>(...)",
       Precision::kFp32},
      {"depthwise_conv2d_fwd_fp32_kernel", Precision::kFp32},
      {"naive_conv_fwd_nchw_float_double_float", Precision::kFp32},
      {"naive_conv_ab_nonpacked_bwd_nhwc_half_double_half", Precision::kFp16},
      {"void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_16x6_tn_align4>(...)",
       Precision::kTf32},
      {"sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize128x128x16",
       Precision::kTf32},
      {"void cutlass::Kernel2<cutlass_75_tensorop_bf16_s1688gemm_bf16_128x128_nn_align1>(...)",
       Precision::kBf16},
      {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1",
       Precision::kBf16},
      {"volta_h884gemm_64x64_ldg8_nn", Precision::kFp16},
      {"turing_h1688gemm_128x128_ldg8_tn", Precision::kFp16},
      {"volta_h16gemm_<BF16,BF16,float>_nt_v1", Precision::kBf16},
      {"sm90_xmma_gemm_e4m3e4m3_e4m3f32_f32_tn_n_tilesize128x128x128", Precision::kFp8},
      {"gemm_mxfp4_e2m1_kernel", Precision::kFp4},
      {"Cijk_Ailk_Bljk_S_B_Bias_HA_S_SAV_UserArgs_MT16x16x128_MI16x16x1_SN", Precision::kFp32},
      {"Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs_MT64x16x32_MI16x16x1_SN", Precision::kFp32},
      {"Cijk_Ailk_Bljk_BBS_BH_MT128x64x64_MI32x32x8x1_SN_1LDSB0", Precision::kBf16},
      {"Cijk_Alik_Bljk_B_BS_BH_Bias_HA_S_SAV_UserArgs_MT256x128x64", Precision::kBf16},
      {"Cijk_Ailk_Bljk_HHS_BH_MT64x128x32_MI16x16x16x1_SN", Precision::kFp16},
      {"igemm_fwd_gtcx2_nhwc_bf16_bx0_ex1_bt128x128x32", Precision::kBf16},
      {"igemm_fwd_gtcx_nhwc_fp32_bx0_bt128x128x8", Precision::kFp32},
  };
  for (const auto& [name, precision] : cases) {
    EXPECT_TRUE(is_matrix_kernel(name)) << name;
    EXPECT_EQ(classify(name, std::nullopt), precision) << name;
  }
}

TEST(MatrixPrecisionClassifier, LeavesOtherKernelsAlone) {
  for (const char* name :
       {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>",
        "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128>>",
        "void cudnn::ops::nchwToNhwcKernel<float, float, float, false, true>(...)",
        "batched_transpose_32x16_half", "void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float>",
        "void at::native::unrolled_elementwise_kernel<convert_fp8_kernel>",
        "paged_attention_ll4mi_QKV_mfma16_kernel<0, __hip_bfloat16>"}) {
    EXPECT_FALSE(is_matrix_kernel(name)) << name;
    EXPECT_EQ(classify(name, "[\"float\"]"), Precision::kNotMatrix) << name;
  }
}

// A name that says no precision: the launching op's first floating-point input type decides.
TEST(MatrixPrecisionClassifier, FallsBackToTheOpInputType) {
  const char* name = "nvjet_tst_128x256_64x4_1x2_h_bz_coopA_TNT";
  EXPECT_EQ(classify(name, "[\"float\", \"float\", \"\", \"Scalar\"]"), Precision::kFp32Input);
  EXPECT_EQ(classify(name, "[\"c10::BFloat16\", \"c10::BFloat16\"]"), Precision::kBf16);
  EXPECT_EQ(classify(name, "[\"c10::Half\"]"), Precision::kFp16);
  EXPECT_EQ(classify(name, "[\"long int\", \"\"]"), Precision::kUnknown);
  EXPECT_EQ(classify(name, std::nullopt), Precision::kUnknown);
  // The name wins over the op: a TF32 kernel has FP32 inputs.
  EXPECT_EQ(classify("sm80_xmma_gemm_f32f32_tf32f32_f32_tn_n", "[\"float\", \"float\"]"),
            Precision::kTf32);
}

// Kernels on one stream, each launched by a runtime call under one cpu_op.
class MatrixTrace {
 public:
  void kernel(const std::string& name, double ts, double dur, const std::string& op = "aten::mm") {
    const Row parent = trace.cpu_op(op, ts - 5, 4);
    const Row call = trace.runtime("cudaLaunchKernel", ts - 4, 2).parent(parent).correlation(next_);
    trace.kernel(name, ts, dur).launcher(call).correlation(next_++);
  }
  // H100 SXM's dense peaks (platforms/h100_sxm.json).
  void h100() {
    trace.set_platform_number("peak_tflops.matrix_bf16", 989.5);
    trace.set_platform_number("peak_tflops.matrix_fp16", 989.5);
    trace.set_platform_number("peak_tflops.matrix_tf32", 494.5);
    trace.set_platform_number("peak_tflops.vector_fp32", 67);
  }
  RunResult run() const {
    return traceprism::testing::run(
        trace, analyzer<MatrixPrecisionAnalyzer>("matrix-precision", "", kPrecisionOptions));
  }
  FakeTrace trace;

 private:
  std::int64_t next_ = 1;
};

constexpr const char* kSgemm = "volta_sgemm_128x64_nn";
constexpr const char* kTf32 = "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_16x6_tn>";
constexpr const char* kBf16 = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64";
constexpr const char* kOther = "void at::native::vectorized_elementwise_kernel<4, add>";

// Computation [0, 1000) µs with no gap: 300 µs of SIMT sgemm, 500 of BF16 GEMM, 200 elementwise.
TEST(MatrixPrecisionAnalyzer, ReportsFp32GemmTimeWithItsRecoverableShare) {
  MatrixTrace t;
  t.kernel(kSgemm, 0, 300, "aten::addmm");
  t.kernel(kBf16, 300, 500);
  t.kernel(kOther, 800, 200, "aten::add");
  t.h100();
  const RunResult r = t.run();
  ASSERT_EQ(r.findings.size(), 1u);
  const Finding& f = r.findings[0];
  EXPECT_EQ(f.tier, Tier::kCompute);
  EXPECT_EQ(f.cause, "precision");
  EXPECT_EQ(f.impact_kind, TRACEPRISM_IMPACT_QUANTIFIED);
  EXPECT_DOUBLE_EQ(f.metric("percent_of_computation"), 30.0);
  EXPECT_DOUBLE_EQ(f.share_percent, 30.0);  // E2E is the 1000 µs of computation
  // 30 % x (1 - 67 / 989.5) x 0.5 / 0.7 / 0.9.
  const double gain = 1 - 67 / 989.5;
  EXPECT_NEAR(f.impact_low, 30 * gain * 0.5, 1e-9);
  EXPECT_NEAR(f.impact_mid, 30 * gain * 0.7, 1e-9);
  EXPECT_NEAR(f.impact_high, 30 * gain * 0.9, 1e-9);
  EXPECT_TRUE(has(f.action, "torch.autocast"));
  EXPECT_TRUE(has(f.action, "allow_tf32")) << f.action;  // no TF32 kernel: TF32 is not on
  // The report's Data table comes from the unified perf summary (none on the fake host), then
  // the kernels and the precision split.
  ASSERT_EQ(f.tables.size(), 3u);
  EXPECT_EQ(f.tables[0].columns[0], "Operation");
  ASSERT_EQ(f.tables[1].rows.size(), 1u);
  EXPECT_EQ(f.tables[1].rows[0][0], kSgemm);
  EXPECT_EQ(f.tables[1].rows[0][5], "aten::addmm");
  EXPECT_EQ(f.rows.size(), 1u);
}

TEST(MatrixPrecisionAnalyzer, NoFindingWhenMatrixKernelsRunInBf16) {
  MatrixTrace t;
  t.kernel(kBf16, 0, 800);
  t.kernel(kOther, 800, 200, "aten::add");
  t.h100();
  const RunResult r = t.run();
  EXPECT_TRUE(r.findings.empty());
  EXPECT_DOUBLE_EQ(r.figure("precision.fp32_family_percent_of_computation"), 0.0);
}

// 40 µs of 1000 is 4 %: under the 5 % default; the option lowers the bar.
TEST(MatrixPrecisionAnalyzer, ThresholdIsFivePercentOfComputation) {
  MatrixTrace below;
  below.kernel(kSgemm, 0, 40);
  below.kernel(kBf16, 40, 960);
  below.h100();
  EXPECT_TRUE(below.run().findings.empty());

  MatrixTrace at;
  at.kernel(kSgemm, 0, 50);
  at.kernel(kBf16, 50, 950);
  at.h100();
  EXPECT_EQ(at.run().findings.size(), 1u);

  below.trace.set_option("matrix-precision.Fp32SharePercent", "3");
  EXPECT_EQ(below.run().findings.size(), 1u);
}

// Without platform peaks the finding stays, with no number for what it would save.
TEST(MatrixPrecisionAnalyzer, NoPeaksMeansNotQuantifiable) {
  MatrixTrace t;
  t.kernel(kSgemm, 0, 500);
  t.kernel(kOther, 500, 500, "aten::add");
  const RunResult r = t.run();
  ASSERT_EQ(r.findings.size(), 1u);
  const Finding& f = r.findings[0];
  EXPECT_EQ(f.impact_kind, TRACEPRISM_IMPACT_NOT_QUANTIFIABLE);
  EXPECT_DOUBLE_EQ(f.share_percent, 50.0);
  EXPECT_TRUE(has(f.insight, "not quantified"));
  // Whether the GPU has TF32 is unknown: the TF32 advice says so.
  EXPECT_TRUE(has(f.action, "if the GPU has TF32 tensor cores")) << f.action;
}

// A GPU whose BF16/FP16 rate is no faster than its FP32 rate: nothing to gain, no finding.
TEST(MatrixPrecisionAnalyzer, NoFindingWithoutAFasterLowerPrecision) {
  MatrixTrace t;
  t.kernel(kSgemm, 0, 500);
  t.kernel(kOther, 500, 500, "aten::add");
  t.trace.set_platform_number("peak_tflops.matrix_fp16", 15.7);
  t.trace.set_platform_number("peak_tflops.vector_fp32", 15.7);
  EXPECT_TRUE(t.run().findings.empty());
}

// TF32 kernels in the trace: TF32 is already allowed, so only BF16/FP16 is offered, and the TF32
// time is priced against the TF32 peak.
TEST(MatrixPrecisionAnalyzer, TensorFloat32AlreadyOnOffersOnlyBf16) {
  MatrixTrace t;
  t.kernel(kTf32, 0, 400);
  t.kernel(kOther, 400, 600, "aten::add");
  t.h100();
  const RunResult r = t.run();
  ASSERT_EQ(r.findings.size(), 1u);
  const Finding& f = r.findings[0];
  EXPECT_TRUE(has(f.action, "TF32 is already on")) << f.action;
  EXPECT_FALSE(has(f.action, "allow_tf32")) << f.action;
  EXPECT_NEAR(f.impact_mid, 40 * (1 - 494.5 / 989.5) * 0.7, 1e-9);
}

// V100: FP16 tensor cores but no TF32; the TF32 advice would be false there.
TEST(MatrixPrecisionAnalyzer, NoTf32AdviceOnAGpuWithoutTf32) {
  MatrixTrace t;
  t.kernel(kSgemm, 0, 500);
  t.kernel(kOther, 500, 500, "aten::add");
  t.trace.set_platform_number("peak_tflops.matrix_fp16", 125);
  t.trace.set_platform_number("peak_tflops.vector_fp32", 15.7);
  const RunResult r = t.run();
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_FALSE(has(r.findings[0].action, "allow_tf32")) << r.findings[0].action;
  EXPECT_NEAR(r.findings[0].impact_high, 50 * (1 - 15.7 / 125) * 0.9, 1e-9);
}

// Two streams: concurrent FP32 kernels count once, so the share never exceeds computation.
TEST(MatrixPrecisionAnalyzer, ConcurrentKernelsCountTheirUnion) {
  MatrixTrace t;
  t.kernel(kSgemm, 0, 100);
  t.kernel(kSgemm, 0, 100);
  t.trace.set_platform_number("peak_tflops.matrix_fp16", 125);
  t.trace.set_platform_number("peak_tflops.vector_fp32", 15.7);
  const RunResult r = t.run();
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_DOUBLE_EQ(r.findings[0].metric("percent_of_computation"), 100.0);
  EXPECT_DOUBLE_EQ(r.findings[0].share_percent, 100.0);
}

}  // namespace
}  // namespace traceprism::plugins::precision
