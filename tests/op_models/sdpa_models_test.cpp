// The attention op models (plugins/sdpa) against the perf-model spec (§7, §15) and every row of
// the reference's SDPA sheets.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <map>
#include <string>

#include "sdpa/sdpa_models.hpp"
#include "sheet_rows.hpp"

namespace {

using traceprism::OpCall;
using traceprism::OpModelResult;
using traceprism::OpStatus;
namespace sdpa = traceprism::plugins::sdpa;

using ModelFn = void (*)(const OpCall&, OpModelResult&);

OpStatus run(ModelFn fn, const OpCall& call, OpModelResult& r) {
  return traceprism::run_op_model_guarded(fn, call, r);
}

std::string param(const OpModelResult& r, const std::string& key) {
  for (const auto& p : r.params)
    if (p.key == key) return p.repr;
  return "<missing " + key + ">";
}

std::vector<std::string> param_keys(const OpModelResult& r) {
  std::vector<std::string> keys;
  for (const auto& p : r.params) keys.push_back(p.key);
  return keys;
}

const std::vector<std::string> kShapeKeys = {"B", "N_Q", "H_Q", "N_KV", "H_KV", "d_h_qk", "d_h_v"};

std::vector<std::string> with_shape_keys(const std::vector<std::string>& rest) {
  std::vector<std::string> keys = kShapeKeys;
  keys.insert(keys.end(), rest.begin(), rest.end());
  return keys;
}

// ---- §15 worked example: aten::_scaled_dot_product_flash_attention (Qwen, causal) ------------

TEST(SdpaModels, AtenFlashCausalWorkedExample) {
  const OpCall call(
      "aten::_scaled_dot_product_flash_attention",
      "[[16,16,559,64],[16,16,559,64],[16,16,559,64],[],[],[],[]]",
      R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","Scalar","Scalar","Scalar","Scalar"])",
      std::nullopt, R"(["","","","0.","True","False","0.125"])");
  OpModelResult r;
  ASSERT_EQ(run(sdpa::model_aten_sdpa_flash, call, r), OpStatus::kOk);
  EXPECT_EQ(r.category, "SDPA_fwd");
  EXPECT_EQ(r.bwd_category, "SDPA_bwd");
  EXPECT_EQ(r.sheet, "SDPA");
  EXPECT_EQ(r.compute_spec, "matrix_bf16");
  // §15: 16·16·2·559·559·64·2 / 2 and 4·(16·559·16·64)·2 bytes (bpe 2).
  EXPECT_EQ(r.flops, 10239377408.0);
  EXPECT_EQ(r.bytes, 73269248.0);
  EXPECT_EQ(param_keys(r), with_shape_keys({"dropout", "causal", "flash_impl", "dtype_A_B"}));
  EXPECT_EQ(param(r, "dropout"), "0.0");
  EXPECT_EQ(param(r, "causal"), "True");
  EXPECT_EQ(param(r, "flash_impl"), "True");
  EXPECT_EQ(param(r, "dtype_A_B"), "('c10::BFloat16', 'c10::BFloat16')");
  // Backward (by hand, §7.1): MHA + flash = 2.5 x fwd = 5 GEMMs of 10,239,377,408 halved;
  // bytes (2Q + 2K + 2V + dO) = 7 · 9,158,656 · 2.
  ASSERT_EQ(r.bwd_status, OpStatus::kOk);
  EXPECT_EQ(r.flops_bwd, 25598443520.0);
  EXPECT_EQ(r.flops_bwd, 2.5 * r.flops);
  EXPECT_EQ(r.bytes_bwd, 128221184.0);
}

TEST(SdpaModels, AtenFlashNonCausalWorkedExample) {
  // §15 Falconsai: B=4, H=12, N=197, d=64, not causal.
  const OpCall call(
      "aten::_scaled_dot_product_flash_attention",
      "[[4,12,197,64],[4,12,197,64],[4,12,197,64],[],[],[],[]]",
      R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","Scalar","Scalar","Scalar","Scalar"])",
      std::nullopt, R"(["","","","0.","False","False","0.125"])");
  OpModelResult r;
  ASSERT_EQ(run(sdpa::model_aten_sdpa_flash, call, r), OpStatus::kOk);
  EXPECT_EQ(r.flops, 476884992.0);
  EXPECT_EQ(r.bytes, 4841472.0);
  EXPECT_EQ(param(r, "causal"), "False");
}

TEST(SdpaModels, AtenEfficientReadsSlotsFiveAndSix) {
  // (q, k, v, attn_bias, compute_log_sumexp, dropout_p, is_causal, scale); hand-computed:
  // B=2, H=4, N=32, d=16: fwd 2·4·(2·32·32·16) · 2 = 524,288; flash_impl false, so the bwd
  // has no recompute: 4 GEMMs of 262,144.
  const OpCall call("aten::_scaled_dot_product_efficient_attention",
                    "[[2,4,32,16],[2,4,32,16],[2,4,32,16],[],[],[],[],[]]",
                    R"(["float","float","float","","Scalar","Scalar","Scalar","Scalar"])",
                    std::nullopt, R"(["","","","","True","0.1","None",""])");
  OpModelResult r;
  ASSERT_EQ(run(sdpa::model_aten_sdpa_efficient, call, r), OpStatus::kOk);
  EXPECT_EQ(param(r, "dropout"), "0.1");
  EXPECT_EQ(param(r, "causal"), "False");  // "None" reads as not causal
  EXPECT_EQ(param(r, "flash_impl"), "False");
  EXPECT_EQ(r.compute_spec, "matrix_fp32");
  EXPECT_EQ(r.flops, 524288.0);
  // Q6: the bytes use 2 bytes per element even for fp32.
  EXPECT_EQ(r.bytes, 4.0 * 2 * 32 * 4 * 16 * 2);
  EXPECT_EQ(r.flops_bwd, 4.0 * 262144);
}

TEST(SdpaModels, AtenCudnnEmptyDropoutIsNone) {
  const OpCall call(
      "aten::_scaled_dot_product_cudnn_attention",
      "[[1,2,8,8],[1,2,8,8],[1,2,8,8],[],[],[],[],[],[]]",
      R"(["c10::Half","c10::Half","c10::Half","","Scalar","Scalar","Scalar","Scalar","Scalar"])",
      std::nullopt, R"(["","","","","False","","TRUE","False",""])");
  OpModelResult r;
  ASSERT_EQ(run(sdpa::model_aten_sdpa_cudnn, call, r), OpStatus::kOk);
  EXPECT_EQ(param(r, "dropout"), "None");
  EXPECT_EQ(param(r, "causal"), "True");  // case-insensitive
  EXPECT_EQ(r.compute_spec, "matrix_fp16");
}

TEST(SdpaModels, CausalWithDifferentLengthsFails) {
  // §7.1: causal requires N_Q == N_KV (ValueError: the row fails, the category stays).
  const OpCall call(
      "aten::_scaled_dot_product_flash_attention", "[[1,2,16,8],[1,2,32,8],[1,2,32,8],[],[],[],[]]",
      R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","Scalar","Scalar","Scalar","Scalar"])",
      std::nullopt, R"(["","","","0.","True","False",""])");
  OpModelResult r;
  EXPECT_EQ(run(sdpa::model_aten_sdpa_flash, call, r), OpStatus::kFailed);
  EXPECT_EQ(r.category, "SDPA_fwd");
  EXPECT_EQ(r.bwd_status, OpStatus::kFailed);
}

TEST(SdpaModels, MismatchedShapesFail) {
  const OpCall different_batch("aten::_scaled_dot_product_flash_attention",
                               "[[2,2,16,8],[1,2,16,8],[1,2,16,8],[],[],[],[]]",
                               R"(["float","float","float","","","",""])", std::nullopt,
                               R"(["","","","0.","False","False",""])");
  OpModelResult r;
  EXPECT_EQ(run(sdpa::model_aten_sdpa_flash, different_batch, r), OpStatus::kFailed);
  EXPECT_EQ(r.category, "SDPA_fwd");
  const OpCall no_concrete("aten::_scaled_dot_product_flash_attention",
                           "[[1,2,16,8],[1,2,16,8],[1,2,16,8],[],[],[],[]]",
                           R"(["float","float","float","","","",""])", std::nullopt, std::nullopt);
  OpModelResult r2;
  EXPECT_EQ(run(sdpa::model_aten_sdpa_flash, no_concrete, r2), OpStatus::kFailed);
}

// ---- Dao flash_attn ----------------------------------------------------------------------------

const char* kGqaDims = "[[2,128,8,64],[2,128,2,64],[2,128,2,64],[],[],[],[],[]]";
const char* kGqaStrides = "[[65536,512,64,1],[16384,128,64,1],[16384,128,64,1],[],[],[],[],[]]";

TEST(SdpaModels, FlashAttnForwardGqaByHand) {
  // (B, N, H, d) tensors; GQA with H_Q=8, H_KV=2. By hand (§7.1):
  // fwd = 2·8·(2·128·128·64) · 2 = 67,108,864; bytes (Q 131,072 + K 32,768 + V 32,768 +
  // O 131,072) · 2 = 655,360; bwd = 5 · 33,554,432 + 2 · (2·128·64·(8//2 − 1)) = 167,870,464,
  // bwd bytes (2Q + 2K + 2V + dO) · 2 = 1,048,576.
  const OpCall call(
      "FlashAttnFunc", kGqaDims,
      R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","Scalar","Scalar","Scalar","",""])",
      kGqaStrides, R"(["","","","0.0","0.125","False","",""])");
  OpModelResult r;
  ASSERT_EQ(run(sdpa::model_flash_attn_forward, call, r), OpStatus::kOk);
  EXPECT_EQ(r.category, "SDPA_fwd");
  EXPECT_EQ(param_keys(r), with_shape_keys({"q_stride", "k_stride", "v_stride", "dropout", "causal",
                                            "flash_impl", "dtype_A_B"}));
  EXPECT_EQ(param(r, "N_Q"), "128");
  EXPECT_EQ(param(r, "H_Q"), "8");
  EXPECT_EQ(param(r, "H_KV"), "2");
  EXPECT_EQ(param(r, "q_stride"), "(65536, 512, 64, 1)");
  EXPECT_EQ(param(r, "k_stride"), "(16384, 128, 64, 1)");
  EXPECT_EQ(r.flops, 67108864.0);
  EXPECT_EQ(r.bytes, 655360.0);
  EXPECT_EQ(r.flops_bwd, 167870464.0);
  EXPECT_EQ(r.bytes_bwd, 1048576.0);
  EXPECT_EQ(r.compute_spec, "matrix_bf16");
}

TEST(SdpaModels, FlashAttnForwardNeedsStridesAndBoolCausal) {
  // The Dao parser reads the strides without a fallback and eval()s the causal flag.
  const OpCall no_strides("flash_attn::_flash_attn_forward", kGqaDims,
                          R"(["float","float","float","","","","",""])", std::nullopt,
                          R"(["","","","0.0","0.125","False","",""])");
  OpModelResult r;
  EXPECT_EQ(run(sdpa::model_flash_attn_forward, no_strides, r), OpStatus::kFailed);
  EXPECT_EQ(r.category, "SDPA_fwd");
  const OpCall empty_causal("flash_attn::_flash_attn_forward", kGqaDims,
                            R"(["float","float","float","","","","",""])", kGqaStrides,
                            R"(["","","","0.0","0.125","","",""])");
  EXPECT_EQ(run(sdpa::model_flash_attn_forward, empty_causal, r), OpStatus::kFailed);
}

TEST(SdpaModels, FlashAttnBackwardDefaultsToCausal) {
  // Q8: C[10] missing -> causal. (dout, q, k, v, ...), B=1, N=256, H=4, d=32. By hand:
  // 5 GEMMs of 1·4·2·256·256·32 = 16,777,216, halved: 41,943,040; bytes 7 · 32,768 · bpe.
  const char* dims = "[[1,256,4,32],[1,256,4,32],[1,256,4,32],[1,256,4,32],[1,256,4,32],[]]";
  const char* strides =
      "[[32768,128,32,1],[32768,128,32,1],[32768,128,32,1],[32768,128,32,1],[32768,128,32,1],[]]";
  const OpCall bf16(
      "flash_attn::_flash_attn_backward", dims,
      R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","c10::BFloat16","c10::BFloat16","float"])",
      strides, R"(["","","","","",""])");
  OpModelResult r;
  ASSERT_EQ(run(sdpa::model_flash_attn_backward, bf16, r), OpStatus::kOk);
  EXPECT_EQ(r.category, "SDPA_bwd");
  EXPECT_EQ(r.bwd_category, "");
  EXPECT_EQ(r.sheet, "SDPA");
  EXPECT_EQ(param(r, "causal"), "True");
  EXPECT_EQ(param(r, "dropout"), "0.0");
  EXPECT_EQ(r.flops, 41943040.0);
  EXPECT_EQ(r.bytes, 458752.0);
  // This op costs its bytes with the real dtype (unlike the Q6 default of 2).
  const OpCall fp32("flash_attn::_flash_attn_backward", dims,
                    R"(["float","float","float","float","float","float"])", strides, std::nullopt);
  OpModelResult r32;
  ASSERT_EQ(run(sdpa::model_flash_attn_backward, fp32, r32), OpStatus::kOk);
  EXPECT_EQ(r32.bytes, 917504.0);
  // An unsized dtype makes the reference's bytes product fail.
  const OpCall unsized("flash_attn::_flash_attn_backward", dims,
                       R"(["bool","bool","bool","bool","bool","bool"])", strides, std::nullopt);
  OpModelResult rb;
  EXPECT_EQ(run(sdpa::model_flash_attn_backward, unsized, rb), OpStatus::kFailed);
  EXPECT_EQ(rb.category, "SDPA_bwd");
}

// ---- varlen (§7.3) -----------------------------------------------------------------------------

OpCall varlen_forward_call(const char* cu_k_dims, const char* causal) {
  const std::string dims =
      std::string("[[300,2,16],[300,2,16],[300,2,16],[4],") + cu_k_dims + ",[],[],[],[],[]]";
  const std::string concrete =
      std::string(R"(["","","","","","200","200","0.0","0.25",")") + causal + "\"]";
  return OpCall(
      "flash_attn::_flash_attn_varlen_forward", dims,
      R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","int","int","Scalar","Scalar","Scalar","Scalar","Scalar"])",
      "[[32,16,1],[32,16,1],[32,16,1],[1],[1],[],[],[],[],[]]", concrete);
}

TEST(SdpaModels, VarlenForwardLowerBound) {
  // T=300 tokens in 3 sequences, max 200: one of 200 + 2 of (300−200)//2 = 50. By hand:
  // f(200) = 1·2·(2·200·200·16) · 2 = 5,120,000; f(50) = 320,000; 5,120,000 + 2·320,000.
  OpModelResult r;
  ASSERT_EQ(run(sdpa::model_flash_attn_varlen_forward, varlen_forward_call("[4]", "False"), r),
            OpStatus::kOk);
  EXPECT_EQ(r.flops, 5760000.0);
  EXPECT_EQ(r.bytes, 4.0 * 300 * 2 * 16 * 2);
  EXPECT_EQ(param(r, "num_seqs_q"), "3");
  EXPECT_EQ(param(r, "num_seqs_kv"), "3");
  EXPECT_EQ(param(r, "max_seqlen_q"), "200.0");
  EXPECT_EQ(param(r, "B"), "1");
  EXPECT_EQ(param(r, "N_Q"), "300");
  EXPECT_EQ(param_keys(r).back(), "max_seqlen_kv");
  // The linked backward uses the base formula over the total tokens (no varlen split):
  // 5 GEMMs of 1·2·2·300·300·16 = 5,760,000.
  EXPECT_EQ(r.flops_bwd, 5 * 5760000.0);
}

TEST(SdpaModels, VarlenForwardCausalAndDivisionByZero) {
  OpModelResult r;
  ASSERT_EQ(run(sdpa::model_flash_attn_varlen_forward, varlen_forward_call("[4]", "True"), r),
            OpStatus::kOk);
  EXPECT_EQ(r.flops, 2560000.0 + 2 * 160000.0);
  // One kv sequence but three q sequences: (N_KV − max_k) // 0 raises in the reference.
  OpModelResult r0;
  EXPECT_EQ(run(sdpa::model_flash_attn_varlen_forward, varlen_forward_call("[2]", "False"), r0),
            OpStatus::kFailed);
  EXPECT_EQ(r0.category, "SDPA_fwd");
}

TEST(SdpaModels, VarlenBackwardUsesBackwardFlops) {
  // (dout, q, k, v, out, lse, dq, dk, dv, cu_q, cu_k, max_q, max_k, dropout, scale, causal):
  // 2 sequences of 64 (max 64): f_bwd(64) + 1·f_bwd(64), f_bwd = 5 · 1·1·2·64·64·8.
  const OpCall call(
      "flash_attn::_flash_attn_varlen_backward",
      "[[128,1,8],[128,1,8],[128,1,8],[128,1,8],[128,1,8],[1,128],[],[],[],[3],[3],[],[],[],[],[]]",
      R"(["float","float","float","float","float","float","","","","int","int","Scalar","Scalar","Scalar","Scalar","Scalar"])",
      "[[8,8,1],[8,8,1],[8,8,1],[8,8,1],[8,8,1],[128,1],[],[],[],[1],[1],[],[],[],[],[]]",
      R"(["","","","","","","","","","","","64","64","0.0","0.35","False"])");
  OpModelResult r;
  ASSERT_EQ(run(sdpa::model_flash_attn_varlen_backward, call, r), OpStatus::kOk);
  EXPECT_EQ(r.category, "SDPA_bwd");
  EXPECT_EQ(r.flops, 2 * 5 * 65536.0);
  EXPECT_EQ(r.bytes, 7.0 * 128 * 8 * 2);
  EXPECT_EQ(r.compute_spec, "matrix_fp32");
}

// ---- aiter, flash_attn_3, Evoformer
// --------------------------------------------------------------

TEST(SdpaModels, AiterOpsHaveNoDtypeAndNoComputeSpec) {
  // aiter::mha_fwd(q, k, v, dropout_p, scale, is_causal, ...), (B, N, H, d).
  const OpCall fwd(
      "aiter::mha_fwd", "[[1,64,4,32],[1,64,4,32],[1,64,4,32],[],[],[]]",
      R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","Scalar","Scalar","Scalar"])",
      std::nullopt, R"(["","","","","0.1","true"])");
  OpModelResult r;
  ASSERT_EQ(run(sdpa::model_aiter_mha_fwd, fwd, r), OpStatus::kOk);
  EXPECT_EQ(r.compute_spec, "");
  EXPECT_EQ(param_keys(r), with_shape_keys({"dropout", "causal", "flash_impl"}));
  EXPECT_EQ(param(r, "dropout"), "None");
  EXPECT_EQ(param(r, "causal"), "True");
  // 1·4·2·64·64·32 · 2 / 2 (causal)
  EXPECT_EQ(r.flops, 1048576.0);
  EXPECT_EQ(r.bwd_status, OpStatus::kOk);

  // aiter::mha_bwd(dout, q, k, v, out, lse, dropout_p, scale, is_causal): flops_bwd, bytes_bwd(2).
  const OpCall bwd(
      "aiter::mha_bwd",
      "[[1,64,4,32],[1,64,4,32],[1,64,4,32],[1,64,4,32],[1,64,4,32],[1,4,64],[],[],[]]",
      R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","c10::BFloat16","c10::BFloat16","float","Scalar","Scalar","Scalar"])",
      std::nullopt, R"(["","","","","","","0.0","0.17","False"])");
  OpModelResult rb;
  ASSERT_EQ(run(sdpa::model_aiter_mha_bwd, bwd, rb), OpStatus::kOk);
  EXPECT_EQ(rb.category, "SDPA_bwd");
  EXPECT_EQ(rb.flops, 5 * 1048576.0);
  EXPECT_EQ(rb.bytes, 7.0 * 64 * 4 * 32 * 2);
}

TEST(SdpaModels, FlashAttn3ReadsCausalAtSlot24) {
  std::string dims = "[[2,16,2,8],[2,16,2,8],[2,16,2,8]";
  std::string types = R"(["float","float","float")";
  std::string concrete = R"(["","","")";
  for (int i = 3; i < 25; ++i) {
    dims += ",[]";
    types += R"(,"")";
    concrete += i == 24 ? R"(,"True")" : R"(,"")";
  }
  const OpCall call("flash_attn_3::fwd", dims + "]", types + "]", std::nullopt, concrete + "]");
  OpModelResult r;
  ASSERT_EQ(run(sdpa::model_flash_attn_v3_forward, call, r), OpStatus::kOk);
  EXPECT_EQ(param(r, "dropout"), "0.0");
  EXPECT_EQ(param(r, "causal"), "True");
  EXPECT_EQ(r.flops, 2.0 * 2 * 2 * 16 * 16 * 8 * 2 / 2);
  // Fewer than 25 Concrete Inputs: IndexError in the reference.
  const OpCall short_call("flash_attn_3::fwd", "[[2,16,2,8],[2,16,2,8],[2,16,2,8]]",
                          R"(["float","float","float"])", std::nullopt, R"(["","",""])");
  OpModelResult rs;
  EXPECT_EQ(run(sdpa::model_flash_attn_v3_forward, short_call, rs), OpStatus::kFailed);
}

TEST(SdpaModels, EvoformerFoldsSequencesIntoBatch) {
  // Q = (B=1, N_seq=4, N_res=64, H=8, D=32): B' = 4; by hand fwd = 4·8·2·64·64·32 · 2 =
  // 16,777,216, bytes 4 · 65,536 · 2, bwd (not flash) 4 · 8,388,608.
  const OpCall call(
      "EvoformerAttention",
      "[[1,4,64,8,32],[1,4,64,8,32],[1,4,64,8,32],[1,4,1,1,64],[1,1,8,64,64]]",
      R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","c10::BFloat16","c10::BFloat16"])",
      std::nullopt, std::nullopt);
  OpModelResult r;
  ASSERT_EQ(run(sdpa::model_evoformer_attention, call, r), OpStatus::kOk);
  EXPECT_EQ(param_keys(r), with_shape_keys({"causal", "flash_impl", "dtype_A_B"}));
  EXPECT_EQ(param(r, "B"), "4");
  EXPECT_EQ(param(r, "dtype_A_B"), "['c10::BFloat16']");
  EXPECT_EQ(r.flops, 16777216.0);
  EXPECT_EQ(r.bytes, 524288.0);
  EXPECT_EQ(r.flops_bwd, 33554432.0);
  EXPECT_EQ(r.compute_spec, "matrix_bf16");
  const OpCall no_types("EvoformerAttention", "[[1,4,64,8,32],[1,4,64,8,32],[1,4,64,8,32]]",
                        std::nullopt, std::nullopt, std::nullopt);
  OpModelResult rn;
  ASSERT_EQ(run(sdpa::model_evoformer_attention, no_types, rn), OpStatus::kOk);
  EXPECT_EQ(param(rn, "dtype_A_B"), "[None]");
  EXPECT_EQ(rn.compute_spec, "");
}

// ---- category-only and inference attention
// -------------------------------------------------------

TEST(SdpaModels, CategoryOnlyNames) {
  const OpCall call("FlashAttnFuncBackward", std::nullopt, std::nullopt, std::nullopt,
                    std::nullopt);
  OpModelResult bwd;
  ASSERT_EQ(run(sdpa::model_sdpa_bwd_category_only, call, bwd), OpStatus::kOk);
  EXPECT_EQ(bwd.category, "SDPA_bwd");
  EXPECT_FALSE(bwd.has_model);
  OpModelResult fwd;
  ASSERT_EQ(run(sdpa::model_sdpa_fwd_category_only, call, fwd), OpStatus::kOk);
  EXPECT_EQ(fwd.category, "SDPA_fwd");
  EXPECT_FALSE(fwd.has_model);
  OpModelResult cache;
  ASSERT_EQ(run(sdpa::model_kv_cache_write, call, cache), OpStatus::kOk);
  EXPECT_EQ(cache.category, "InferenceAttention");
  EXPECT_FALSE(cache.has_model);
}

TEST(SdpaModels, InferenceAttentionFailsWithoutAnnotation) {
  // Args of a vllm_decode_full InferenceAttention_fwd row: the reference needed the iteration
  // annotation to cost it; without one the row fails but keeps its category.
  const OpCall call(
      "vllm::unified_attention_with_output",
      "[[32,64,64],[32,8,64],[32,8,64],[32,64,64],[],[],[],[0]]",
      R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","c10::BFloat16","","","","c10::BFloat16"])",
      std::nullopt, R"(["","","","","","","",""])");
  OpModelResult r;
  EXPECT_EQ(run(sdpa::model_inference_attention, call, r), OpStatus::kFailed);
  EXPECT_EQ(r.category, "InferenceAttention");
  EXPECT_EQ(r.sheet, "InferenceAttention");
  EXPECT_LT(r.flops, 0);
}

// Inference-mode spec §6's checks (GFLOPS / MiB), with the step sums the host binds.
OpModelResult inference_attention(const std::string& name, const std::string& dims,
                                  const OpCall::StepStats& stats) {
  OpCall call(name, dims, R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16"])", std::nullopt,
              R"(["","",""])");
  call.set_step_stats(stats);
  OpModelResult r;
  EXPECT_EQ(run(sdpa::model_inference_attention, call, r), OpStatus::kOk);
  return r;
}

TEST(SdpaModels, InferenceAttentionVllmDecodeAndPrefillDecode) {
  const std::string dims = "[[32,64,64],[32,8,64],[32,8,64]]";
  // vllm_decode_full: 32 decode requests over 55 086 keys.
  OpModelResult r = inference_attention("vllm::unified_attention_with_output", dims,
                                        {0, 0, 0, 0, 32, 55086, 32, 55086});
  EXPECT_DOUBLE_EQ(r.flops / 1e9, 0.902529024);       // 64·2·55086·128
  EXPECT_DOUBLE_EQ(r.bytes / 1048576, 108.08984375);  // [32·9216·2 + 55054·2048] / 2^20
  EXPECT_EQ(r.compute_spec, "matrix_bf16");
  EXPECT_EQ(param(r, "g_sk"), "55086");
  EXPECT_EQ(param(r, "H_V"), "8");
  // vllm_prefilldecode_piecewise: 8155 prefill + 37 decode tokens.
  r = inference_attention("vllm::unified_attention_with_output", "[[8192,64,64],[8192,8,64]]",
                          {8155, 8430, 7475785, 7671310, 37, 34489, 37, 34489});
  EXPECT_DOUBLE_EQ(r.flops / 1e9, 65.010180096);  // 64·128·(2·7671310 − 7475785 + 2·34489)
  EXPECT_DOUBLE_EQ(r.bytes / 1048576, 211.826171875);
}

TEST(SdpaModels, InferenceAttentionBatchPrefillTakesDvFromV) {
  // SGLang eager prefill: 15 x 1024 tokens, H_Q 32, H_KV 8, d 128.
  const OpModelResult r = inference_attention("aiter::mha_batch_prefill",
                                              "[[15360,32,128],[15360,8,128],[15360,8,128]]",
                                              {15360, 15360, 15728640, 15728640, 0, 0, 0, 0});
  EXPECT_DOUBLE_EQ(r.flops / 1e9, 128.84901888);  // 32·15728640·256
  EXPECT_DOUBLE_EQ(r.bytes / 1048576, 300.0);
}

TEST(SdpaModels, InferenceAttentionSglangRaggedLayout) {
  // sglang_decode: 32 decode requests over 32 785 keys; q in D[2], k and v cache in D[3], D[4].
  OpCall call(
      "sglang_profiler::attention_paged_attention_ragged",
      "[[32,4096],[32,1024],[32,32,128],[100000,8,128],[100000,8,128]]",
      R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","c10::BFloat16","c10::BFloat16"])",
      std::nullopt, R"(["","","","",""])");
  call.set_step_stats(OpCall::StepStats{0, 0, 0, 0, 32, 32785, 32, 32785});
  OpModelResult r;
  ASSERT_EQ(run(sdpa::model_inference_attention, call, r), OpStatus::kOk);
  EXPECT_DOUBLE_EQ(r.flops / 1e9, 0.53714944);  // 32·2·32785·256
  EXPECT_DOUBLE_EQ(r.bytes / 1048576, 128.56640625);
  EXPECT_EQ(param(r, "N_KV"), "32785");
  EXPECT_EQ(param(r, "dtype_KV"), "<missing dtype_KV>");
}

TEST(SdpaModels, SglangStoreCacheMovesFourTimesItsTokens) {
  // sglang_decode's row: (32, 1024) -> 0.25 MiB, no FLOPs (spec §6).
  const OpCall call(
      "sglang::store_cache", "[[32,1024],[32,1024],[835874,1024],[835874,1024],[32],[],[]]",
      R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","c10::BFloat16","long int","Scalar","Scalar"])",
      std::nullopt, R"(["","","","","","",""])");
  OpModelResult r;
  ASSERT_EQ(run(sdpa::model_store_cache, call, r), OpStatus::kOk);
  EXPECT_EQ(r.category, "InferenceAttention");
  EXPECT_EQ(r.flops, 0);
  EXPECT_DOUBLE_EQ(r.bytes / 1048576, 0.25);
  EXPECT_EQ(param(r, "op_shape"), "(32, 1024)");
  EXPECT_EQ(r.compute_spec, "vector_bf16");
}

TEST(SdpaModels, InferenceAttentionWithoutQueryTokensOrLayoutFails) {
  OpCall call("vllm::unified_attention_with_output", "[[32,64,64],[32,8,64]]",
              R"(["c10::BFloat16","c10::BFloat16"])", std::nullopt, R"(["",""])");
  call.set_step_stats(OpCall::StepStats{});  // c_sq = g_sq = 0: "not implemented" (spec §6)
  OpModelResult r;
  EXPECT_EQ(run(sdpa::model_inference_attention, call, r), OpStatus::kFailed);
}

TEST(SdpaModels, NameTablesAreNullTerminatedAndDisjoint) {
  const char* const* tables[] = {sdpa::kAtenSdpaFlashNames,
                                 sdpa::kAtenSdpaEfficientNames,
                                 sdpa::kAtenSdpaCudnnNames,
                                 sdpa::kFlashAttnForwardNames,
                                 sdpa::kFlashAttnBackwardNames,
                                 sdpa::kFlashAttnVarlenForwardNames,
                                 sdpa::kFlashAttnVarlenBackwardNames,
                                 sdpa::kAiterFlashAttnForwardNames,
                                 sdpa::kAiterFlashAttnBackwardNames,
                                 sdpa::kAiterFmhaV3ForwardNames,
                                 sdpa::kAiterFmhaV3BackwardNames,
                                 sdpa::kAiterMhaFwdNames,
                                 sdpa::kAiterMhaBwdNames,
                                 sdpa::kFlashAttnV3ForwardNames,
                                 sdpa::kEvoformerAttentionNames,
                                 sdpa::kSdpaFwdCategoryOnlyNames,
                                 sdpa::kSdpaBwdCategoryOnlyNames,
                                 sdpa::kInferenceAttentionNames,
                                 sdpa::kStoreCacheNames,
                                 sdpa::kKvCacheWriteNames};
  std::map<std::string, int> seen;
  for (const auto* table : tables)
    for (const char* const* name = table; *name; ++name) ++seen[*name];
  for (const auto& [name, count] : seen) EXPECT_EQ(count, 1) << name;
  EXPECT_EQ(seen.size(), 42u);
}

// ---- every row of the reference's SDPA sheets -------------------------------------------------

const std::map<std::string, ModelFn>& model_by_op_name() {
  static const std::map<std::string, ModelFn> models = [] {
    std::map<std::string, ModelFn> m;
    const std::pair<const char* const*, ModelFn> tables[] = {
        {sdpa::kAtenSdpaFlashNames, sdpa::model_aten_sdpa_flash},
        {sdpa::kAtenSdpaEfficientNames, sdpa::model_aten_sdpa_efficient},
        {sdpa::kAtenSdpaCudnnNames, sdpa::model_aten_sdpa_cudnn},
        {sdpa::kFlashAttnForwardNames, sdpa::model_flash_attn_forward},
        {sdpa::kFlashAttnBackwardNames, sdpa::model_flash_attn_backward},
        {sdpa::kFlashAttnVarlenForwardNames, sdpa::model_flash_attn_varlen_forward},
        {sdpa::kFlashAttnVarlenBackwardNames, sdpa::model_flash_attn_varlen_backward},
        {sdpa::kAiterFlashAttnForwardNames, sdpa::model_aiter_flash_attn_forward},
        {sdpa::kAiterFlashAttnBackwardNames, sdpa::model_aiter_flash_attn_backward},
        {sdpa::kAiterFmhaV3ForwardNames, sdpa::model_aiter_fmha_v3_forward},
        {sdpa::kAiterFmhaV3BackwardNames, sdpa::model_aiter_fmha_v3_backward},
        {sdpa::kAiterMhaFwdNames, sdpa::model_aiter_mha_fwd},
        {sdpa::kAiterMhaBwdNames, sdpa::model_aiter_mha_bwd},
        {sdpa::kFlashAttnV3ForwardNames, sdpa::model_flash_attn_v3_forward},
        {sdpa::kEvoformerAttentionNames, sdpa::model_evoformer_attention}};
    for (const auto& [names, fn] : tables)
      for (const char* const* name = names; *name; ++name) m[*name] = fn;
    return m;
  }();
  return models;
}

void expect_relative(double actual, const std::string& cell, const std::string& what) {
  const double expected = std::stod(cell);
  EXPECT_LE(std::fabs(actual - expected), 1e-9 * std::fabs(expected))
      << what << ": " << actual << " vs " << cell;
}

// Forward rows compare r.flops/bytes; the *_bwd sheets hold backward metrics, which are the
// model's own flops for a backward op and flops_bwd for an autograd-linked forward op.
void check_sheet_row(const traceprism::testing::SheetRow& row, bool bwd_sheet) {
  SCOPED_TRACE(row.sheet.string() + " row " + std::to_string(row.line) + " " + row.name);
  const auto it = model_by_op_name().find(row.name);
  ASSERT_NE(it, model_by_op_name().end()) << "no model for " << row.name;
  OpModelResult r;
  ASSERT_EQ(run(it->second, row.call, r), OpStatus::kOk);
  const bool linked = bwd_sheet && r.category == "SDPA_fwd";
  const double flops = linked ? r.flops_bwd : r.flops;
  const double bytes = linked ? r.bytes_bwd : r.bytes;
  expect_relative(flops / 1e9, row.gflops, "GFLOPS");
  if (row.data_moved_mb.empty()) {
    EXPECT_LT(bytes, 0);
  } else {
    expect_relative(bytes / 1048576.0, row.data_moved_mb, "Data Moved (MB)");
  }
  EXPECT_EQ(r.compute_spec, row.compute_spec);
  for (const auto& [key, cell] : row.params) {
    std::string repr;
    for (const auto& p : r.params)
      if (p.key == key) repr = p.repr;
    EXPECT_EQ(traceprism::testing::param_cell(repr), cell) << "param " << key;
  }
}

TEST(SdpaModels, EveryGoldenSheetRow) {
  std::size_t checked = 0;
  for (const char* sheet : {"SDPA_fwd.csv", "SDPA_bwd.csv"}) {
    for (const auto& path : traceprism::testing::golden_sheets(sheet)) {
      const auto rows = traceprism::testing::read_sheet_rows(path);
      for (const auto& row : rows) check_sheet_row(row, std::string(sheet) == "SDPA_bwd.csv");
      std::cout << "[ golden   ] " << rows.size() << " rows: " << path.string() << "\n";
      checked += rows.size();
    }
  }
  if (checked == 0) GTEST_SKIP() << "no golden SDPA sheets (is ../shared/traces present?)";
  std::cout << "[ golden   ] SDPA rows checked: " << checked << "\n";
}

}  // namespace
