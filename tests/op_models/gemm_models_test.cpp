// The GEMM-family op models (plugins/gemm): the spec's hand-checked examples (perf-model.md
// §15), cases computed by hand from the §5 formulas, error behaviour, then every row of every
// golden GEMM sheet.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "gemm/gemm_models.hpp"
#include "golden_rows.hpp"

namespace traceprism::plugins::gemm {
namespace {

using traceprism::testing::all_golden_sheets;
using traceprism::testing::SheetRow;

using ModelFn = void (*)(const OpCall&, OpModelResult&);

struct Outcome {
  OpStatus status;
  OpModelResult r;
};

Outcome run(ModelFn fn, const OpCall& call) {
  Outcome out{OpStatus::kFailed, {}};
  out.status = run_op_model_guarded(fn, call, out.r);
  return out;
}

OpCall make(const std::string& name, const char* dims, const char* types,
            const char* strides = nullptr, const char* concrete = nullptr,
            std::vector<std::string> kernels = {}) {
  auto opt = [](const char* s) -> std::optional<std::string_view> {
    if (!s) return std::nullopt;
    return std::string_view(s);
  };
  return OpCall(name, opt(dims), opt(types), opt(strides), opt(concrete), std::move(kernels));
}

std::map<std::string, std::string> params_of(const OpModelResult& r) {
  std::map<std::string, std::string> out;
  for (const auto& p : r.params) out[p.key] = p.repr;
  return out;
}

std::vector<std::string> keys_of(const OpModelResult& r) {
  std::vector<std::string> out;
  for (const auto& p : r.params) out.push_back(p.key);
  return out;
}

void expect_gemm(const Outcome& x) {
  EXPECT_EQ(x.r.category, "GEMM");
  EXPECT_EQ(x.r.sheet, "GEMM");
  EXPECT_TRUE(x.r.bwd_category.empty());
  EXPECT_EQ(x.r.bwd_status, OpStatus::kNotModelled);  // GEMM has no backward
}

// ---- §15 GEMM.csv, checked by hand in the spec ------------------------------------------------

TEST(GemmModels, Spec15MmRow) {
  auto x = run(model_mm,
               make("aten::mm", "[[8944,1024],[1024,2816]]", R"(["c10::BFloat16","c10::BFloat16"])",
                    "[[1024,1],[1,1024]]", R"(["",""])"));
  ASSERT_EQ(x.status, OpStatus::kOk);
  expect_gemm(x);
  EXPECT_EQ(x.r.flops, 51581550592.0);
  EXPECT_EQ(x.r.bytes, 74457088.0);
  EXPECT_DOUBLE_EQ(x.r.bytes / 1048576, 71.0078125);
  EXPECT_EQ(x.r.compute_spec, "matrix_bf16");
  EXPECT_EQ(keys_of(x.r), (std::vector<std::string>{"M", "N", "K", "bias", "stride_A", "stride_B",
                                                    "dtype_A_B", "B"}));
  auto p = params_of(x.r);
  EXPECT_EQ(p["M"], "8944");
  EXPECT_EQ(p["N"], "2816");
  EXPECT_EQ(p["K"], "1024");
  EXPECT_EQ(p["bias"], "False");
  EXPECT_EQ(p["stride_A"], "(1024, 1)");
  EXPECT_EQ(p["stride_B"], "(1, 1024)");
  EXPECT_EQ(p["dtype_A_B"], "('c10::BFloat16', 'c10::BFloat16')");
  EXPECT_EQ(p["B"], "1");
}

TEST(GemmModels, Spec15AddmmRowCountsBiasAsOneByN) {
  auto x = run(model_addmm,
               make("aten::addmm", "[[1024],[8944,1024],[1024,1024],[],[]]",
                    R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","Scalar","Scalar"])",
                    "[[1],[1024,1],[1,1024],[],[]]", R"(["","","","1","1"])"));
  ASSERT_EQ(x.status, OpStatus::kOk);
  EXPECT_EQ(x.r.flops, 18766086144.0);
  EXPECT_EQ(x.r.bytes, 38733824.0);  // 36.939453125 MB
  EXPECT_EQ(params_of(x.r)["bias"], "True");
}

TEST(GemmModels, Spec15BmmRowFp32) {
  auto x = run(model_bmm, make("aten::bmm", "[[1,32,1],[1,1,559]]", R"(["float","float"])",
                               "[[32,1,1],[559,559,1]]", R"(["",""])",
                               {"void cutlass::Kernel2<cutlass_80_simt_sgemm_128x32_8x5_nn_align1>"
                                "(cutlass_80_simt_sgemm_128x32_8x5_nn_align1::Params)"}));
  ASSERT_EQ(x.status, OpStatus::kOk);
  EXPECT_EQ(x.r.flops, 35776.0);
  EXPECT_EQ(x.r.bytes, 73916.0);
  EXPECT_EQ(x.r.compute_spec, "matrix_fp32");  // a SIMT sgemm is not TF32
  EXPECT_EQ(keys_of(x.r).front(), "B");        // bmm's dict starts with B
}

// ---- hand-computed from the §5 formulas -------------------------------------------------------

// B=2, M=4, K=8, N=16, bias: FLOPs 2·(2·4·16·8 + 4·16) = 2176;
// bytes 2·(4·8 + 8·16 + 4·16 + 16)·2 = 960.
TEST(GemmModels, BaddbmmScalesFlopsAndBytesByBatch) {
  auto x = run(model_baddbmm, make("aten::baddbmm", "[[2,4,16],[2,4,8],[2,8,16],[],[]]",
                                   R"(["c10::Half","c10::Half","c10::Half","Scalar","Scalar"])"));
  ASSERT_EQ(x.status, OpStatus::kOk);
  EXPECT_EQ(x.r.flops, 2176.0);
  EXPECT_EQ(x.r.bytes, 960.0);
  EXPECT_EQ(x.r.compute_spec, "matrix_fp16");
  EXPECT_EQ(params_of(x.r)["stride_A"], "None");  // no Input Strides: None, not a failure
}

TEST(GemmModels, BmmNeedsRank3) {
  auto x = run(model_bmm, make("aten::bmm", "[[32,1],[1,559]]", R"(["float","float"])"));
  EXPECT_EQ(x.status, OpStatus::kFailed);
  EXPECT_EQ(x.r.category, "GEMM");  // set before the failure
}

TEST(GemmModels, MmWithUnsizedDtypeHasFlopsButNoBytes) {
  auto x = run(model_mm, make("aten::mm", "[[4,8],[8,2]]", R"(["bool","bool"])"));
  ASSERT_EQ(x.status, OpStatus::kOk);
  EXPECT_EQ(x.r.flops, 128.0);
  EXPECT_EQ(x.r.bytes, -1.0);
  EXPECT_EQ(x.r.compute_spec, "");
}

TEST(GemmModels, MmWithoutInputDimsFails) {
  auto x = run(model_mm, make("aten::mm", nullptr, R"(["float","float"])"));
  EXPECT_EQ(x.status, OpStatus::kFailed);
  EXPECT_EQ(x.r.category, "GEMM");
}

// Dims no tensor has: negative, or so large that 2·M·N·K leaves 64 bits. The model fails (the
// op is counted as unmodelled) instead of printing negative GFLOPS or overflowing.
TEST(GemmModels, NegativeOrOverflowingDimsFail) {
  auto negative = run(model_mm, make("aten::mm", "[[-4,8],[8,2]]", R"(["float","float"])"));
  EXPECT_EQ(negative.status, OpStatus::kFailed);
  auto huge = run(model_mm, make("aten::mm", "[[4000000000,4000000000],[4000000000,2]]",
                                 R"(["float","float"])"));
  EXPECT_EQ(huge.status, OpStatus::kFailed);
  auto largest = run(model_mm, make("aten::mm", "[[1048576,1048576],[1048576,1024]]",
                                    R"(["c10::BFloat16","c10::BFloat16"])"));
  ASSERT_EQ(largest.status, OpStatus::kOk);
  EXPECT_EQ(largest.r.flops, 2.0 * 1048576.0 * 1024.0 * 1048576.0);
}

// M=16, K=32, N=64 fp8: FLOPs 2·16·64·32 = 65536; bytes 16·32 + 32·64 + 16·64·2 = 4608 (fp8 in,
// 16-bit out); bias never counted for the 8-arg aten::_scaled_mm (Q5).
TEST(GemmModels, ScaledMmFp8) {
  auto x = run(
      model_scaled_mm,
      make(
          "aten::_scaled_mm", "[[16,32],[32,64],[],[],[],[],[],[]]",
          R"(["c10::Float8_e4m3fn","c10::Float8_e4m3fn","float","float","","","Scalar","Scalar"])"));
  ASSERT_EQ(x.status, OpStatus::kOk);
  EXPECT_EQ(x.r.flops, 65536.0);
  EXPECT_EQ(x.r.bytes, 4608.0);
  EXPECT_EQ(x.r.compute_spec, "matrix_fp8");
  EXPECT_EQ(params_of(x.r)["bias"], "False");
}

TEST(GemmModels, ScaledMmThreeArgsCountsBias) {
  auto x =
      run(model_scaled_mm, make("trtllm::cublas_scaled_mm", "[[16,32],[32,64],[64]]",
                                R"(["c10::Float8_e4m3fn","c10::Float8_e4m3fn","c10::BFloat16"])"));
  ASSERT_EQ(x.status, OpStatus::kOk);
  EXPECT_EQ(x.r.flops, 65536.0 + 16 * 64);
  EXPECT_EQ(x.r.bytes, 4608.0 + 64);  // bias 1·N at A's bpe
}

// int8 (signed char): 1-byte operands, 16-bit out, and no precision (Q12).
TEST(GemmModels, Int8MatmulHasNoComputeSpec) {
  auto x = run(model_scaled_mm, make("bitsandbytes::int8_linear_matmul", "[[16,32],[32,64]]",
                                     R"(["signed char","signed char"])"));
  ASSERT_EQ(x.status, OpStatus::kOk);
  EXPECT_EQ(x.r.bytes, 4608.0);
  EXPECT_EQ(x.r.compute_spec, "");
}

TEST(GemmModels, ScaledMmRejectsUnsizedDtypeAndHasNoBytesForDouble) {
  EXPECT_EQ(
      run(model_scaled_mm, make("aten::_scaled_mm", "[[2,2],[2,2]]", R"(["bool","bool"])")).status,
      OpStatus::kFailed);  // the reference asserts
  auto x =
      run(model_scaled_mm, make("aten::_scaled_mm", "[[2,2],[2,2]]", R"(["double","double"])"));
  ASSERT_EQ(x.status, OpStatus::kOk);
  EXPECT_EQ(x.r.bytes, -1.0);  // 8-byte input: output size unknown
}

const char* kTeDims = "[[64,32],[],[],[],[],[48,32],[],[],[],[],[64,48],[],[],[],[],[],[],[],[]]";
const char* kTeConcrete = R"(["","","","","1","","","","","0","","","","","","","","",""])";

// transA: A = (M=64, K=32); transB off: N = B[0] = 48; no bias (C[14] = "").
// FLOPs 2·64·48·32 = 196608; bytes (64·32 + 32·48 + 64·48)·2 = 13312.
TEST(GemmModels, TeGemmTs) {
  auto x = run(
      model_te_gemm_ts,
      make(
          "tex_ts::te_gemm_ts", kTeDims,
          R"(["c10::BFloat16","","","","","c10::BFloat16","","","","","c10::BFloat16","","","","","","","","c10::BFloat16"])",
          nullptr, kTeConcrete));
  ASSERT_EQ(x.status, OpStatus::kOk);
  EXPECT_EQ(x.r.flops, 196608.0);
  EXPECT_EQ(x.r.bytes, 13312.0);
  EXPECT_EQ(params_of(x.r)["dtype_A_B"],
            "('c10::BFloat16', 'c10::BFloat16', 'c10::BFloat16', 'c10::BFloat16')");
}

// The bias dtype slot T[18] is read even without a bias: unsized there, bytes are unknown.
TEST(GemmModels, TeGemmTsUnsizedBiasDtypeLosesBytes) {
  auto x = run(
      model_te_gemm_ts,
      make(
          "tex_ts::te_gemm_ts", kTeDims,
          R"(["c10::BFloat16","","","","","c10::BFloat16","","","","","c10::BFloat16","","","","","","","",""])",
          nullptr, kTeConcrete));
  ASSERT_EQ(x.status, OpStatus::kOk);
  EXPECT_EQ(x.r.flops, 196608.0);
  EXPECT_EQ(x.r.bytes, -1.0);
}

// fp8 in, 16-bit out: 8·16 + 16·32 + 8·32·2 = 1152.
TEST(GemmModels, Tev2PseudoGemm) {
  auto x = run(model_tev2_pseudo_gemm, make("_Linear_yfwd_mm", "[[8,16],[16,32]]",
                                            R"(["c10::Float8_e4m3fnuz","c10::Float8_e4m3fnuz"])"));
  ASSERT_EQ(x.status, OpStatus::kOk);
  EXPECT_EQ(x.r.flops, 8192.0);
  EXPECT_EQ(x.r.bytes, 1152.0);
  EXPECT_EQ(x.r.compute_spec, "matrix_fp8");
  EXPECT_EQ(run(model_tev2_pseudo_gemm,
                make("_Linear_yfwd_mm", "[[8,16],[16,32]]", R"(["c10::BFloat16","float"])"))
                .status,
            OpStatus::kFailed);  // mixed dtypes raise
}

// A = (32, 64), W = (128, 32) -> M=32, K=64, N=128 (bf16 throughout).
// FLOPs 2·32·128·64 = 524288; bytes (32·64 + 64·128 + 32·128)·2 = 28672.
TEST(GemmModels, GemmWithDynamicQuant) {
  auto x = run(model_gemm_with_dynamic_quant,
               make("vllm::gemm_with_dynamic_quant", "[[32,64],[128,32],[128,2]]",
                    R"(["c10::BFloat16","c10::BFloat16","unsigned char"])"));
  ASSERT_EQ(x.status, OpStatus::kOk);
  auto p = params_of(x.r);
  EXPECT_EQ(p["M"], "32");
  EXPECT_EQ(p["K"], "64");
  EXPECT_EQ(p["N"], "128");
  EXPECT_EQ(x.r.flops, 524288.0);
  EXPECT_EQ(x.r.bytes, 28672.0);
  EXPECT_EQ(run(model_gemm_with_dynamic_quant,
                make("vllm::gemm_with_dynamic_quant", "[[32,64,1],[1]]", R"(["float","float"])"))
                .status,
            OpStatus::kFailed);  // no 2-D shapes
}

// A and W are found by scanning for 2-D shapes, but the dtypes stay T[0:2]: with a non-tensor
// first arg, T[0] is "" and the bytes are unknown (as in the reference).
TEST(GemmModels, GemmWithDynamicQuantScansForShapes) {
  auto x = run(model_gemm_with_dynamic_quant,
               make("vllm::gemm_with_dynamic_quant", "[[],[32,64],[128,32],[128,2]]",
                    R"(["","c10::BFloat16","unsigned char","unsigned char"])"));
  ASSERT_EQ(x.status, OpStatus::kOk);
  EXPECT_EQ(params_of(x.r)["M"], "32");
  EXPECT_EQ(params_of(x.r)["N"], "128");
  EXPECT_EQ(x.r.flops, 524288.0);
  EXPECT_EQ(x.r.bytes, -1.0);
}

// A (128, 64) fp8, B (256, 64), transB: M=128, K=64, N=256.
// bytes 128·64 + 64·256 + 128·256·2 = 90112.
TEST(GemmModels, HipblasltFp8) {
  const char* dims = "[[128,64],[],[256,64],[],[],[],[],[],[]]";
  const char* types =
      R"(["c10::Float8_e4m3fnuz","float","c10::Float8_e4m3fnuz","float","Scalar","Scalar","Scalar","Scalar","Scalar"])";
  auto x =
      run(model_hipblaslt_gemm_fp8, make("primus_turbo::hipblaslt_gemm_fp8", dims, types, nullptr,
                                         R"(["","","","","15","False","True","False","0"])"));
  ASSERT_EQ(x.status, OpStatus::kOk);
  auto p = params_of(x.r);
  EXPECT_EQ(p["M"], "128");
  EXPECT_EQ(p["N"], "256");
  EXPECT_EQ(p["K"], "64");
  EXPECT_EQ(p["dtype_scaleA"], "'float'");
  EXPECT_EQ(x.r.flops, 4194304.0);
  EXPECT_EQ(x.r.bytes, 90112.0);
  // transC swaps A and B and flips the flags: A' = (256, 64), transB' -> M=256, N=128.
  auto y =
      run(model_hipblaslt_gemm_fp8, make("primus_turbo::hipblaslt_gemm_fp8", dims, types, nullptr,
                                         R"(["","","","","15","False","True","True","0"])"));
  ASSERT_EQ(y.status, OpStatus::kOk);
  EXPECT_EQ(params_of(y.r)["M"], "256");
  EXPECT_EQ(params_of(y.r)["N"], "128");
}

// Packed K = 32 -> K = 64; ceil(64/32) = 2 scales per row, E8M0 scales 1 byte:
// bytes 128·32 + 256·32 + 128·2 + 256·2 + 2·128·256 = 78592; FLOPs 2·128·256·64 = 4194304.
TEST(GemmModels, HipblasltFp4AndAiterA4w4) {
  auto x = run(
      model_hipblaslt_gemm_fp4,
      make(
          "primus_turbo_cpp_extension::hipblaslt_gemm_fp4",
          "[[128,32],[128,2],[256,32],[256,2],[],[],[],[],[]]",
          R"(["c10::Float4_e2m1fn_x2","c10::Float8_e8m0fnu","c10::Float4_e2m1fn_x2","c10::Float8_e8m0fnu","Scalar","Scalar","Scalar","Scalar","Scalar"])",
          nullptr, R"(["","","","","15","False","True","False","0"])"));
  ASSERT_EQ(x.status, OpStatus::kOk);
  EXPECT_EQ(params_of(x.r)["K"], "64");
  EXPECT_EQ(x.r.flops, 4194304.0);
  EXPECT_EQ(x.r.bytes, 78592.0);
  EXPECT_EQ(x.r.compute_spec, "matrix_fp4");
  auto y = run(
      model_aiter_gemm_a4w4,
      make(
          "aiter::gemm_a4w4", "[[128,32],[256,32],[128,2],[256,2],[],[],[],[],[]]",
          R"(["c10::Float4_e2m1fn_x2","c10::Float4_e2m1fn_x2","c10::Float8_e8m0fnu","c10::Float8_e8m0fnu","","Scalar","Scalar","Scalar","Scalar"])"));
  ASSERT_EQ(y.status, OpStatus::kOk);
  EXPECT_EQ(y.r.flops, 4194304.0);
  EXPECT_EQ(y.r.bytes, 78592.0);
}

// ---- kernel names (§5.4) and TF32 --------------------------------------------------------------

TEST(GemmModels, TransposeFromTensileAndNvjetNames) {
  EXPECT_EQ(transpose_from_kernels({"Memset (Device)", "Cijk_Alik_Bljk_BBS_BH_MT256x128x64"}),
            "(True, False)");
  EXPECT_EQ(transpose_from_kernels({"Cijk_Ailk_Bjlk_S_B_MT16x16x128"}), "(False, True)");
  EXPECT_EQ(transpose_from_kernels({"Cijk_AIlk_Bljk_MT16x16x128"}), "");    // not C[a-z]{3}_A...
  EXPECT_EQ(transpose_from_kernels({"Cijk_Aijk_Bijk_x"}), "(None, None)");  // parses, no flags
  EXPECT_EQ(transpose_from_kernels({"nvjet_tst_128x8_64x12_2x1_v_bz_coopA_TN"}), "(True, False)");
  EXPECT_EQ(transpose_from_kernels({"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n"}), "");
  EXPECT_THROW(transpose_from_kernels({"nvjet_x_T"}), BadArgs);
}

TEST(GemmModels, TransposeParamIsAppendedAfterB) {
  auto x = run(model_mm, make("aten::mm", "[[4,8],[8,2]]", R"(["c10::BFloat16","c10::BFloat16"])",
                              nullptr, nullptr, {"Cijk_Alik_Bljk_B_MT16x16x128"}));
  ASSERT_EQ(x.status, OpStatus::kOk);
  EXPECT_EQ(keys_of(x.r).back(), "transpose");
  EXPECT_EQ(params_of(x.r)["transpose"], "(True, False)");
  auto y = run(model_mm, make("aten::mm", "[[4,8],[8,2]]", R"(["float","float"])", nullptr, nullptr,
                              {"nvjet_x_T"}));
  EXPECT_EQ(y.status, OpStatus::kFailed);  // the reference's IndexError
}

TEST(GemmModels, Fp32GemmOnTf32TensorCoresIsMatrixTf32) {
  auto spec = [](const char* dtype, std::vector<std::string> kernels) {
    const std::string types = std::string("[\"") + dtype + "\",\"" + dtype + "\"]";
    auto x = run(model_mm, make("aten::mm", "[[64,64],[64,64]]", types.c_str(), nullptr, nullptr,
                                std::move(kernels)));
    EXPECT_EQ(x.status, OpStatus::kOk);
    return x.r.compute_spec;
  };
  EXPECT_EQ(spec("float", {"sm80_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x16_stage4"}),
            "matrix_tf32");
  EXPECT_EQ(spec("float", {"void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_128x128_16x4_"
                           "tn_align4>(cutlass_80_tensorop_s1688gemm_128x128_16x4_tn_align4::"
                           "Params)"}),
            "matrix_tf32");
  EXPECT_EQ(spec("float", {"cutlass_80_simt_sgemm_128x32_8x5_nn_align1"}), "matrix_fp32");
  EXPECT_EQ(spec("float", {"cutlass_tensorop_s1688gemm_3xtf32_fast_accurate"}), "matrix_fp32");
  EXPECT_EQ(spec("float", {"Cijk_Ailk_Bljk_S_B_Bias_HA_S_SAV_MT16x16x128"}), "matrix_fp32");
  EXPECT_EQ(spec("float", {}), "matrix_fp32");
  // Only fp32 GEMMs are affected: a bf16 GEMM on an "s16816" (fp32-accumulate) kernel stays bf16.
  EXPECT_EQ(spec("c10::BFloat16", {"cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x6_tn"}),
            "matrix_bf16");
  EXPECT_EQ(spec("c10::BFloat16", {"sm80_xmma_gemm_f32f32_tf32f32_f32_nn_n"}), "matrix_bf16");
  EXPECT_FALSE(runs_on_tf32_tensor_cores({"cutlass_80_tensorop_bf16_s16816gemm_relu_bf16"}));
}

// ---- extension GEMMs (§5.2) --------------------------------------------------------------------

// A (32, 256) fp8, W (512, 256): FLOPs 2·32·512·256 = 8388608; bytes 32·256 + 512·256 + 32·512·2
// (bf16 out) = 172032; block sizes ceil(256/2) = 128 and ceil(512/4) = 128.
TEST(GemmModels, GemmA8w8Blockscale) {
  auto x = run(
      model_gemm_a8w8_blockscale,
      make("aiter::gemm_a8w8_blockscale_ck", "[[32,256],[512,256],[32,2],[4,2],[32,512]]",
           R"(["c10::Float8_e4m3fnuz","c10::Float8_e4m3fnuz","float","float","c10::BFloat16"])"));
  ASSERT_EQ(x.status, OpStatus::kOk);
  EXPECT_EQ(x.r.flops, 8388608.0);
  EXPECT_EQ(x.r.bytes, 172032.0);
  EXPECT_EQ(x.r.compute_spec, "matrix_fp8");
  EXPECT_EQ(keys_of(x.r),
            (std::vector<std::string>{"B", "M", "N", "K", "bias", "dtype_A_B", "quant_scheme",
                                      "quant_granularity", "block_k", "block_n", "scale_dtype",
                                      "output_shape", "output_dtype"}));
  auto p = params_of(x.r);
  EXPECT_EQ(p["block_k"], "128");
  EXPECT_EQ(p["block_n"], "128");
  EXPECT_EQ(p["scale_dtype"], "'float'");
  EXPECT_EQ(p["output_shape"], "(32, 512)");
}

// The asm variant takes the output dtype from T[2] only when it is sized (else T[0]).
TEST(GemmModels, GemmA16w16Variants) {
  auto asm_run = run(model_gemm_a16w16_asm,
                     make("aiter::_gemm_a16w16_asm", "[[8,16],[32,16],[8,32],[64]]",
                          R"(["c10::Half","c10::Half","unsigned int","unsigned int"])"));
  ASSERT_EQ(asm_run.status, OpStatus::kOk);
  EXPECT_EQ(params_of(asm_run.r)["dtype_A_B"], "('c10::Half', 'c10::Half', 'c10::Half')");
  EXPECT_EQ(asm_run.r.bytes, (8.0 * 16 + 16 * 32 + 8 * 32) * 2);
  auto atomic = run(
      model_gemm_a16w16_atomic,
      make("aiter::gemm_a16w16_atomic_", "[[8,16],[32,16],[]]", R"(["c10::Half","c10::Half",""])"));
  ASSERT_EQ(atomic.status, OpStatus::kOk);
  EXPECT_EQ(params_of(atomic.r)["dtype_A_B"], "('c10::Half', 'c10::Half', 'c10::bfloat16')");
  // gemm_a16w16 counts its bias D[2]: FLOPs + M·N, bytes + N·bpe.
  auto biased = run(model_gemm_a16w16, make("aiter::gemm_a16w16", "[[8,16],[32,16],[32]]",
                                            R"(["c10::Half","c10::Half","c10::Half"])"));
  ASSERT_EQ(biased.status, OpStatus::kOk);
  EXPECT_EQ(biased.r.flops, 2.0 * 8 * 32 * 16 + 8 * 32);
  EXPECT_EQ(biased.r.bytes, (8.0 * 16 + 16 * 32 + 8 * 32 + 32) * 2);
}

// ---- grouped GEMM (§5.1) -----------------------------------------------------------------------

// M=512, K=64, N=128, G=4: FLOPs 2·512·64·128 = 8388608; bytes (512·64 + 4·64·128)·2 +
// 512·128·2 = 262144.
TEST(GemmModels, GroupedGemmCompactLayouts) {
  for (const char* dims : {"[[512,64],[4,64,128],[4]]", "[[512,64],[4,128,64],[4]]"}) {
    auto x = run(model_grouped_gemm, make("primus_turbo::grouped_gemm", dims,
                                          R"(["c10::BFloat16","c10::BFloat16","long int"])"));
    ASSERT_EQ(x.status, OpStatus::kOk) << dims;
    EXPECT_EQ(x.r.category, "GroupedGEMM_fwd");
    EXPECT_EQ(x.r.bwd_category, "GroupedGEMM_bwd");
    EXPECT_EQ(x.r.sheet, "GroupedGEMM");
    EXPECT_EQ(x.r.bwd_status, OpStatus::kNotModelled);  // the reference's bwd raises
    EXPECT_EQ(x.r.flops, 8388608.0);
    EXPECT_EQ(x.r.bytes, 262144.0);
    EXPECT_EQ(x.r.compute_spec, "matrix_bf16");
    EXPECT_EQ(keys_of(x.r), (std::vector<std::string>{"M", "K", "N", "G", "bpe_in", "bpe_out"}));
    EXPECT_EQ(params_of(x.r)["bpe_in"], "2");
  }
}

// Zipped (M1=100, M2=200) x (64, 128): M=300, G=2; FLOPs 2·300·64·128 = 4915200;
// bytes (300·64 + 2·64·128)·2 + 300·128·2 = 147968.
TEST(GemmModels, GroupedGemmZipped) {
  auto x = run(model_grouped_gemm,
               make("primus_turbo_cpp_extension::grouped_gemm",
                    "[[[100,64],[200,64]],[[64,128],[64,128]]]", R"(["float","float"])"));
  ASSERT_EQ(x.status, OpStatus::kOk);
  EXPECT_EQ(params_of(x.r)["M"], "300");
  EXPECT_EQ(params_of(x.r)["G"], "2");
  EXPECT_EQ(x.r.flops, 4915200.0);
  EXPECT_EQ(x.r.bytes, 147968.0 * 2);  // fp32: every term doubles
  EXPECT_EQ(run(model_grouped_gemm,
                make("primus_turbo::grouped_gemm", "[[512,64],[4,32,16]]", R"(["float","float"])"))
                .status,
            OpStatus::kFailed);  // no W dimension equals K
  EXPECT_EQ(run(model_grouped_gemm,
                make("primus_turbo::grouped_gemm", "[[512,64],[4,64,128]]", R"(["bool","bool"])"))
                .status,
            OpStatus::kFailed);  // unsized dtype: the reference multiplies by None
}

// (100,32)@(32,128) + (200,64)@(64,128): FLOPs 819200 + 3276800 = 4096000; bytes
// (100·32 + 32·128)·2 + 100·128·2 + (200·64 + 64·128)·2 + 200·128·2 = 133376.
TEST(GemmModels, GroupedGemmVariableK) {
  auto x = run(model_grouped_gemm_variable_k, make("primus_turbo::grouped_gemm_variable_k",
                                                   "[[[100,32],[200,64]],[[32,128],[64,128]]]",
                                                   R"(["c10::BFloat16","c10::BFloat16"])"));
  ASSERT_EQ(x.status, OpStatus::kOk);
  EXPECT_EQ(x.r.flops, 4096000.0);
  EXPECT_EQ(x.r.bytes, 133376.0);
  auto p = params_of(x.r);
  EXPECT_EQ(p["M"], "300");
  EXPECT_EQ(p["K"], "32");
  EXPECT_EQ(p["N"], "128");
  EXPECT_EQ(p["group_pairs"], "[((100, 32), (32, 128)), ((200, 64), (64, 128))]");
  auto compact =
      run(model_grouped_gemm_variable_k, make("primus_turbo::grouped_gemm_variable_k_impl",
                                              "[[300,64],[300,128]]", R"(["c10::BFloat16"])"));
  ASSERT_EQ(compact.status, OpStatus::kOk);
  EXPECT_EQ(params_of(compact.r)["group_pairs"], "[((300, 64), (64, 128))]");
  EXPECT_EQ(compact.r.bytes, (300.0 * 64 + 64 * 128 + 300 * 128) * 2);
  auto unsized = run(model_grouped_gemm_variable_k, make("primus_turbo::grouped_gemm_variable_k",
                                                         "[[300,64],[300,128]]", R"(["bool"])"));
  ASSERT_EQ(unsized.status, OpStatus::kOk);  // this class returns None bytes instead of raising
  EXPECT_EQ(unsized.r.bytes, -1.0);
}

// ---- golden sheets -------------------------------------------------------------------------

ModelFn model_for(const std::string& op) {
  const std::map<std::string, ModelFn> table = {
      {"aten::mm", model_mm},
      {"aten::addmm", model_addmm},
      {"aten::bmm", model_bmm},
      {"aten::baddbmm", model_baddbmm},
      {"aten::_scaled_mm", model_scaled_mm},
      {"vllm::rocm_unquantized_gemm", model_rocm_unquantized_gemm},
      {"aiter::gemm_a16w16", model_gemm_a16w16},
      {"aiter::gemm_a16w16_atomic_", model_gemm_a16w16_atomic},
      {"aiter::_gemm_a16w16_asm", model_gemm_a16w16_asm},
  };
  auto it = table.find(op);
  return it == table.end() ? nullptr : it->second;
}

bool near(double expected, double actual) {
  return std::fabs(expected - actual) <= 1e-9 * std::max(std::fabs(expected), std::fabs(actual));
}

// A None param shows as an empty cell, or as the text "None" where pandas stringified it.
bool param_matches(const std::string& repr, const std::string& cell) {
  return traceprism::testing::param_cell(repr) == cell || (repr == "None" && cell == "None");
}

std::string where(const SheetRow& row) {
  return row.sheet.string() + " row " + std::to_string(row.line) + " (" + row.name + ")";
}

TEST(GemmGolden, EveryRowOfEveryGemmSheet) {
  const auto sheets = all_golden_sheets("GEMM.csv");
  if (sheets.empty())
    GTEST_SKIP() << "no golden GEMM.csv under " << traceprism::testing::shared_traces();
  std::size_t rows = 0, tf32_accepted = 0, cells = 0;
  for (const auto& sheet : sheets) {
    std::size_t sheet_rows = 0;
    for (const SheetRow& row : traceprism::testing::read_sheet_rows(sheet)) {
      SCOPED_TRACE(where(row));
      const ModelFn fn = model_for(row.name);
      ASSERT_NE(fn, nullptr) << "no model for " << row.name;
      const Outcome x = run(fn, row.call);
      ASSERT_EQ(x.status, OpStatus::kOk);
      expect_gemm(x);
      EXPECT_TRUE(near(std::stod(row.gflops), x.r.flops / 1e9)) << x.r.flops;
      if (row.data_moved_mb.empty()) {
        EXPECT_EQ(x.r.bytes, -1.0);
      } else {
        EXPECT_TRUE(near(std::stod(row.data_moved_mb), x.r.bytes / 1048576)) << x.r.bytes;
      }
      // The one accepted deviation: fp32 GEMMs on TF32 tensor cores (see gemm_models.hpp).
      if (x.r.compute_spec == "matrix_tf32" && row.compute_spec == "matrix_fp32" &&
          runs_on_tf32_tensor_cores(row.call.kernel_names())) {
        ++tf32_accepted;
      } else {
        EXPECT_EQ(x.r.compute_spec, row.compute_spec);
      }
      auto params = params_of(x.r);
      for (const auto& [key, cell] : row.params) {
        auto it = params.find(key);
        if (it == params.end()) {
          EXPECT_EQ(cell, "") << "param " << key << " missing";
        } else {
          EXPECT_TRUE(param_matches(it->second, cell))
              << "param " << key << ": " << it->second << " vs " << cell;
          params.erase(it);
          ++cells;
        }
      }
      EXPECT_TRUE(params.empty()) << "params the sheet has no column for: "
                                  << params.begin()->first;
      ++sheet_rows;
    }
    std::cout << "[gemm golden] " << sheet_rows << " rows: " << sheet.string() << "\n";
    rows += sheet_rows;
  }
  std::cout << "[gemm golden] " << rows << " rows in " << sheets.size() << " sheets; "
            << tf32_accepted << " accepted matrix_tf32 deviations; " << cells
            << " param cells compared\n";
  EXPECT_GT(rows, 0u);
}

TEST(GemmGolden, NoGroupedGemmSheetsToCheck) {
  // There is no GroupedGEMM golden sheet in the shared traces: the grouped models are checked by
  // the hand-computed cases above only. Fail loudly if one appears, so it gets wired in.
  if (!std::filesystem::is_directory(traceprism::testing::shared_traces()))
    GTEST_SKIP() << "no shared traces";
  for (const char* name : {"GroupedGEMM_fwd.csv", "GroupedGEMM_bwd.csv", "GroupedGEMM.csv"})
    EXPECT_TRUE(all_golden_sheets(name).empty()) << name << " appeared: check it here";
}

}  // namespace
}  // namespace traceprism::plugins::gemm
