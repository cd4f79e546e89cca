// Advice only where its precondition holds (diagnosis.md §1.1, §6.5): the one list of already
// fused attention kernels (traceprism/fused_attention.hpp) and the compute advice it gates, the
// backward-pass test (traceprism/training.hpp) and the batch-norm advice it picks between
// inference (fold into the convolution) and training (compiler fusion, channels-last).
//
// The compute engine's sources are compiled into this test (as in tests/unit).
#include <gtest/gtest.h>

#include <traceprism/fused_attention.hpp>
#include <traceprism/testing.hpp>
#include <traceprism/training.hpp>

#include <list>
#include <string>
#include <vector>

#include "../../plugins/common/compute_category.cpp"
#include "../../plugins/common/compute_classify.cpp"
#include "../../plugins/common/compute_impact.cpp"
#include "../../plugins/common/compute_prose.cpp"
#include "fusion/fusion_prose.hpp"
#include "support/csv_rows.hpp"

namespace {

bool has(const std::string& text, const char* part) {
  return text.find(part) != std::string::npos;
}

TEST(FusedAttentionKernels, TheListNamesEveryFusedFamily) {
  for (const char* name : {
           "void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4>>",
           "void pytorch_flash::flash_fwd_splitkv_kernel<...>",
           "fmha_cutlassF_bf16_aligned_64x128_rf_sm80",
           "ck_tile::kentry<ck_tile::FmhaBatchPrefillWithPagedKVCacheKernel<...>>",
           "ck_tile::FmhaFwdKernel<...>",
           "void vllm::paged_attention_v2_kernel<...>",
           "kernel_unified_attention_2d",
           "aiter::mha_fwd_hd128_bf16",
           "aiter::mha_batch_prefill_bf16",
           "_attn_fwd",
           "cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_3",
           "cudnn_generated_oss_sdpa_fprop_kernel",
       })
    EXPECT_TRUE(traceprism::is_fused_attention_kernel(name)) << name;
  for (const char* name : {
           "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float>",
           "Cijk_Ailk_Bljk_BBS_BH_MT128x128x64",
           "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_tn",
           "void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512>",
           "void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<...>>",
       })
    EXPECT_FALSE(traceprism::is_fused_attention_kernel(name)) << name;
}

TEST(BackwardPass, TheAutogradEngineAndBackwardNodesMarkIt) {
  EXPECT_TRUE(
      traceprism::is_backward_op_name("autograd::engine::evaluate_function: ConvolutionBackward0"));
  EXPECT_TRUE(traceprism::is_backward_op_name("NativeBatchNormBackward0"));
  EXPECT_TRUE(traceprism::is_backward_op_name("AddmmBackward1"));
  EXPECT_FALSE(traceprism::is_backward_op_name("aten::convolution_backward_fake"));
  EXPECT_FALSE(traceprism::is_backward_op_name("aten::native_batch_norm"));
  EXPECT_FALSE(traceprism::is_backward_op_name("aten::conv2d"));
}

bool g_training = false;

class RecordsTraining : public traceprism::Analyzer {
 public:
  explicit RecordsTraining(traceprism::Context&) {}
  traceprism::Status run(traceprism::Context& ctx) override {
    g_training = traceprism::has_backward_pass(ctx);
    return traceprism::Status::kOk;
  }
};

TEST(BackwardPass, FoundOnATrainingTraceOnly) {
  traceprism::testing::FakeTrace inference;
  inference.cpu_op("aten::conv2d", 0, 10);
  inference.cpu_op("aten::batch_norm", 10, 5);
  g_training = true;
  traceprism::testing::run<RecordsTraining>(inference);
  EXPECT_FALSE(g_training);

  traceprism::testing::FakeTrace training = inference;
  training.cpu_op("autograd::engine::evaluate_function: NativeBatchNormBackward0", 20, 5);
  traceprism::testing::run<RecordsTraining>(training);
  EXPECT_TRUE(g_training);
}

namespace tf = traceprism::plugins::fusion;

// A batch-norm chain's finding text, on an inference or a training trace.
std::string batch_norm_action(bool training) {
  tf::FusionCandidate c;
  c.module_name = c.base_name = "BatchNorm2d";
  tf::FusionEstimate e;
  e.operation = c.base_name;
  e.time_ms = 1;
  e.instance_count = 1;
  e.kernel_count = 2;
  const tf::FusionPattern pattern{tf::PatternKind::kBatchNorm, "Unfused batch-norm"};
  return tf::describe(c, e, pattern, 10, training).action;
}

TEST(BatchNormAdvice, FoldOnlyInInference) {
  const std::string inference = batch_norm_action(false);
  EXPECT_TRUE(has(inference, "Fold the frozen batch-norm")) << inference;
  const std::string training = batch_norm_action(true);
  EXPECT_FALSE(has(training, "Fold")) << training;
  EXPECT_FALSE(has(training, "frozen")) << training;
  EXPECT_TRUE(has(training, "torch.compile")) << training;
  EXPECT_TRUE(has(training, "channels-last")) << training;
}

namespace tc = traceprism::plugins::compute;

// One SDPA op of the unified perf summary at 20 % of its roofline, with its kernels.
tc::CategoryMetrics attention_category(const std::string& op, const std::string& kernels) {
  traceprism::testing::Csv csv;
  csv.header = {"name",
                "op category",
                "Input Dims",
                "Input type",
                "ex_UID",
                "operation_count",
                "Kernel Time (\xC2\xB5s)_sum",
                "FLOPS/Byte",
                "Compute Spec",
                "Roofline Bound",
                "TFLOPS/s_mean",
                "TB/s_mean",
                "Pct Roofline_mean",
                "kernel_details_summary"};
  csv.rows = {{op, "SDPA_fwd", "((1, 16, 2048, 128), (1, 16, 2048, 128), (1, 16, 2048, 128))",
               "('c10::BFloat16', 'c10::BFloat16', 'c10::BFloat16')", "3", "10", "5000", "500",
               "matrix_bf16", "COMPUTE_BOUND", "140", "0.3", "20", kernels}};
  static std::list<tc::OpTable> tables;  // kept alive: the metrics may point into them
  tables.push_back(traceprism::testing::op_table_from_csv(csv));
  tc::Inputs in;
  in.ops = &tables.back();
  in.e2e_ms = 10;
  in.peaks.tflops = {{"matrix_bf16", 708}, {"vector_bf16", 163}};
  in.peaks.hbm_tbs = 5.3;
  return tc::analyze_category(in, "sdpa_fwd", "sdpa_fwd");
}

TEST(FusedAttentionAdvice, NeverCallsFusedKernelsUnfused) {
  const tc::CategoryMetrics fused =
      attention_category("aten::_scaled_dot_product_efficient_attention",
                         "[{'name': 'fmha_cutlassF_bf16_aligned_64x128_rf_sm80'}]");
  ASSERT_FALSE(fused.findings.empty());
  const tc::FindingText fused_text = tc::finding_text(fused, fused.findings[0]);
  EXPECT_FALSE(has(fused_text.action, "unfused")) << fused_text.action;
  EXPECT_FALSE(has(fused_text.action, "Replace")) << fused_text.action;
  EXPECT_FALSE(has(fused_text.insight + fused_text.identification, "is unfused"))
      << fused_text.insight;

  const tc::CategoryMetrics unfused =
      attention_category("aten::_scaled_dot_product_attention_math",
                         "[{'name': 'Cijk_Ailk_Bljk_BBS_BH'}, {'name': 'cunn_SoftMaxForward'}]");
  ASSERT_FALSE(unfused.findings.empty());
  const tc::FindingText unfused_text = tc::finding_text(unfused, unfused.findings[0]);
  EXPECT_TRUE(has(unfused_text.action, "Replace the unfused attention")) << unfused_text.action;
}

}  // namespace
