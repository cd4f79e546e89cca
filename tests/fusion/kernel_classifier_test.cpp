// The kernel-name classifier (analysis-rules §2.5): priorities, ties to the earliest rule, the
// confidence floor, and the type of every kernel in every golden fusion_candidates.json.
#include "fusion/kernel_classifier.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fusion_case.hpp"

namespace traceprism::plugins::fusion {
namespace {

TEST(KernelClassifier, RepresentativeNamesFromTheGoldens) {
  EXPECT_EQ(classify_kernel("Cijk_Alik_Bljk_B_BS_BH_Bias_HA_S_SAV_UserArgs_MT32x64x128_MI16x16x1"),
            "GEMM");
  EXPECT_EQ(classify_kernel("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_"
                            "warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas"),
            "GEMM");
  EXPECT_EQ(classify_kernel("void at::native::vectorized_elementwise_kernel<4, "
                            "at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, "
                            "c10::BFloat16, at::native::binary_internal::MulFunctor<float> >"),
            "Elementwise");
  EXPECT_EQ(classify_kernel("void at::native::(anonymous namespace)::vectorized_layer_norm_kernel"
                            "<c10::BFloat16, float>(int, float, c10::BFloat16 const*)"),
            "LayerNorm");  // ties with "Normalization" (also 20): the earlier rule wins
  EXPECT_EQ(classify_kernel("void (anonymous namespace)::softmax_warp_forward<c10::BFloat16, "
                            "c10::BFloat16, float, 3, false, false>"),
            "Unknown");
  EXPECT_EQ(classify_kernel("batched_transpose_256x4_half"), "Unknown");
  EXPECT_EQ(classify_kernel("void at::native::(anonymous namespace)::CatArrayBatchedCopy<"
                            "at::native::(anonymous namespace)::OpaqueType<4u>, unsigned int>"),
            "Elementwise");
}

TEST(KernelClassifier, PrioritiesAndTheConfidenceFloor) {
  EXPECT_EQ(classify_kernel("Memcpy DtoH (Device -> Pinned)"), "MemCpy");  // 30 beats all
  EXPECT_EQ(classify_kernel("fused_moe_swiglu_kernel"), "MoE GateUp+SwiGLU GEMM");
  EXPECT_EQ(classify_kernel("fmoe_bf16_g1u1_silu"), "MoE GEMM+SiLU (aiter)");
  EXPECT_EQ(classify_kernel("apply_rotary_kernel"), "Rotary Embedding");
  EXPECT_EQ(classify_kernel("rotary_embedding_kernel"), "Elementwise");  // embedding 20 > rotary 18
  EXPECT_EQ(classify_kernel("vllm::silu_and_mul_kernel<bf16>"), "Activation (SiLU+Mul)");
  EXPECT_EQ(classify_kernel("flash_fwd_kernel<Flash_fwd_kernel_traits>"), "Attention (flash)");
  EXPECT_EQ(classify_kernel("triton_poi_fused_add_mul_0"), "Elementwise");
  EXPECT_EQ(classify_kernel("triton_red_fused_rsqrt_mean_pow_1"), "RMSNorm (fused triton)");
  EXPECT_EQ(classify_kernel("dynamic_quant_kernel"), "Unknown");  // "quant" is priority 4
  EXPECT_EQ(classify_kernel("cutlass_80_simt_sgemm_128x32_8x5_nn_align1"), "GEMM");  // gemm, 5
  EXPECT_EQ(classify_kernel("some_norm kernel"), "Unknown");  // \bnorm\b is priority 1
  EXPECT_EQ(classify_kernel("ROTARY"), "Rotary Embedding");   // case-insensitive
  EXPECT_EQ(classify_kernel(""), "Unknown");
}

TEST(KernelClassifier, EveryKernelOfEveryGoldenCandidate) {
  const auto cases = testing::fusion_cases();
  if (cases.empty())
    GTEST_SKIP() << "shared traces absent: " << traceprism::testing::shared_traces();
  std::size_t checked = 0;
  for (const testing::CaseFiles& files : cases) {
    const boost::json::value golden = boost::json::parse(
        testing::slurp(files.expected / "category_data" / "fusion_candidates.json"));
    for (const boost::json::value& c : golden.as_array()) {
      for (const boost::json::value& k : c.at("kernels").as_array()) {
        const auto& o = k.as_object();
        const std::string name(o.contains("name") ? o.at("name").as_string()
                                                  : o.at("kernel_name").as_string());
        const std::string type(o.contains("type") ? o.at("type").as_string()
                                                  : o.at("kernel_type").as_string());
        EXPECT_EQ(classify_kernel(name), type) << files.name << ": " << name;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 100u);
}

// The literal rules are matched by substring search, the others by std::regex: on names built
// from the rules' own words (in and out of order, in other cases, split by a line break, which
// `.*` does not cross) both ways give the same type.
TEST(KernelClassifier, SubstringMatchingAgreesWithTheRegexes) {
  const std::vector<std::string> words = {"rsqrt",
                                          "mean",
                                          "pow",
                                          "mul",
                                          "fused__to_copy_add",
                                          "_to_copy_add",
                                          "RmsNorm",
                                          "LAYER_NORM",
                                          "gemm",
                                          "MatMul",
                                          "bmm_Bfloat16",
                                          "MxE2m1",
                                          "cublasLt",
                                          "triton_poi_fused",
                                          "quant",
                                          "swiglu",
                                          "fmoe",
                                          "g1u1",
                                          "silu",
                                          "softmax",
                                          "rotary",
                                          "embedding",
                                          "flash_fwd",
                                          "attention_2d",
                                          "fmhaSm90",
                                          "merge_16x16_to_64x64_inverse",
                                          "norm",
                                          "GELU",
                                          "swish",
                                          "direct_copy_kernel",
                                          "_to_copy",
                                          "gemm_a8w8",
                                          "fmhaSm100f",
                                          "attention_3d",
                                          "merge_2x",
                                          "unified_attention",
                                          "fmhasm",
                                          "elementwise",
                                          "Memcpy",
                                          "cat",
                                          "x"};
  std::vector<std::string> names;
  for (const std::string& a : words)
    for (const std::string& b : words) {
      names.push_back(a + "_" + b);
      names.push_back(b + "<" + a + ">");
      names.push_back(a + "\n" + b);
    }
  names.push_back("fused__to_copy_add_mean_xyz_pow_rsqrt");
  names.push_back("fused__to_copy_add_mean\n_pow_rsqrt");
  names.push_back("RSQRT then MEAN then POW");
  std::size_t differ = 0;
  for (const std::string& name : names)
    if (classify_kernel(name) != classify_kernel_by_regex(name)) {
      ADD_FAILURE() << name << ": " << classify_kernel(name) << " vs "
                    << classify_kernel_by_regex(name);
      if (++differ > 10) break;
    }
  EXPECT_EQ(classify_kernel("fused__to_copy_add_mean\n_pow_rsqrt"),
            classify_kernel_by_regex("fused__to_copy_add_mean\n_pow_rsqrt"));
  EXPECT_NE(classify_kernel("RSQRT then MEAN then POW"), "Unknown");
}

}  // namespace
}  // namespace traceprism::plugins::fusion
