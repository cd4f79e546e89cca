// The elementwise plugin's op models: the spec's worked examples (perf-model §15), examples
// computed by hand from the formulas of §8.1, §8.2, §9.3 and §9.4, error behaviour, and every row
// of the reference's UnaryElementwise / BinaryElementwise sheets.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "elementwise/elementwise_models.hpp"
#include "golden_rows.hpp"

namespace traceprism::plugins::elementwise {
namespace {

using ModelFn = void (*)(const OpCall&, OpModelResult&);
using traceprism::testing::all_golden_sheets;
using traceprism::testing::param;
using traceprism::testing::SheetRow;

struct ModelRun {
  OpModelResult r;
  OpStatus status;
};

ModelRun run(ModelFn model, const OpCall& call) {
  ModelRun out;
  out.status = run_op_model_guarded(model, call, out.r);
  return out;
}

OpCall call_of(const std::string& name, const char* dims, const char* types, const char* strides,
               const char* concrete = nullptr) {
  auto opt = [](const char* s) -> std::optional<std::string_view> {
    if (!s) return std::nullopt;
    return std::string_view(s);
  };
  return OpCall(name, opt(dims), opt(types), opt(strides), opt(concrete));
}

std::vector<std::string> keys(const OpModelResult& r) {
  std::vector<std::string> out;
  for (const auto& p : r.params) out.push_back(p.key);
  return out;
}

// ---- golden sheets
// -------------------------------------------------------------------------------

void expect_row(const SheetRow& row, ModelFn model) {
  SCOPED_TRACE(row.sheet.string() + " row " + std::to_string(row.line) + " " + row.name);
  const ModelRun got = run(model, row.call);
  ASSERT_EQ(got.status, OpStatus::kOk);
  traceprism::testing::expect_matches_sheet_row(row, got.r);
}

// Checks every row of every `file` sheet with the model its op name dispatches to; returns the
// number of rows checked.
int check_golden_sheets(const std::string& file, const std::map<std::string, ModelFn>& models) {
  int rows = 0;
  for (const auto& sheet : all_golden_sheets(file)) {
    for (const auto& row : traceprism::testing::read_sheet_rows(sheet)) {
      const auto model = models.find(row.name);
      if (model == models.end()) {
        ADD_FAILURE() << sheet << ": no model for " << row.name;
        continue;
      }
      expect_row(row, model->second);
      ++rows;
    }
  }
  std::cout << "[golden] " << file << ": " << rows << " rows checked\n";
  return rows;
}

bool have_shared_traces() {
  return std::filesystem::is_directory(traceprism::testing::shared_traces() / "tracelens");
}

std::map<std::string, ModelFn> models_for(std::initializer_list<const char* const*> tables,
                                          std::initializer_list<ModelFn> fns) {
  std::map<std::string, ModelFn> out;
  auto fn = fns.begin();
  for (const char* const* table : tables) {
    for (const char* const* name = table; *name; ++name) out[*name] = *fn;
    ++fn;
  }
  return out;
}

// ---- UnaryElementwise: spec §15 -----------------------------------------------------------------

TEST(ElementwiseUnary, CopySameDtypeSpec15) {
  const ModelRun got = run(
      model_unary, call_of("aten::copy_", "[[16,16,559,64],[16,16,559,64],[]]",
                           R"(["c10::BFloat16","c10::BFloat16","Scalar"])",
                           "[[572416,35776,64,1],[572416,35776,64,1],[]]", R"(["","","False"])"));
  ASSERT_EQ(got.status, OpStatus::kOk);
  EXPECT_EQ(got.r.category, "elementwise");
  EXPECT_EQ(got.r.sheet, "UnaryElementwise");
  EXPECT_EQ(got.r.bwd_category, "");
  EXPECT_EQ(got.r.flops, 9158656.0);
  EXPECT_EQ(got.r.bytes, 36634624.0);  // 34.9375 MB
  EXPECT_EQ(got.r.compute_spec, "vector_bf16");
  EXPECT_EQ(keys(got.r), (std::vector<std::string>{"op_shape", "dtype_in_out", "stride_input",
                                                   "stride_output"}));
  EXPECT_EQ(param(got.r, "op_shape"), "(16, 16, 559, 64)");
  EXPECT_EQ(param(got.r, "dtype_in_out"), "('c10::BFloat16', 'c10::BFloat16')");
  EXPECT_EQ(param(got.r, "stride_input"), "(572416, 35776, 64, 1)");
  EXPECT_EQ(got.r.bwd_status, OpStatus::kNotModelled);
}

TEST(ElementwiseUnary, CopyMixedDtypesTakePrecisionFromDst) {
  const ModelRun to_float =
      run(model_unary,
          call_of("aten::copy_", "[[16,559,1024],[16,559,1024],[]]",
                  R"(["float","c10::BFloat16","Scalar"])", "[[572416,1024,1],[572416,1024,1],[]]"));
  ASSERT_EQ(to_float.status, OpStatus::kOk);
  EXPECT_EQ(to_float.r.bytes, 54951936.0);  // n·4 + n·2 = 52.40625 MB
  EXPECT_EQ(to_float.r.compute_spec, "vector_fp32");
  const ModelRun to_bf16 =
      run(model_unary,
          call_of("aten::copy_", "[[16,559,1024],[16,559,1024],[]]",
                  R"(["c10::BFloat16","float","Scalar"])", "[[572416,1024,1],[572416,1024,1],[]]"));
  EXPECT_EQ(to_bf16.r.bytes, 54951936.0);
  EXPECT_EQ(to_bf16.r.compute_spec, "vector_bf16");
  const ModelRun from_long =
      run(model_unary, call_of("aten::copy_", "[[1,1,559],[1,1,559],[]]",
                               R"(["float","long int","Scalar"])", "[[559,559,1],[559,559,1],[]]"));
  EXPECT_EQ(from_long.r.bytes, 6708.0);  // 559·4 + 559·8
}

TEST(ElementwiseUnary, PowScalarExponentKeepsInputDtype) {
  const ModelRun got = run(model_unary, call_of("aten::pow", "[[16,559,1024],[]]",
                                                R"(["float","Scalar"])", "[[572416,1024,1],[]]"));
  ASSERT_EQ(got.status, OpStatus::kOk);
  EXPECT_EQ(got.r.bytes, 73269248.0);  // 69.875 MB
  EXPECT_EQ(param(got.r, "dtype_in_out"), "('float', None)");
  EXPECT_EQ(param(got.r, "stride_output"), "None");
}

TEST(ElementwiseUnary, UnknownDtypeKeepsFlopsWithoutBytes) {
  const ModelRun got = run(model_unary, call_of("aten::copy_", "[[32],[32],[]]",
                                                R"(["bool","bool","Scalar"])", "[[1],[1],[]]"));
  ASSERT_EQ(got.status, OpStatus::kOk);
  EXPECT_EQ(got.r.flops, 32.0);
  EXPECT_LT(got.r.bytes, 0);
  EXPECT_EQ(got.r.compute_spec, "");
}

TEST(ElementwiseUnary, MissingStridesFailWithCategory) {
  const ModelRun got = run(model_unary, call_of("aten::neg", "[[32]]", R"(["float"])", nullptr));
  EXPECT_EQ(got.status, OpStatus::kFailed);
  EXPECT_EQ(got.r.category, "elementwise");
  EXPECT_EQ(got.r.sheet, "UnaryElementwise");
}

// ---- resize ops: hand-computed from §8.1
// ---------------------------------------------------------

TEST(ElementwiseUnary, UpsampleNearestReadsInputWritesOutput) {
  // out = (1, 768, 128): FLOPs 98,304; bytes (6,144 + 98,304)·2 = 208,896.
  const ModelRun got =
      run(model_upsample_nearest, call_of("aten::upsample_nearest1d", "[[1,768,8],[],[]]",
                                          R"(["c10::BFloat16","ScalarList",""])",
                                          "[[6144,1,768],[],[]]", R"(["","[128]",""])"));
  ASSERT_EQ(got.status, OpStatus::kOk);
  EXPECT_EQ(got.r.flops, 98304.0);
  EXPECT_EQ(got.r.bytes, 208896.0);
  EXPECT_EQ(param(got.r, "op_shape"), "(1, 768, 128)");
  EXPECT_EQ(param(got.r, "input_shape"), "(1, 768, 8)");
  EXPECT_EQ(param(got.r, "output_shape"), "(1, 768, 128)");
  const ModelRun no_size =
      run(model_upsample_nearest,
          call_of("aten::upsample_nearest2d", "[[1,8,4,4],[],[]]", R"(["float","",""])",
                  "[[128,16,4,1],[],[]]", R"(["","",""])"));
  EXPECT_EQ(no_size.status, OpStatus::kFailed);  // output_size None: a parse error there
}

TEST(ElementwiseUnary, ReplicationPadAppliesPairsFromTheLastDim) {
  // x (1,128,17,240,240), pad [1,1,1,1,2,0] -> out (1,128,19,242,242).
  // in = 128·17·240·240 = 125,337,600; out = 128·19·242·242 = 142,427,648.
  const ModelRun got =
      run(model_replication_pad,
          call_of("aten::replication_pad3d", "[[1,128,17,240,240],[]]",
                  R"(["c10::BFloat16","ScalarList"])", "[[125337600,979200,57600,240,1],[]]",
                  R"(["","[1, 1, 1, 1, 2, 0]"])"));
  ASSERT_EQ(got.status, OpStatus::kOk);
  EXPECT_EQ(got.r.flops, 142427648.0);
  EXPECT_EQ(got.r.bytes, (125337600.0 + 142427648.0) * 2);
  EXPECT_EQ(param(got.r, "output_shape"), "(1, 128, 19, 242, 242)");
  const ModelRun too_many =
      run(model_replication_pad,
          call_of("aten::replication_pad1d", "[[4],[]]", R"(["float","ScalarList"])", "[[1],[]]",
                  R"(["","[1, 1, 1, 1]"])"));
  EXPECT_EQ(too_many.status, OpStatus::kFailed);
}

// ---- quantize and gated activations: hand-computed
// -----------------------------------------------

TEST(ElementwiseUnary, QuantizeFp8WritesOneBytePerElement) {
  // n = 4096·8192 = 33,554,432: bytes n·2 + n·1.
  const ModelRun got =
      run(model_quantize_fp8_tensorwise,
          call_of("primus_turbo_cpp_extension::quantize_fp8_tensorwise", "[[4096,8192],[],[]]",
                  R"(["c10::BFloat16","float","float"])", nullptr));
  ASSERT_EQ(got.status, OpStatus::kOk);  // strides are optional here
  EXPECT_EQ(got.r.flops, 33554432.0);
  EXPECT_EQ(got.r.bytes, 100663296.0);
  EXPECT_EQ(param(got.r, "dtype_in_out"), "('c10::BFloat16', 'c10::Float8_e4m3fnuz')");
  EXPECT_EQ(param(got.r, "stride_input"), "None");
}

TEST(ElementwiseUnary, QuantizeMxfp4DualCountsBothLayoutsAndScales) {
  // (256, 512) bf16: 262,144 read + 2·65,536 packed fp4 + 256·16 + 512·8 scales = 401,408.
  const ModelRun got =
      run(model_quantize_mxfp4_dual, call_of("primus::quantize_mxfp4_dual", "[[256,512],[]]",
                                             R"(["c10::BFloat16","Scalar"])", "[[512,1],[]]"));
  ASSERT_EQ(got.status, OpStatus::kOk);
  EXPECT_EQ(got.r.flops, 131072.0);
  EXPECT_EQ(got.r.bytes, 401408.0);
  EXPECT_EQ(param(got.r, "dtype_in_out"), "('c10::BFloat16', 'c10::Float4_e2m1fn_x2')");
  const ModelRun three_d =
      run(model_quantize_mxfp4_dual, call_of("primus::quantize_mxfp4_dual", "[[2,256,512]]",
                                             R"(["c10::BFloat16"])", "[[131072,512,1]]"));
  EXPECT_EQ(three_d.status, OpStatus::kFailed);
}

TEST(ElementwiseUnary, GatedActivationsReadTwiceTheOutput) {
  // out (32, 12288), input (32, 24576) bf16: n = 393,216; bytes 2·n·2 + n·2 = 2,359,296.
  const OpCall call = call_of("sgl_kernel::silu_and_mul", "[[32,12288],[32,24576]]",
                              R"(["c10::BFloat16","c10::BFloat16"])", "[[12288,1],[24576,1]]");
  const ModelRun silu = run(model_silu_and_mul, call);
  ASSERT_EQ(silu.status, OpStatus::kOk);
  EXPECT_EQ(silu.r.flops, 5 * 393216.0);
  EXPECT_EQ(silu.r.bytes, 2359296.0);
  EXPECT_EQ(param(silu.r, "stride_input"), "(24576, 1)");
  EXPECT_EQ(param(silu.r, "stride_output"), "(12288, 1)");
  EXPECT_EQ(run(model_gelu_and_mul, call).r.flops, 8 * 393216.0);
  EXPECT_EQ(run(model_gelu_tanh_and_mul, call).r.flops, 10 * 393216.0);
  // An unsized dtype is a TypeError in the reference's byte formula: the row fails.
  const ModelRun unsized =
      run(model_silu_and_mul, call_of("aiter::silu_and_mul", "[[4,8],[4,16]]",
                                      R"(["c10::BFloat16","bool"])", "[[8,1],[16,1]]"));
  EXPECT_EQ(unsized.status, OpStatus::kFailed);
  EXPECT_EQ(unsized.r.category, "elementwise");
}

// ---- BinaryElementwise: spec §15 ----------------------------------------------------------------

TEST(ElementwiseBinary, BroadcastOperandIsReadOnceSpec15) {
  const ModelRun got =
      run(model_binary, call_of("aten::mul", "[[16,559,1024],[16,559,1]]", R"(["float","float"])",
                                "[[572416,1024,1],[559,1,1]]"));
  ASSERT_EQ(got.status, OpStatus::kOk);
  EXPECT_EQ(got.r.sheet, "BinaryElementwise");
  EXPECT_EQ(got.r.flops, 9158656.0);
  EXPECT_EQ(got.r.bytes, 73305024.0);  // 4·(9,158,656 + 8,944 + 9,158,656)
  EXPECT_EQ(keys(got.r),
            (std::vector<std::string>{"shape_in1", "shape_in2", "dtype_in1_in2_out",
                                      "stride_input1", "stride_input2", "stride_output"}));
  EXPECT_EQ(param(got.r, "dtype_in1_in2_out"), "('float', 'float', None)");
}

TEST(ElementwiseBinary, ZeroDimOperandDoesNotWidenTheOutputSpec15) {
  const ModelRun got =
      run(model_binary, call_of("aten::add", "[[16,559,1],[],[]]", R"(["float","double","Scalar"])",
                                "[[559,1,1],[],[]]"));
  ASSERT_EQ(got.status, OpStatus::kOk);
  EXPECT_EQ(got.r.bytes, 71560.0);  // 8,944·4 + 8 + 8,944·4
  EXPECT_EQ(param(got.r, "shape_in2"), "()");
}

TEST(ElementwiseBinary, TwoTensorsAndAlphaSpec15) {
  const ModelRun bcast =
      run(model_binary, call_of("aten::mul", "[[1024],[16,559,1024]]",
                                R"(["c10::BFloat16","c10::BFloat16"])", "[[1],[572416,1024,1]]"));
  EXPECT_EQ(bcast.r.bytes, 36636672.0);
  const ModelRun alpha = run(model_binary, call_of("aten::add", "[[16,559,1024],[16,559,1024],[]]",
                                                   R"(["c10::BFloat16","c10::BFloat16","Scalar"])",
                                                   "[[572416,1024,1],[572416,1024,1],[]]"));
  EXPECT_EQ(alpha.r.bytes, 54951936.0);  // 3·n·2
}

TEST(ElementwiseBinary, NonBroadcastableShapesFail) {
  const ModelRun got = run(
      model_binary, call_of("aten::add", "[[4,3],[4,5]]", R"(["float","float"])", "[[3,1],[5,1]]"));
  EXPECT_EQ(got.status, OpStatus::kFailed);
  EXPECT_EQ(got.r.category, "elementwise");
}

TEST(ElementwiseBinary, LigerSiluMulHasNoOutDtype) {
  // a, b (4, 1024) bf16: 4,096 FLOPs; 3·4,096·2 bytes.
  const ModelRun got = run(model_liger_silu_mul,
                           call_of("LigerSiLUMulFunction", "[[4,1024],[4,1024]]",
                                   R"(["c10::BFloat16","c10::BFloat16"])", "[[1024,1],[1024,1]]"));
  ASSERT_EQ(got.status, OpStatus::kOk);
  EXPECT_EQ(got.r.flops, 4096.0);
  EXPECT_EQ(got.r.bytes, 24576.0);
  EXPECT_EQ(param(got.r, "dtype_in1_in2_out"), "('c10::BFloat16', 'c10::BFloat16', None)");
  EXPECT_EQ(param(got.r, "stride_output"), "None");
}

// ---- RoPE / CrossEntropy: hand-computed from §9.3, §9.4
// ------------------------------------------

TEST(ElementwiseRope, ThreeFlopsPerElementReadAndWriteOnce) {
  // t (2048, 2, 16, 128): n = 8,388,608.
  const ModelRun got =
      run(model_fused_rope, call_of("FusedRoPEFunc", "[[2048,2,16,128],[2048,1,1,128]]",
                                    R"(["c10::BFloat16","float"])", nullptr));
  ASSERT_EQ(got.status, OpStatus::kOk);
  EXPECT_EQ(got.r.category, "RoPE_fwd");
  EXPECT_EQ(got.r.bwd_category, "");
  EXPECT_EQ(got.r.flops, 3 * 8388608.0);
  EXPECT_EQ(got.r.bytes, 2 * 8388608.0 * 2);
  EXPECT_EQ(got.r.compute_spec, "vector_bf16");
  EXPECT_EQ(keys(got.r),
            (std::vector<std::string>{"seq_len", "batch", "heads", "head_dim", "num_elements"}));
  EXPECT_EQ(param(got.r, "num_elements"), "8388608");
  // Without types the reference assumes bf16 bytes and has no precision.
  const ModelRun untyped =
      run(model_fused_rope, call_of("FusedRoPEFunc", "[[4,1,2,8]]", nullptr, nullptr));
  ASSERT_EQ(untyped.status, OpStatus::kOk);
  EXPECT_EQ(untyped.r.bytes, 2 * 64.0 * 2);
  EXPECT_EQ(untyped.r.compute_spec, "");
  EXPECT_EQ(
      run(model_fused_rope, call_of("FusedRoPEFunc", "[[4,2,8]]", "[\"float\"]", nullptr)).status,
      OpStatus::kFailed);
}

TEST(ElementwiseRope, SglangRotaryEmbeddingRotatesQueryAndKey) {
  // 8 tokens, query (8, 32·128) in fp16, key (8, 8·128): n = 32768 + 8192.
  const ModelRun got = run(
      model_rotary_embedding,
      call_of("sgl_kernel::rotary_embedding", "[[8],[8,4096],[8,1024],[],[4096,128],[]]",
              R"(["long int","c10::Half","c10::Half","Scalar","c10::Half","Scalar"])", nullptr));
  ASSERT_EQ(got.status, OpStatus::kOk);
  EXPECT_EQ(got.r.category, "RoPE_fwd");
  EXPECT_EQ(keys(got.r), (std::vector<std::string>{"num_elements"}));
  EXPECT_EQ(param(got.r, "num_elements"), "40960");
  EXPECT_EQ(got.r.flops, 3 * 40960.0);
  EXPECT_EQ(got.r.bytes, 2 * 40960.0 * 2);
  EXPECT_EQ(got.r.compute_spec, "vector_fp16");
  // No query: nothing to size.
  EXPECT_EQ(run(model_rotary_embedding,
                call_of("sgl_kernel::rotary_embedding", "[[8]]", nullptr, nullptr))
                .status,
            OpStatus::kFailed);
}

TEST(ElementwiseRope, BackwardIsCategoryOnly) {
  const ModelRun got =
      run(model_fused_rope_backward, call_of("FusedRoPEFuncBackward", nullptr, nullptr, nullptr));
  EXPECT_EQ(got.status, OpStatus::kOk);
  EXPECT_EQ(got.r.category, "RoPE_bwd");
  EXPECT_FALSE(got.r.has_model);
  EXPECT_LT(got.r.flops, 0);
}

TEST(ElementwiseCrossEntropy, FiveFlopsPerLogitPlusTargetsAndLoss) {
  // logits (8192, 1, 32000) bf16: 5·8192·32000 FLOPs; 8192·32000·2 + 8·8192 + 4·8192 bytes.
  const ModelRun got =
      run(model_cross_entropy, call_of("CrossEntropyFunction", "[[8192,1,32000],[8192,1]]",
                                       R"(["c10::BFloat16","long int"])", nullptr));
  ASSERT_EQ(got.status, OpStatus::kOk);
  EXPECT_EQ(got.r.category, "CrossEntropy_fwd");
  EXPECT_EQ(got.r.flops, 1310720000.0);
  EXPECT_EQ(got.r.bytes, 524386304.0);
  EXPECT_EQ(param(got.r, "logits_shape"), "[8192, 1, 32000]");
  EXPECT_EQ(param(got.r, "vocab_size"), "32000");
  const ModelRun back = run(model_cross_entropy_backward,
                            call_of("CrossEntropyFunctionBackward", nullptr, nullptr, nullptr));
  EXPECT_EQ(back.r.category, "CrossEntropy_bwd");
  EXPECT_FALSE(back.r.has_model);
}

// ---- every golden row
// ------------------------------------------------------------------------------

TEST(ElementwiseGolden, UnaryElementwiseSheets) {
  if (!have_shared_traces()) GTEST_SKIP() << "no reference traces under ../shared/traces";
  const auto models = models_for(
      {kUnaryOpNames, kReplicationPadOpNames, kUpsampleNearestOpNames,
       kQuantizeFp8TensorwiseOpNames, kQuantizeMxfp4DualOpNames, kSiluAndMulOpNames,
       kGeluAndMulOpNames, kGeluTanhAndMulOpNames},
      {model_unary, model_replication_pad, model_upsample_nearest, model_quantize_fp8_tensorwise,
       model_quantize_mxfp4_dual, model_silu_and_mul, model_gelu_and_mul, model_gelu_tanh_and_mul});
  EXPECT_GT(check_golden_sheets("UnaryElementwise.csv", models), 0);
}

TEST(ElementwiseGolden, BinaryElementwiseSheets) {
  if (!have_shared_traces()) GTEST_SKIP() << "no reference traces under ../shared/traces";
  const auto models =
      models_for({kBinaryOpNames, kLigerSiluMulOpNames}, {model_binary, model_liger_silu_mul});
  EXPECT_GT(check_golden_sheets("BinaryElementwise.csv", models), 0);
}

TEST(ElementwiseGolden, RopeAndCrossEntropySheetsHoldNoRowOfOurs) {
  if (!have_shared_traces()) GTEST_SKIP() << "no reference traces under ../shared/traces";
  // The stored RoPE_fwd sheets only hold extension RoPE ops (sgl_kernel::rotary_embedding),
  // which are not this plugin's; FusedRoPEFunc and CrossEntropyFunction are checked by hand above.
  int ours = 0;
  for (const char* file : {"RoPE_fwd.csv", "CrossEntropy_fwd.csv"})
    for (const auto& sheet : all_golden_sheets(file))
      for (const auto& row : traceprism::testing::read_sheet_rows(sheet))
        ours += row.name == "FusedRoPEFunc" || row.name == "CrossEntropyFunction";
  EXPECT_EQ(ours, 0) << "new golden rows: add them to the golden checks";
}

}  // namespace
}  // namespace traceprism::plugins::elementwise
