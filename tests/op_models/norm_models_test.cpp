// The norm plugin's op models: the spec's worked example (perf-model §15, layer_norm), examples
// computed by hand from the formulas of §8.3, the quirks Q2 (training from the truthiness of the
// printed string) and Q3 (affine/bias always present), error behaviour, and every row of the
// reference's Normalization and RMSNorm_fwd sheets.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "golden_rows.hpp"
#include "norm/norm_models.hpp"

namespace traceprism::plugins::norm {
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
               const char* concrete) {
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

void add_models(std::map<std::string, ModelFn>& out, const char* const* names, ModelFn model) {
  for (const char* const* name = names; *name; ++name) out[*name] = model;
}

// x (8, 16, 32, 32) float: N = 131,072 elements, C = 16 channels.
constexpr double kN = 131072;

// ---- forward classes
// ------------------------------------------------------------------------------

TEST(NormForward, LayerNormSpec15) {
  // x (4, 197, 768) bf16: N = 605,184, C = 768, training.
  const ModelRun got = run(
      model_layer_norm,
      call_of("aten::layer_norm", "[[4,197,768],[],[768],[768],[],[]]",
              R"(["c10::BFloat16","ScalarList","c10::BFloat16","c10::BFloat16","Scalar","Scalar"])",
              "[[151296,768,1],[],[1],[1],[],[]]",
              R"(["","[768]","","","9.9999999999999998e-13","True"])"));
  ASSERT_EQ(got.status, OpStatus::kOk);
  EXPECT_EQ(got.r.category, "NORM_fwd");
  EXPECT_EQ(got.r.bwd_category, "NORM_bwd");
  EXPECT_EQ(got.r.sheet, "Normalization");
  EXPECT_EQ(got.r.flops, 3030528.0);  // 6·768 + 5·605,184
  EXPECT_EQ(got.r.bytes, 2429952.0);  // 2·N·2 + 6·768·2
  EXPECT_EQ(got.r.compute_spec, "vector_bf16");
  EXPECT_EQ(keys(got.r),
            (std::vector<std::string>{"op_shape", "dtype_in_out", "stride_input", "stride_output",
                                      "num_channels", "has_bias", "is_affine", "is_training"}));
  EXPECT_EQ(param(got.r, "dtype_in_out"), "('c10::BFloat16', None)");
  EXPECT_EQ(param(got.r, "num_channels"), "768");
  // The forward classes raise for their backward: no backward metrics.
  EXPECT_EQ(got.r.bwd_status, OpStatus::kNotModelled);
}

TEST(NormForward, BatchNormTrainingIsTheTruthinessOfTheStringQ2) {
  // Training: 6C + 5N = 96 + 655,360; bytes 2·N·4 + 6·C·4 (mean, var, w, b, 2 running stats).
  const std::string dims = "[[8,16,32,32],[16],[16],[16],[16],[],[],[],[]]";
  const char* types =
      R"(["float","float","float","float","float","Scalar","Scalar","Scalar","Scalar"])";
  const std::string strides = "[[16384,1024,32,1],[1],[1],[1],[1],[],[],[],[]]";
  const ModelRun train =
      run(model_batch_norm, call_of("aten::batch_norm", dims.c_str(), types, strides.c_str(),
                                    R"(["","","","","","True","0.1","1e-05","True"])"));
  ASSERT_EQ(train.status, OpStatus::kOk);
  EXPECT_EQ(train.r.flops, 655456.0);
  EXPECT_EQ(train.r.bytes, 1048960.0);
  // "False" is a non-empty string, so the reference still costs training (quirk Q2).
  const ModelRun printed_false =
      run(model_batch_norm, call_of("aten::batch_norm", dims.c_str(), types, strides.c_str(),
                                    R"(["","","","","","False","0.1","1e-05","True"])"));
  EXPECT_EQ(printed_false.r.flops, 655456.0);
  EXPECT_EQ(param(printed_false.r, "is_training"), "True");
  // Only an empty string is false: inference costs 6C + 2N and 4 per-channel tensors.
  const ModelRun empty =
      run(model_batch_norm, call_of("aten::batch_norm", dims.c_str(), types, strides.c_str(),
                                    R"(["","","","","","","0.1","1e-05","True"])"));
  EXPECT_EQ(empty.r.flops, 96 + 2 * kN);
  EXPECT_EQ(empty.r.bytes, 2 * kN * 4 + 4 * 16 * 4);
}

TEST(NormForward, AbsentWeightStillCountsAsAffineQ3) {
  // native_batch_norm without weight and bias (Dims [] in those slots): still affine.
  const ModelRun got = run(
      model_batch_norm, call_of("aten::native_batch_norm", "[[1,128,32,32],[],[],[],[],[],[],[]]",
                                R"(["float","","","","","Scalar","Scalar","Scalar"])",
                                "[[131072,1024,32,1],[],[],[],[],[],[],[]]",
                                R"(["","","","","","True","0.1","1e-05"])"));
  ASSERT_EQ(got.status, OpStatus::kOk);
  EXPECT_EQ(param(got.r, "is_affine"), "True");
  EXPECT_EQ(param(got.r, "has_bias"), "True");
  // 6·128 + 5·131,072 FLOPs; 2·N·4 + 6·128·4 bytes.
  EXPECT_EQ(got.r.flops, 768 + 5 * kN);
  EXPECT_EQ(got.r.bytes, 2 * kN * 4 + 6 * 128 * 4);
}

TEST(NormForward, GroupAndInstanceNormUseTheChannelDim) {
  const ModelRun group =
      run(model_group_norm,
          call_of("aten::group_norm", "[[8,16,32,32],[],[16],[16],[],[]]",
                  R"(["float","Scalar","float","float","Scalar","Scalar"])",
                  "[[16384,1024,32,1],[],[1],[1],[],[]]", R"(["","4","","","1e-05","True"])"));
  ASSERT_EQ(group.status, OpStatus::kOk);
  EXPECT_EQ(param(group.r, "num_channels"), "16");  // C, not the group count
  EXPECT_EQ(group.r.flops, 96 + 5 * kN);
  const ModelRun instance =
      run(model_instance_norm,
          call_of("aten::instance_norm", "[[8,16,32,32],[16],[16],[],[],[],[],[],[]]",
                  R"(["float","float","float","","","Scalar","Scalar","Scalar","Scalar"])",
                  "[[16384,1024,32,1],[1],[1],[],[],[],[],[],[]]",
                  R"(["","","","","","True","0.1","1e-05","True"])"));
  ASSERT_EQ(instance.status, OpStatus::kOk);
  EXPECT_EQ(instance.r.flops, 96 + 5 * kN);
  EXPECT_EQ(instance.r.bytes, 2 * kN * 4 + 6 * 16 * 4);
}

TEST(NormForward, FusedRmsNorm) {
  // C = 32·32 = 1,024 → (N/C)·(2C + 2) + 2N = 128·2,050 + 262,144; bytes 2·N·4 + C·4.
  const ModelRun got = run(model_fused_rms_norm,
                           call_of("aten::_fused_rms_norm", "[[8,16,32,32],[],[32,32],[]]",
                                   R"(["float","ScalarList","float",""])",
                                   "[[16384,1024,32,1],[],[32,1],[]]", R"(["","[32, 32]","",""])"));
  ASSERT_EQ(got.status, OpStatus::kOk);
  EXPECT_EQ(got.r.flops, 524544.0);
  EXPECT_EQ(got.r.bytes, 1052672.0);
  EXPECT_EQ(param(got.r, "has_bias"), "False");
  EXPECT_EQ(param(got.r, "is_training"), "False");
  EXPECT_EQ(got.r.bwd_status, OpStatus::kNotModelled);
}

TEST(NormForward, UnsizedDtypeOrMissingArgsFailWithCategory) {
  const ModelRun unsized = run(
      model_layer_norm, call_of("aten::layer_norm", "[[4,8],[],[8],[8],[],[]]",
                                R"(["bool","ScalarList","bool","bool","Scalar","Scalar"])",
                                "[[8,1],[],[1],[1],[],[]]", R"(["","[8]","","","1e-05","True"])"));
  EXPECT_EQ(unsized.status, OpStatus::kFailed);  // TypeError on None bytes in the reference
  EXPECT_EQ(unsized.r.category, "NORM_fwd");
  const ModelRun no_strides =
      run(model_group_norm, call_of("aten::group_norm", "[[8,16],[],[16],[16],[],[]]",
                                    R"(["float","Scalar","float","float","Scalar","Scalar"])",
                                    nullptr, R"(["","4","","","1e-05","True"])"));
  EXPECT_EQ(no_strides.status, OpStatus::kFailed);
  EXPECT_EQ(no_strides.r.sheet, "Normalization");
}

// ---- backward classes
// -----------------------------------------------------------------------------

TEST(NormBackward, NativeBatchNormBackwardTraining) {
  // Training, mask [grad_out present]: 9N FLOPs; N·4 + 2·N·4 + C·4 (invstd) + C·4 (weight) +
  // 2·C·4 (grad weight and bias) bytes.
  const ModelRun got = run(
      model_batch_norm_backward,
      call_of(
          "aten::native_batch_norm_backward",
          "[[8,16,32,32],[8,16,32,32],[],[16],[16],[16],[16],[],[],[]]",
          R"(["float","float","","float","float","float","float","Scalar","Scalar","ScalarList"])",
          "[[16384,1024,32,1],[16384,1024,32,1],[],[1],[1],[1],[1],[],[],[]]",
          R"(["","","","","","","","True","1e-05","[True, False, False]"])"));
  ASSERT_EQ(got.status, OpStatus::kOk);
  EXPECT_EQ(got.r.category, "NORM_bwd");
  EXPECT_EQ(got.r.flops, 9 * kN);
  EXPECT_EQ(got.r.bytes, 3 * kN * 4 + 4 * 16 * 4);
  EXPECT_EQ(param(got.r, "output_mask"), "[True]");  // [grad_out is not None], not the C[9] mask
  // The backward classes inherit the generic flops_bwd/bytes_bwd: the same numbers.
  EXPECT_EQ(got.r.bwd_status, OpStatus::kOk);
  EXPECT_EQ(got.r.flops_bwd, got.r.flops);
  EXPECT_EQ(got.r.bytes_bwd, got.r.bytes);
}

TEST(NormBackward, MiopenBatchNormBackwardIsInference) {
  // x first; training false: 3C + 4N FLOPs; N·4 + N·4 + C·4 bytes.
  const ModelRun got =
      run(model_batch_norm_backward,
          call_of("aten::miopen_batch_norm_backward",
                  "[[8,16,32,32],[8,16,32,32],[16],[16],[16],[16],[16],[]]",
                  R"(["float","float","float","float","float","float","float","Scalar"])",
                  "[[16384,1024,32,1],[16384,1024,32,1],[1],[1],[1],[1],[1],[]]",
                  R"(["","","","","","","","1e-05"])"));
  ASSERT_EQ(got.status, OpStatus::kOk);
  EXPECT_EQ(got.r.flops, 48 + 4 * kN);
  EXPECT_EQ(got.r.bytes, 2 * kN * 4 + 16 * 4);
  EXPECT_EQ(param(got.r, "is_training"), "False");
}

TEST(NormBackward, LayerNormBackwardTakesAffineAndBiasFromTheMask) {
  // C = 16·32·32 = 16,384, N/C = 8: C·(4·8 + 5·8) = 9N; mask [True, False, False] → no affine:
  // N·4 + 2·N·4 + C·4 bytes.
  const ModelRun got =
      run(model_layer_norm_backward,
          call_of("aten::native_layer_norm_backward",
                  "[[8,16,32,32],[8,16,32,32],[],[8,1,1,1],[8,1,1,1],[],[],[]]",
                  R"(["float","float","ScalarList","float","float","","","ScalarList"])",
                  "[[16384,1024,32,1],[16384,1024,32,1],[],[1,1,1,1],[1,1,1,1],[],[],[]]",
                  R"(["","","[16, 32, 32]","","","","","[True, False, False]"])"));
  ASSERT_EQ(got.status, OpStatus::kOk);
  EXPECT_EQ(got.r.flops, 9 * kN);
  EXPECT_EQ(got.r.bytes, 3 * kN * 4 + 16384 * 4);
  EXPECT_EQ(param(got.r, "is_affine"), "False");
  EXPECT_EQ(param(got.r, "output_mask"), "[True, False, False]");
  const ModelRun bad_mask =
      run(model_layer_norm_backward,
          call_of("aten::native_layer_norm_backward",
                  "[[8,16,32,32],[8,16,32,32],[],[8,1,1,1],[8,1,1,1],[],[],[]]",
                  R"(["float","float","ScalarList","float","float","","","ScalarList"])",
                  "[[16384,1024,32,1],[16384,1024,32,1],[],[1,1,1,1],[1,1,1,1],[],[],[]]",
                  R"(["","","[16, 32, 32]","","","","",""])"));
  EXPECT_EQ(bad_mask.status, OpStatus::kFailed);
}

TEST(NormBackward, GroupNormBackwardChannelsPerGroupIsAFloat) {
  // C = 16 / 4 = 4.0: FLOPs 4·(4e + 5e) with e = N/4 → 9N; bytes N·4 + 2·N·4 + 4·4 + 4·4 + 2·4·4.
  const ModelRun got = run(
      model_group_norm_backward,
      call_of(
          "aten::native_group_norm_backward",
          "[[8,16,32,32],[8,16,32,32],[8,4],[8,4],[16],[],[],[],[],[]]",
          R"(["float","float","float","float","float","Scalar","Scalar","Scalar","Scalar","ScalarList"])",
          "[[16384,1024,32,1],[16384,1024,32,1],[4,1],[4,1],[1],[],[],[],[],[]]",
          R"(["","","","","","8","16","1024","4","[True, True, True]"])"));
  ASSERT_EQ(got.status, OpStatus::kOk);
  EXPECT_EQ(param(got.r, "num_channels"), "4.0");
  EXPECT_EQ(got.r.flops, 9 * kN);
  EXPECT_EQ(got.r.bytes, 3 * kN * 4 + 64);
}

TEST(NormBackward, RmsNormBackwardMasks) {
  // mask [True, True], affine, more than one row: N + N + 6N + N + N = 10N;
  // bytes N·4 + 2·N·4 + 2·C·4 with C = 1,024.
  const char* dims = "[[8,16,32,32],[8,16,32,32],[],[8,16,1,1],[32,32],[]]";
  const char* types = R"(["float","float","ScalarList","float","float","ScalarList"])";
  const char* strides = "[[16384,1024,32,1],[16384,1024,32,1],[],[16,1,1,1],[32,1],[]]";
  const ModelRun both =
      run(model_rms_norm_backward, call_of("aten::_fused_rms_norm_backward", dims, types, strides,
                                           R"(["","","[32, 32]","","","[True, True]"])"));
  ASSERT_EQ(both.status, OpStatus::kOk);
  EXPECT_EQ(both.r.flops, 10 * kN);
  EXPECT_EQ(both.r.bytes, 3 * kN * 4 + 2 * 1024 * 4);
  EXPECT_EQ(both.r.flops_bwd, both.r.flops);
  const ModelRun input_only =
      run(model_rms_norm_backward, call_of("aten::_fused_rms_norm_backward", dims, types, strides,
                                           R"(["","","[32, 32]","","","[True, False]"])"));
  EXPECT_EQ(input_only.r.flops, 8 * kN);
}

TEST(NormBackward, InstanceNormBackwardIsNotModelled) {
  const ModelRun got =
      run(model_instance_norm_backward, call_of("aten::native_instance_norm_backward", "[[2,3,4]]",
                                                R"(["float"])", "[[12,4,1]]", R"([""])"));
  EXPECT_EQ(got.status, OpStatus::kNotModelled);
  EXPECT_EQ(got.r.category, "NORM_bwd");
}

// ---- primus fused LayerNorm + modulate
// --------------------------------------------------------------

TEST(NormFusedLnModulate, ForwardAndBackward) {
  // x (T=1024, B=2, H=3072) bf16, N = 6,291,456.
  const char* dims = "[[1024,2,3072],[2,3072],[2,3072],[]]";
  const char* types = R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","Scalar"])";
  const ModelRun fwd =
      run(model_fused_ln_modulate,
          call_of("primus::fused_ln_modulate", dims, types, nullptr, R"(["","","","1e-06"])"));
  ASSERT_EQ(fwd.status, OpStatus::kOk);
  EXPECT_EQ(fwd.r.flops, 12 * 6291456.0);
  // 2·N·2 + 2·B·H·2 + 2·T·B·4 = 25,165,824 + 24,576 + 16,384.
  EXPECT_EQ(fwd.r.bytes, 25206784.0);
  EXPECT_EQ(param(fwd.r, "stride_input"), "None");  // strides are optional here
  EXPECT_EQ(param(fwd.r, "num_channels"), "3072");
  EXPECT_EQ(fwd.r.bwd_status, OpStatus::kNotModelled);
  const ModelRun bwd =
      run(model_fused_ln_modulate_backward,
          call_of("primus::fused_ln_modulate_backward",
                  "[[1024,2,3072],[1024,2,3072],[2048],[2048],[2,3072]]",
                  R"(["c10::BFloat16","c10::BFloat16","float","float","c10::BFloat16"])", nullptr,
                  R"(["","","","",""])"));
  ASSERT_EQ(bwd.status, OpStatus::kOk);
  EXPECT_EQ(bwd.r.category, "NORM_bwd");
  EXPECT_EQ(bwd.r.flops, 15 * 6291456.0);
  // 2·N·2 + 2·B·T·4 + N·2 + 2·B·H·2 + B·H·2.
  EXPECT_EQ(bwd.r.bytes, 25165824.0 + 16384 + 12582912 + 24576 + 12288);
  EXPECT_EQ(param(bwd.r, "output_mask"), "[True, True, True]");
  EXPECT_EQ(bwd.r.bwd_status, OpStatus::kNotModelled);
}

// ---- extension RMSNorm family
// ---------------------------------------------------------------------

TEST(NormRmsNormExtension, RmsNormWithAddAndDynamicQuant) {
  // x (32, 2880) bf16, weight (2880): N = 92,160; rms FLOPs 32·5,762 + 2N = 368,704.
  const ModelRun plain =
      run(model_aiter_rms_norm, call_of("aiter::rms_norm", "[[32,2880],[2880],[],[]]",
                                        R"(["c10::BFloat16","c10::BFloat16","Scalar","Scalar"])",
                                        "[[2880,1],[1],[],[]]", R"(["","","1e-05","0"])"));
  ASSERT_EQ(plain.status, OpStatus::kOk);
  EXPECT_EQ(plain.r.category, "RMSNorm");
  EXPECT_EQ(plain.r.sheet, "RMSNorm");
  EXPECT_EQ(plain.r.bwd_category, "");
  EXPECT_EQ(plain.r.flops, 368704.0);
  EXPECT_EQ(plain.r.bytes, 2 * 92160.0 * 2 + 2880 * 2);
  // with_add: + N FLOPs; reads input, residual, weight and writes out, residual_out.
  const ModelRun with_add = run(
      model_rmsnorm_with_add,
      call_of(
          "aiter::rmsnorm2d_fwd_with_add_ck",
          "[[32,2880],[32,2880],[32,2880],[32,2880],[2880],[],[]]",
          R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","c10::BFloat16","c10::BFloat16","Scalar","Scalar"])",
          "[[2880,1],[3072,1],[2880,1],[2880,1],[1],[],[]]", R"(["","","","","","1e-05","0"])"));
  ASSERT_EQ(with_add.status, OpStatus::kOk);
  EXPECT_EQ(with_add.r.flops, 460864.0);
  EXPECT_EQ(with_add.r.bytes, 743040.0);
  EXPECT_EQ(param(with_add.r, "stride_input"), "(3072, 1)");  // the input, not the out tensor
  // dynamic quant: x (4, 7168), C 7,168: rms 4·14,338 + 2N = 114,696, + 2N quant = 172,040;
  // bytes N·2 + C·2 + N·1 + 4 rows·4 = 100,368.
  const ModelRun quant = run(
      model_rmsnorm_dynamic_quant,
      call_of(
          "aiter::rmsnorm2d_fwd_with_dynamicquant_ck", "[[4,7168],[4,7168],[4,1],[7168],[],[]]",
          R"(["c10::Float8_e4m3fnuz","c10::BFloat16","float","c10::BFloat16","Scalar","Scalar"])",
          "[[7168,1],[7168,1],[1,1],[1],[],[]]", R"(["","","","","1e-06","0"])"));
  ASSERT_EQ(quant.status, OpStatus::kOk);
  EXPECT_EQ(quant.r.flops, 172040.0);
  EXPECT_EQ(quant.r.bytes, 100368.0);
  EXPECT_EQ(quant.r.compute_spec, "vector_bf16");
}

// ---- every golden row
// ------------------------------------------------------------------------------

TEST(NormGolden, NormalizationSheets) {
  if (!have_shared_traces()) GTEST_SKIP() << "no reference traces under ../shared/traces";
  std::map<std::string, ModelFn> models;
  add_models(models, kBatchNormOpNames, model_batch_norm);
  add_models(models, kBatchNormBackwardOpNames, model_batch_norm_backward);
  add_models(models, kLayerNormOpNames, model_layer_norm);
  add_models(models, kLayerNormBackwardOpNames, model_layer_norm_backward);
  add_models(models, kGroupNormOpNames, model_group_norm);
  add_models(models, kGroupNormBackwardOpNames, model_group_norm_backward);
  add_models(models, kInstanceNormOpNames, model_instance_norm);
  add_models(models, kInstanceNormBackwardOpNames, model_instance_norm_backward);
  add_models(models, kFusedRmsNormOpNames, model_fused_rms_norm);
  add_models(models, kRmsNormBackwardOpNames, model_rms_norm_backward);
  add_models(models, kFusedLnModulateOpNames, model_fused_ln_modulate);
  add_models(models, kFusedLnModulateBackwardOpNames, model_fused_ln_modulate_backward);
  EXPECT_GT(check_golden_sheets("Normalization.csv", models), 0);
}

TEST(NormGolden, RmsNormExtensionSheets) {
  if (!have_shared_traces()) GTEST_SKIP() << "no reference traces under ../shared/traces";
  std::map<std::string, ModelFn> models;
  add_models(models, kAiterRmsNormOpNames, model_aiter_rms_norm);
  add_models(models, kAiterRmsnormOpNames, model_aiter_rmsnorm);
  add_models(models, kRmsNormWithAddOpNames, model_rmsnorm_with_add);
  add_models(models, kRmsNormDynamicQuantOpNames, model_rmsnorm_dynamic_quant);
  // Only in the inference runs' perf_csvs folders.
  EXPECT_GT(check_golden_sheets("RMSNorm_fwd.csv", models), 0);
}

}  // namespace
}  // namespace traceprism::plugins::norm
