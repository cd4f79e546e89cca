// The MoE op models (plugins/moe) against the perf-model spec (§9.1, §4.4, §10). The reference's
// perf reports in ../shared/traces have no MoE_comm sheet, so those are checked by hand; the
// unfused MoE GEMMs against the vLLM inference golden's MoE_unfused_fwd rows.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "moe/moe_models.hpp"
#include "sheet_rows.hpp"

namespace {

using traceprism::OpCall;
using traceprism::OpModelResult;
using traceprism::OpStatus;
namespace moe = traceprism::plugins::moe;

std::string param(const OpModelResult& r, const std::string& key) {
  for (const auto& p : r.params)
    if (p.key == key) return p.repr;
  return "<missing " + key + ">";
}

TEST(MoeModels, DispatchMovesTokensTimesHidden) {
  // §9.1 by hand: tokens 4096, hidden 7168, bf16: 4096 · 7168 · 2 = 58,720,256 bytes, 0 FLOPs,
  // the same for the backward; no maf type, so no compute spec.
  const OpCall call("MoEDispatch", "[[4096,7168],[4096,8],[]]",
                    R"(["c10::BFloat16","long int","Scalar"])", std::nullopt, std::nullopt);
  OpModelResult r;
  ASSERT_EQ(traceprism::run_op_model_guarded(moe::model_moe_comm, call, r), OpStatus::kOk);
  EXPECT_EQ(r.category, "MoE_comm_fwd");
  EXPECT_EQ(r.bwd_category, "MoE_comm_bwd");
  EXPECT_EQ(r.sheet, "MoE_comm");
  EXPECT_TRUE(r.has_model);
  EXPECT_EQ(r.flops, 0.0);
  EXPECT_EQ(r.bytes, 58720256.0);
  EXPECT_EQ(r.compute_spec, "");
  ASSERT_EQ(r.params.size(), 3u);
  EXPECT_EQ(r.params[0].key, "num_tokens");
  EXPECT_EQ(r.params[1].key, "hidden_dim");
  EXPECT_EQ(r.params[2].key, "bpe");
  EXPECT_EQ(param(r, "num_tokens"), "4096");
  EXPECT_EQ(param(r, "hidden_dim"), "7168");
  EXPECT_EQ(param(r, "bpe"), "2");
  ASSERT_EQ(r.bwd_status, OpStatus::kOk);
  EXPECT_EQ(r.flops_bwd, 0.0);
  EXPECT_EQ(r.bytes_bwd, 58720256.0);
}

TEST(MoeModels, CombineFp32) {
  const OpCall call("MoECombine", "[[1000,512]]", R"(["float"])", std::nullopt, std::nullopt);
  OpModelResult r;
  ASSERT_EQ(traceprism::run_op_model_guarded(moe::model_moe_comm, call, r), OpStatus::kOk);
  EXPECT_EQ(r.bytes, 1000.0 * 512 * 4);
  EXPECT_EQ(param(r, "bpe"), "4");
}

TEST(MoeModels, MissingShapeOrDtypeGivesNoneNotFailure) {
  // The reference reads the args with .get() and length checks: None params, bytes None.
  OpModelResult no_dims;
  ASSERT_EQ(
      traceprism::run_op_model_guarded(
          moe::model_moe_comm,
          OpCall("MoEDispatch", std::nullopt, std::nullopt, std::nullopt, std::nullopt), no_dims),
      OpStatus::kOk);
  EXPECT_EQ(param(no_dims, "num_tokens"), "None");
  EXPECT_EQ(param(no_dims, "hidden_dim"), "None");
  EXPECT_EQ(param(no_dims, "bpe"), "None");
  EXPECT_EQ(no_dims.flops, 0.0);
  EXPECT_LT(no_dims.bytes, 0);
  EXPECT_LT(no_dims.bytes_bwd, 0);

  OpModelResult one_dim;
  ASSERT_EQ(
      traceprism::run_op_model_guarded(
          moe::model_moe_comm,
          OpCall("MoEDispatch", "[[64]]", R"(["bool"])", std::nullopt, std::nullopt), one_dim),
      OpStatus::kOk);
  EXPECT_EQ(param(one_dim, "num_tokens"), "64");
  EXPECT_EQ(param(one_dim, "hidden_dim"), "None");
  EXPECT_EQ(param(one_dim, "bpe"), "None");  // bool has no size in the reference's table
  EXPECT_LT(one_dim.bytes, 0);
}

TEST(MoeModels, CategoryOnlyNames) {
  const OpCall call("TokenPermuteMaskMap", std::nullopt, std::nullopt, std::nullopt, std::nullopt);
  const std::pair<void (*)(const OpCall&, OpModelResult&), const char*> cases[] = {
      {moe::model_moe_comm_fwd_category_only, "MoE_comm_fwd"},
      {moe::model_moe_comm_bwd_category_only, "MoE_comm_bwd"},
      {moe::model_moe_aux_category_only, "MoE_aux"},
      {moe::model_moe_unfused_category_only, "MoE_unfused"}};
  for (const auto& [fn, category] : cases) {
    OpModelResult r;
    ASSERT_EQ(traceprism::run_op_model_guarded(fn, call, r), OpStatus::kOk);
    EXPECT_EQ(r.category, category);
    EXPECT_FALSE(r.has_model);
  }
}

TEST(MoeModels, NameTablesAreNullTerminatedAndDisjoint) {
  std::map<std::string, int> seen;
  for (const auto* table :
       {moe::kMoeCommNames, moe::kMoeCommFwdCategoryOnlyNames, moe::kMoeCommBwdCategoryOnlyNames,
        moe::kMoeAuxCategoryOnlyNames, moe::kMoeUnfusedCategoryOnlyNames})
    for (const char* const* name = table; *name; ++name) ++seen[*name];
  for (const auto& [name, count] : seen) EXPECT_EQ(count, 1) << name;
  EXPECT_EQ(seen.size(), 21u);
  EXPECT_EQ(seen.count("aiter::moe_sorting_fwd"), 1u);
  EXPECT_EQ(seen.count("aiter::ck_moe_stage1"), 1u);
  EXPECT_EQ(seen.count("aiter::topk_softmax"), 1u);
  EXPECT_EQ(seen.count("_OperationFuserAutogradFunctionBackward"), 1u);
}

TEST(MoeModels, NoGoldenMoeSheets) {
  // If the reference set ever gains MoE_comm sheets, they must be checked here.
  for (const char* sheet : {"MoE_comm_fwd.csv", "MoE_comm_bwd.csv"})
    EXPECT_TRUE(traceprism::testing::golden_sheets(sheet).empty()) << sheet;
}

}  // namespace

// ---- vLLM GPT-OSS unfused MoE GEMM pseudo ops (perf-model spec §10) -----------------------

namespace unfused {

// moe_forward's args in the vllm_decode_full golden: hidden states (32, 3072), router logits
// (32, 32); the pseudo op's own args as the host writes them.
OpCall gemm(const std::string& name, const std::string& kernel, const std::string& own_args) {
  OpCall call(name, "[[32,3072],[32,32],[],[]]", R"(["c10::BFloat16","c10::BFloat16","",""])",
              "[[3072,1],[32,1],[],[]]", R"(["","","",""])", {kernel});
  call.set_pseudo_op_args(own_args);
  return call;
}

TEST(MoeModels, UnfusedTritonGemmsMatchTheGoldenRows) {
  // vllm_decode_full/perf_csvs/MoE_unfused_fwd.csv: up 4.831838208 GFLOPS,
  // 284.9228269331473 MB; down 2.415919104 GFLOPS, 142.93016346657365 MB; matrix_fp4.
  const OpCall up = gemm(
      "pseudo_op::moe_triton_unfused_up", "_matmul_ogs_NNT_bf16xbf16xmxfp4_16x128x256x1_swiglu",
      R"({"MoE GEMM type":"up","MoE GEMM index":0,"MoE GEMM gated":true,"MoE topk":4})");
  OpModelResult r;
  ASSERT_EQ(traceprism::run_op_model_guarded(moe::model_moe_triton_unfused_up, up, r),
            OpStatus::kOk);
  EXPECT_EQ(r.category, "MoE_unfused");
  EXPECT_EQ(r.sheet, "MoE_unfused");
  EXPECT_EQ(r.compute_spec, "matrix_fp4");
  EXPECT_EQ(r.flops / 1e9, 4.831838208);
  EXPECT_EQ(r.bytes / 1048576.0, 284.9228269331473);
  std::string keys;
  for (const auto& p : r.params) keys += p.key + "=" + p.repr + " ";
  EXPECT_EQ(keys,
            "num_tokens=32 hidden_dim=3072 inter_dim=3072 num_experts=32 topk=4 gated=True "
            "input_dtype='c10::BFloat16' weight_dtype='FP4' ");

  const OpCall down =
      gemm("pseudo_op::moe_triton_unfused_down", "_matmul_ogs_NNT_bf16xbf16xmxfp4_16x128x256x1",
           R"({"MoE GEMM type":"down","MoE GEMM index":1,"MoE GEMM gated":false,"MoE topk":4})");
  OpModelResult d;
  ASSERT_EQ(traceprism::run_op_model_guarded(moe::model_moe_triton_unfused_down, down, d),
            OpStatus::kOk);
  EXPECT_EQ(d.flops / 1e9, 2.415919104);
  EXPECT_EQ(d.bytes / 1048576.0, 142.93016346657365);
  EXPECT_EQ(param(d, "gated"), "False");
}

TEST(MoeModels, UnfusedGemmWeightDtypeComesFromTheKernelName) {
  const std::string args =
      R"({"MoE GEMM type":"up","MoE GEMM index":0,"MoE GEMM gated":false,"MoE topk":2})";
  OpModelResult fp8;
  ASSERT_EQ(
      traceprism::run_op_model_guarded(
          moe::model_moe_triton_unfused_up,
          gemm("pseudo_op::moe_triton_unfused_up", "_matmul_ogs_NNT_bf16xfp8_e4m3", args), fp8),
      OpStatus::kOk);
  EXPECT_EQ(param(fp8, "weight_dtype"), "'FP8'");
  EXPECT_EQ(fp8.compute_spec, "matrix_fp8");
  // A kernel name that names no weight dtype: None, no compute spec and unknown bytes (the
  // reference raises on the dtype); FLOPs stay: 2·32·3072·3072·2.
  OpModelResult plain;
  ASSERT_EQ(traceprism::run_op_model_guarded(
                moe::model_moe_triton_unfused_up,
                gemm("pseudo_op::moe_triton_unfused_up", "_matmul_ogs_NNT_bf16xbf16", args), plain),
            OpStatus::kOk);
  EXPECT_EQ(param(plain, "weight_dtype"), "None");
  EXPECT_EQ(plain.compute_spec, "");
  EXPECT_EQ(plain.bytes, -1.0);
  EXPECT_EQ(plain.flops, 2.0 * 32 * 3072 * 3072 * 2);
}

TEST(MoeModels, UnfusedGemmWithoutItsPseudoOpArgsFails) {
  // Not a pseudo op the host inserted (no top-k, no gating): the reference's KeyError.
  OpModelResult r;
  EXPECT_EQ(traceprism::run_op_model_guarded(
                moe::model_moe_triton_unfused_up,
                gemm("pseudo_op::moe_triton_unfused_up", "_matmul_ogs_x_mxfp4", ""), r),
            OpStatus::kFailed);
}

}  // namespace unfused
