// The convolution and SSM op models (plugins/conv): the spec's hand-checked CONV example
// (perf-model.md §15), cases computed by hand from the §6 / §9.2 / §9.5 formulas, error
// behaviour, then every row of every golden CONV sheet (forward numbers from the sheet, backward
// numbers through r.backward).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "conv/conv_models.hpp"
#include "golden_rows.hpp"

namespace traceprism::plugins::conv {
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
            std::int64_t sequence_number = INT64_MIN) {
  auto opt = [](const char* s) -> std::optional<std::string_view> {
    if (!s) return std::nullopt;
    return std::string_view(s);
  };
  return OpCall(name, opt(dims), opt(types), opt(strides), opt(concrete), {}, sequence_number);
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

const std::vector<std::string> kConvKeys{"convNd",
                                         "input_shape",
                                         "filter_shape",
                                         "dtype_input_weight",
                                         "input_stride",
                                         "weight_stride",
                                         "bias",
                                         "stride",
                                         "padding",
                                         "dilation",
                                         "transposed_conv",
                                         "output_padding",
                                         "groups"};

// The Falconsai patch embedding as Kineto records it (9 args).
const char* kPatchDims = "[[4,3,224,224],[768,3,16,16],[768],[],[],[],[],[],[]]";
const char* kPatchTypes =
    R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","ScalarList","ScalarList","ScalarList","Scalar","ScalarList","Scalar"])";
const char* kPatchStrides = "[[150528,50176,224,1],[768,256,16,1],[1],[],[],[],[],[],[]]";
const char* kPatchConcrete = R"(["","","","[16, 16]","[0, 0]","[1, 1]","False","[0, 0]","1"])";

// ---- §15 CONV_fwd.csv (Falconsai), checked by hand in the spec ---------------------------------

// out (4, 768, 14, 14); the bias is ignored since len(D) = 9 (Q4):
// FLOPs 2·(4·768·196)·(3·16·16) = 924844032; bytes (602112 + 589824 + 602112)·2 = 3588096.
TEST(ConvModels, Spec15PatchEmbedding) {
  auto x = run(model_convolution,
               make("aten::convolution", kPatchDims, kPatchTypes, kPatchStrides, kPatchConcrete));
  ASSERT_EQ(x.status, OpStatus::kOk);
  EXPECT_EQ(x.r.category, "CONV_fwd");
  EXPECT_EQ(x.r.bwd_category, "CONV_bwd");
  EXPECT_EQ(x.r.sheet, "CONV");
  EXPECT_EQ(x.r.flops, 924844032.0);
  EXPECT_EQ(x.r.bytes, 3588096.0);
  EXPECT_DOUBLE_EQ(x.r.bytes / 1048576, 3.421875);
  EXPECT_EQ(x.r.compute_spec, "matrix_bf16");
  EXPECT_EQ(keys_of(x.r), kConvKeys);
  auto p = params_of(x.r);
  EXPECT_EQ(p["convNd"], "'conv2d'");
  EXPECT_EQ(p["input_shape"], "(4, 3, 224, 224)");
  EXPECT_EQ(p["dtype_input_weight"], "('c10::BFloat16', 'c10::BFloat16')");
  EXPECT_EQ(p["input_stride"], "(150528, 50176, 224, 1)");
  EXPECT_EQ(p["bias"], "False");
  EXPECT_EQ(p["stride"], "(16, 16)");
  EXPECT_EQ(p["transposed_conv"], "False");
  EXPECT_EQ(p["groups"], "1");
  // Backward (hand, §6): 2·924844032 FLOPs; 2·(602112 + 589824 + 602112)·2 = 7176192 bytes.
  ASSERT_EQ(x.r.bwd_status, OpStatus::kOk);
  EXPECT_EQ(x.r.flops_bwd, 1849688064.0);
  EXPECT_EQ(x.r.bytes_bwd, 7176192.0);
}

// ---- hand-computed from the §6 formulas -------------------------------------------------------

// Three args (x, w, b) is the only way the bias counts: out (4, 512, 56, 56) = 6422528 elements.
// FLOPs 2·2304·6422528 + 6422528 = 29601431552; bytes (3211264 + 1179648 + 512 + 6422528)·2 =
// 21627904. Backward: 2·29595009024 + 6422528 = 59196440576 FLOPs;
// 2·(6422528 + 1179648 + 3211264)·2 + (6422528 + 512) = 49676800 bytes (bias in elements, Q9).
TEST(ConvModels, ThreeArgConvCountsBiasForwardAndBackward) {
  auto x =
      run(model_convolution, make("aten::convolution", "[[4,256,56,56],[512,256,3,3],[]]",
                                  R"(["c10::bfloat16","c10::bfloat16","c10::bfloat16"])", nullptr,
                                  R"(["","","","[1, 1]","[1, 1]","[1, 1]","False","[0, 0]","1"])"));
  ASSERT_EQ(x.status, OpStatus::kOk);
  EXPECT_EQ(x.r.flops, 29601431552.0);
  EXPECT_EQ(x.r.bytes, 21627904.0);
  EXPECT_EQ(params_of(x.r)["bias"], "True");
  EXPECT_EQ(params_of(x.r)["input_stride"], "None");  // no Input Strides: None, not a failure
  ASSERT_EQ(x.r.bwd_status, OpStatus::kOk);
  EXPECT_EQ(x.r.flops_bwd, 59196440576.0);
  EXPECT_EQ(x.r.bytes_bwd, 49676800.0);
}

// conv1d x (2, 16, 100), w (32, 16, 5), one-element lists broadcast: stride 2, pad 1:
// out = int((100 + 2 - 4 - 1)/2 + 1) = int(49.5) = 49 -> (2, 32, 49) = 3136 elements.
// FLOPs 2·80·3136 = 501760; bytes (3200 + 2560 + 3136)·4 = 35584.
TEST(ConvModels, Conv1dBroadcastsOneElementListsAndTruncates) {
  auto x = run(
      model_convolution,
      make(
          "aten::convolution", "[[2,16,100],[32,16,5],[],[],[],[],[],[],[]]",
          R"(["float","float","","ScalarList","ScalarList","ScalarList","Scalar","ScalarList","Scalar"])",
          nullptr, R"(["","","","[2]","[1]","[1]","False","[0]","1"])"));
  ASSERT_EQ(x.status, OpStatus::kOk);
  EXPECT_EQ(params_of(x.r)["convNd"], "'conv1d'");
  EXPECT_EQ(params_of(x.r)["stride"], "(2,)");
  EXPECT_EQ(x.r.flops, 501760.0);
  EXPECT_EQ(x.r.bytes, 35584.0);
  EXPECT_EQ(x.r.compute_spec, "matrix_fp32");
}

// Empty Concrete Inputs slots take the defaults (stride 1, padding 0, dilation 1): a 3x3 conv on
// (1, 8, 10, 10) with 4 filters gives (1, 4, 8, 8): FLOPs 2·72·256 = 36864.
TEST(ConvModels, EmptyListArgsTakeDefaults) {
  auto x = run(model_convolution,
               make("aten::convolution", "[[1,8,10,10],[4,8,3,3],[],[],[],[],[],[],[]]",
                    R"(["c10::Half","c10::Half","","","","","Scalar","","Scalar"])", nullptr,
                    R"(["","","","","","","False","","1"])"));
  ASSERT_EQ(x.status, OpStatus::kOk);
  EXPECT_EQ(params_of(x.r)["padding"], "(0, 0)");
  EXPECT_EQ(x.r.flops, 36864.0);
  EXPECT_EQ(x.r.bytes, (800.0 + 288 + 256) * 2);
}

// Transposed: x (4, 512, 8, 8), w (512, 256, 4, 4), stride 2, pad 1 -> out (4, 256, 16, 16).
// FLOPs 2·prod(w[1:])·prod(x) = 2·4096·131072 = 1073741824; backward = 2x; bytes_bwd
// 2·(262144 + 2097152 + 131072)·4 = 19922944.
TEST(ConvModels, TransposedConvForwardAndBackward) {
  auto x =
      run(model_convolution, make("aten::convolution", "[[4,512,8,8],[512,256,4,4]]",
                                  R"(["Float","Float"])", "[[1,1,1,1],[1,1,1,1]]",
                                  R"j(["","","","(2,2)","(1,1)","(1,1)","True","(0,0)","1"])j"));
  ASSERT_EQ(x.status, OpStatus::kOk);
  EXPECT_EQ(x.r.flops, 1073741824.0);
  EXPECT_EQ(x.r.bytes, (131072.0 + 2097152 + 262144) * 4);
  EXPECT_EQ(params_of(x.r)["transposed_conv"], "True");
  EXPECT_EQ(x.r.flops_bwd, 2147483648.0);
  EXPECT_EQ(x.r.bytes_bwd, 19922944.0);
}

TEST(ConvModels, ConvFailures) {
  const char* concrete = R"(["","","","[1, 1]","[0, 0]","[1, 1]","False","[0, 0]","1"])";
  // Rank outside 3..5 raises ValueError in the reference.
  auto rank6 = run(model_convolution, make("aten::convolution", "[[1,1,1,1,1,1],[1,1,1,1,1,1]]",
                                           R"(["float","float"])", nullptr, concrete));
  EXPECT_EQ(rank6.status, OpStatus::kFailed);
  EXPECT_EQ(rank6.r.category, "CONV_fwd");  // set before the failure
  // Mixed input / weight dtypes raise.
  EXPECT_EQ(run(model_convolution, make("aten::convolution", "[[1,8,4,4],[8,8,1,1]]",
                                        R"(["float","c10::BFloat16"])", nullptr, concrete))
                .status,
            OpStatus::kFailed);
  // No Concrete Inputs (the H100 cuDNN case in the agent goldens): the row gets no metrics.
  EXPECT_EQ(run(model_convolution,
                make("aten::convolution", "[[1,8,4,4],[8,8,1,1]]", R"(["float","float"])"))
                .status,
            OpStatus::kFailed);
}

TEST(ConvModels, UnsizedDtypeHasFlopsButNoBytes) {
  auto x = run(model_convolution,
               make("aten::convolution", "[[1,8,4,4],[8,8,1,1]]", R"(["bool","bool"])", nullptr,
                    R"(["","","","[1, 1]","[0, 0]","[1, 1]","False","[0, 0]","1"])"));
  ASSERT_EQ(x.status, OpStatus::kOk);
  EXPECT_EQ(x.r.flops, 2.0 * 8 * 128);
  EXPECT_EQ(x.r.bytes, -1.0);
  EXPECT_EQ(x.r.bytes_bwd, -1.0);
  EXPECT_EQ(x.r.compute_spec, "");
}

// convolution_backward(gO, x, w, bias_sizes, stride, padding, dilation, transposed, out_pad,
// groups, mask) of the patch embedding: its FLOPs / bytes are the backward formulas; the bias
// param is the empty bias_sizes list itself (the reference's `and` chain), not False.
TEST(ConvModels, ConvolutionBackward) {
  auto x = run(
      model_convolution_backward,
      make(
          "aten::convolution_backward",
          "[[4,768,14,14],[4,3,224,224],[768,3,16,16],[],[],[],[],[],[],[],[]]",
          R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","ScalarList","ScalarList","ScalarList","ScalarList","Scalar","ScalarList","Scalar","ScalarList"])",
          nullptr,
          R"(["","","","[768]","[16, 16]","[0, 0]","[1, 1]","False","[0, 0]","1","[False, True, True]"])"));
  ASSERT_EQ(x.status, OpStatus::kOk);
  EXPECT_EQ(x.r.category, "CONV_bwd");
  EXPECT_EQ(x.r.sheet, "CONV");
  EXPECT_EQ(x.r.flops, 1849688064.0);
  EXPECT_EQ(x.r.bytes, 7176192.0);
  EXPECT_EQ(params_of(x.r)["bias"], "[]");
  EXPECT_EQ(keys_of(x.r), kConvKeys);
}

// ConvBias_(x (8, 64, 32, 32), w (128, 64, 3, 3), b, stride 1, padding 1): bias always counted.
// out (8, 128, 32, 32) = 1048576 elements; FLOPs 2·576·1048576 + 1048576 = 1209008128;
// bytes (524288 + 73728 + 128 + 1048576)·2 = 3293440. Backward: 2·1207959552 + 1048576 =
// 2416967680 FLOPs; 2·(1048576 + 73728 + 524288)·2 + (1048576 + 128) = 7635072 bytes.
TEST(ConvModels, ConvBias) {
  for (const char* name : {"ConvBias_", "ConvBiasReLU_"}) {
    auto x = run(model_conv_bias, make(name, "[[8,64,32,32],[128,64,3,3],[128],[],[]]",
                                       R"(["c10::Half","c10::Half","c10::Half","Scalar","Scalar"])",
                                       nullptr, R"(["","","","1","1"])", 42));
    ASSERT_EQ(x.status, OpStatus::kOk) << name;
    EXPECT_EQ(x.r.category, "CONV_fwd");
    EXPECT_EQ(x.r.bwd_category, "CONV_bwd");
    EXPECT_EQ(x.r.flops, 1209008128.0);
    EXPECT_EQ(x.r.bytes, 3293440.0);
    EXPECT_EQ(params_of(x.r)["bias"], "True");
    EXPECT_EQ(params_of(x.r)["stride"], "(1, 1)");
    EXPECT_EQ(params_of(x.r)["input_stride"], "None");
    EXPECT_EQ(x.r.flops_bwd, 2416967680.0);
    EXPECT_EQ(x.r.bytes_bwd, 7635072.0);
  }
}

// A pure model cannot reach the forward's params by Sequence number: the backward op keeps its
// category (timed, no FLOPs), like the reference on a cache miss.
TEST(ConvModels, ConvBiasBackwardIsCategoryOnlyInPractice) {
  for (const char* name : {"ConvBias_Backward", "ConvBiasReLU_Backward"}) {
    auto x = run(model_conv_bias_backward,
                 make(name, "[[8,128,32,32]]", R"(["c10::Half"])", nullptr, R"([""])", 42));
    EXPECT_EQ(x.status, OpStatus::kFailed) << name;
    EXPECT_EQ(x.r.category, "CONV_bwd");
    EXPECT_EQ(x.r.sheet, "CONV");
  }
}

TEST(ConvModels, CategoryOnlyOps) {
  for (const char* name : {"aten::cudnn_convolution", "aten::miopen_convolution"}) {
    auto x = run(model_conv_category_only, make(name, "[[1,3,8,8],[4,3,3,3]]", R"(["float"])"));
    ASSERT_EQ(x.status, OpStatus::kOk);
    EXPECT_EQ(x.r.category, "CONV_fwd");
    EXPECT_FALSE(x.r.has_model);
    EXPECT_EQ(x.r.flops, -1.0);
  }
  for (const char* name :
       {"DaoAILab::_causal_conv1d_bwd_cpp", "MambaSplitConv1dScanCombinedFnBackward"}) {
    auto x = run(model_ssm_bwd_category_only, make(name, nullptr, nullptr));
    ASSERT_EQ(x.status, OpStatus::kOk);
    EXPECT_EQ(x.r.category, "SSM_bwd");
    EXPECT_FALSE(x.r.has_model);
  }
}

// ---- PyTorch <= 1.10 conv-backward ops (no reference model), hand-computed ----------------------

// A ResNet 3x3 conv: x (8, 64, 56, 56), w (64, 64, 3, 3), stride 1 padding 1, so grad_output is
// (8, 64, 56, 56) too. One gradient = one conv: 2·(8·64·56·56)·(64·3·3) = 2·1605632·576 =
// 1849688064 FLOPs. Bytes of the input gradient (fp16): read gO 1605632 + w 36864, write gI 1605632
// elements = 3248128 · 2 = 6496256.
constexpr const char* kGradOutput = "[8,64,56,56]";
constexpr double kOneConvFlops = 2.0 * 8 * 64 * 56 * 56 * 64 * 3 * 3;

TEST(LegacyConvBackward, InputGradientIsOneConvolution) {
  EXPECT_EQ(kOneConvFlops, 1849688064.0);
  const std::string dims = std::string("[[],") + kGradOutput + ",[64,64,3,3],[],[],[],[],[],[],[]]";
  const char* types = R"(["","c10::Half","c10::Half","","","","","","",""])";
  auto x = run(model_legacy_conv_backward_input,
               make("aten::cudnn_convolution_backward_input", dims.c_str(), types));
  ASSERT_EQ(x.status, OpStatus::kOk);
  EXPECT_EQ(x.r.category, "CONV_bwd");
  EXPECT_EQ(x.r.sheet, "CONV");
  EXPECT_TRUE(x.r.has_model);
  EXPECT_EQ(x.r.flops, 1849688064.0);
  EXPECT_EQ(x.r.compute_spec, "matrix_fp16");
  EXPECT_EQ(x.r.bytes, -1.0) << "self_size unknown without Concrete Inputs: no byte count";
  EXPECT_EQ(params_of(x.r)["gradients"], "'input'");
  EXPECT_EQ(params_of(x.r)["input_shape"], "None");
  // With Concrete Inputs, self_size gives the written gradient.
  const char* concrete =
      R"(["[8, 64, 56, 56]","","","[1, 1]","[1, 1]","[1, 1]","1","False","False","True"])";
  x = run(model_legacy_conv_backward_input,
          make("aten::miopen_convolution_backward_input", dims.c_str(), types, nullptr, concrete));
  ASSERT_EQ(x.status, OpStatus::kOk);
  EXPECT_EQ(x.r.flops, 1849688064.0);
  EXPECT_EQ(x.r.bytes, 6496256.0);
  EXPECT_EQ(params_of(x.r)["input_shape"], "(8, 64, 56, 56)");
}

TEST(LegacyConvBackward, WeightGradientNeedsTheWeightSize) {
  const std::string dims =
      std::string("[[],") + kGradOutput + ",[8,64,56,56],[],[],[],[],[],[],[]]";
  const char* types = R"(["","float","float","","","","","","",""])";
  auto x = run(model_legacy_conv_backward_weight,
               make("aten::cudnn_convolution_backward_weight", dims.c_str(), types));
  EXPECT_EQ(x.status, OpStatus::kFailed) << "kernel size unknown: timed, no FLOPs";
  EXPECT_EQ(x.r.category, "CONV_bwd");
  const char* concrete =
      R"(["[64, 64, 3, 3]","","","[1, 1]","[1, 1]","[1, 1]","1","False","False","True"])";
  x = run(model_legacy_conv_backward_weight,
          make("aten::cudnn_convolution_backward_weight", dims.c_str(), types, nullptr, concrete));
  ASSERT_EQ(x.status, OpStatus::kOk);
  EXPECT_EQ(x.r.flops, 1849688064.0);
  EXPECT_EQ(x.r.compute_spec, "matrix_fp32");
  // fp32: read gO 1605632 + x 1605632, write gW 36864 = 3248128 elements · 4 bytes.
  EXPECT_EQ(x.r.bytes, 12992512.0);
  EXPECT_EQ(params_of(x.r)["gradients"], "'weight'");
}

TEST(LegacyConvBackward, CombinedOpsCountTheGradientsOfOutputMask) {
  // cudnn_convolution_backward(self, grad_output, weight, ..., output_mask).
  const std::string dims =
      std::string("[[8,64,56,56],") + kGradOutput + ",[64,64,3,3],[],[],[],[],[],[],[],[]]";
  const char* types =
      R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","","","","","","","",""])";
  auto x = run(model_legacy_conv_backward_both,
               make("aten::cudnn_convolution_backward", dims.c_str(), types));
  ASSERT_EQ(x.status, OpStatus::kOk);
  EXPECT_EQ(x.r.flops, 2 * 1849688064.0) << "no output_mask recorded: both gradients";
  // bf16: (gO + w + x) for each gradient = 2 · 3248128 elements · 2 bytes.
  EXPECT_EQ(x.r.bytes, 12992512.0);
  const char* first_layer =
      R"(["","","","[1, 1]","[1, 1]","[1, 1]","1","False","False","True","[False, True]"])";
  x = run(model_legacy_conv_backward_both,
          make("aten::cudnn_convolution_backward", dims.c_str(), types, nullptr, first_layer));
  ASSERT_EQ(x.status, OpStatus::kOk);
  EXPECT_EQ(x.r.flops, 1849688064.0) << "output_mask [False, True]: the weight gradient only";
  EXPECT_EQ(params_of(x.r)["gradients"], "'weight'");
  // thnn_conv2d_backward(grad_output, self, weight, kernel_size, stride, padding, finput,
  // fgrad_input, output_mask): grad_output comes first.
  const std::string thnn =
      std::string("[") + kGradOutput + ",[8,64,56,56],[64,64,3,3],[],[],[],[],[],[]]";
  const char* thnn_types = R"(["float","float","float","","","","float","float",""])";
  x = run(model_legacy_conv_backward_both,
          make("aten::thnn_conv2d_backward", thnn.c_str(), thnn_types));
  ASSERT_EQ(x.status, OpStatus::kOk);
  EXPECT_EQ(x.r.flops, 2 * 1849688064.0);
  EXPECT_EQ(x.r.bytes, 2 * 12992512.0);
}

TEST(LegacyConvBackward, NamesAreInTheConvFamily) {
  auto has = [](const char* const* table, std::string_view name) {
    for (; *table; ++table)
      if (name == *table) return true;
    return false;
  };
  EXPECT_TRUE(has(kLegacyConvBackwardInputNames, "aten::cudnn_convolution_backward_input"));
  EXPECT_TRUE(has(kLegacyConvBackwardInputNames, "aten::miopen_convolution_backward_input"));
  EXPECT_TRUE(has(kLegacyConvBackwardWeightNames, "aten::cudnn_convolution_backward_weight"));
  EXPECT_TRUE(has(kLegacyConvBackwardWeightNames, "aten::miopen_convolution_backward_weight"));
  EXPECT_TRUE(has(kLegacyConvBackwardBothNames, "aten::thnn_conv2d_backward"));
  EXPECT_TRUE(has(kLegacyConvBackwardBothNames, "aten::slow_conv2d_backward"));
}

// ---- SSM (§9.2, §9.5), hand-computed -----------------------------------------------------------

// x (2, 1024, 512), w (1024, 4), bias: FLOPs 2·2·1024·512·4 = 8388608;
// bytes (2·2·1024·512 + 1024·4 + 1024)·2 = 4204544.
TEST(ConvModels, CausalConv1d) {
  auto x = run(model_causal_conv1d_fwd,
               make("DaoAILab::_causal_conv1d_fwd_cpp", "[[2,1024,512],[1024,4],[1024],[],[]]",
                    R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","",""])"));
  ASSERT_EQ(x.status, OpStatus::kOk);
  EXPECT_EQ(x.r.category, "SSM_fwd");
  EXPECT_EQ(x.r.sheet, "SSM");
  EXPECT_TRUE(x.r.bwd_category.empty());
  EXPECT_EQ(x.r.bwd_status, OpStatus::kNotModelled);
  EXPECT_EQ(x.r.flops, 8388608.0);
  EXPECT_EQ(x.r.bytes, 4204544.0);
  EXPECT_EQ(x.r.compute_spec, "matrix_bf16");
  EXPECT_EQ(keys_of(x.r),
            (std::vector<std::string>{"batch", "channels", "seq_len", "kernel_size", "has_bias"}));
  // No bias and an unsized dtype: bpe falls back to 2, and there is no precision.
  auto y =
      run(model_causal_conv1d_fwd, make("DaoAILab::_causal_conv1d_fwd_cpp",
                                        "[[2,1024,512],[1024,4],[]]", R"(["bool","bool",""])"));
  ASSERT_EQ(y.status, OpStatus::kOk);
  EXPECT_EQ(y.r.bytes, (2.0 * 2 * 1024 * 512 + 1024 * 4) * 2);
  EXPECT_EQ(y.r.compute_spec, "");
}

// B=1, T=256, H=8, P=64 (d_inner 512), G=1, N=16: Dc = 2·512 + 2·16 + 8 = 1064, conv channels
// 512 + 2·16 = 544, d_conv 4, chunk 128.
// FLOPs 2·544·256·4 + 2·256·128·16 + 2·8·256·128·64 + 4·8·256·16·64 = 44105728;
// bytes 256·1064·2 + 544·4·2 + 544·2 + 8·(4 + 4 + 4) + 256·512·2 = 812448; backward = forward.
TEST(ConvModels, MambaSsd) {
  const char* dims = "[[1,256,1064],[544,4],[544],[8],[8],[8],[],[],[],[],[],[],[],[],[],[],[],[]]";
  const char* types =
      R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","float","float","float","Scalar","","","","","","","","","Scalar","Scalar",""])";
  auto x = run(model_mamba_ssd_fwd,
               make("MambaSplitConv1dScanCombinedFn", dims, types, nullptr,
                    R"(["","","","","","","128","","","","","","","","","64","1",""])"));
  ASSERT_EQ(x.status, OpStatus::kOk);
  EXPECT_EQ(x.r.category, "SSM_fwd");
  EXPECT_EQ(x.r.bwd_category, "SSM_bwd");
  EXPECT_EQ(x.r.sheet, "SSM");
  EXPECT_EQ(params_of(x.r)["N"], "16");
  EXPECT_EQ(keys_of(x.r), (std::vector<std::string>{"B", "T", "H", "P", "G", "N", "C", "d_inner",
                                                    "d_conv", "conv_channels", "combined_dim"}));
  EXPECT_EQ(x.r.flops, 44105728.0);
  EXPECT_EQ(x.r.bytes, 812448.0);
  ASSERT_EQ(x.r.bwd_status, OpStatus::kOk);
  EXPECT_EQ(x.r.flops_bwd, 44105728.0);
  EXPECT_EQ(x.r.bytes_bwd, 812448.0);
  // Without Concrete Inputs the defaults (C 128, P 64, G 1) give the same answer.
  auto y = run(model_mamba_ssd_fwd, make("MambaSplitConv1dScanCombinedFn", dims, types));
  ASSERT_EQ(y.status, OpStatus::kOk);
  EXPECT_EQ(y.r.flops, 44105728.0);
  // A combined dim that leaves no whole state size raises.
  auto z = run(model_mamba_ssd_fwd, make("MambaSplitConv1dScanCombinedFn",
                                         "[[1,256,1065],[544,4],[544],[8],[8],[8]]", types));
  EXPECT_EQ(z.status, OpStatus::kFailed);
  EXPECT_EQ(z.r.category, "SSM_fwd");
}

// ---- golden sheets -------------------------------------------------------------------------

bool near(double expected, double actual) {
  return std::fabs(expected - actual) <= 1e-9 * std::max(std::fabs(expected), std::fabs(actual));
}

bool param_matches(const std::string& repr, const std::string& cell) {
  return traceprism::testing::param_cell(repr) == cell || (repr == "None" && cell == "None");
}

std::size_t g_param_cells = 0;

void expect_params(const OpModelResult& r, const SheetRow& row) {
  auto params = params_of(r);
  for (const auto& [key, cell] : row.params) {
    auto it = params.find(key);
    if (it == params.end()) {
      EXPECT_EQ(cell, "") << "param " << key << " missing";
      continue;
    }
    EXPECT_TRUE(param_matches(it->second, cell))
        << "param " << key << ": " << it->second << " vs " << cell;
    params.erase(it);
    ++g_param_cells;
  }
  EXPECT_TRUE(params.empty()) << "params the sheet has no column for: " << params.begin()->first;
}

std::string where(const SheetRow& row) {
  return row.sheet.string() + " row " + std::to_string(row.line) + " (" + row.name + ")";
}

// Forward rows: the sheet's numbers. Backward: the sheet has none, so r.backward is checked
// against the spec's closed form (§6: FLOPs_bwd = 2·FLOPs_fwd(no bias) + bias term) using the
// sheet's forward GFLOPS.
TEST(ConvGolden, EveryRowOfEveryConvFwdSheet) {
  const auto sheets = all_golden_sheets("CONV_fwd.csv");
  if (sheets.empty())
    GTEST_SKIP() << "no golden CONV_fwd.csv under " << traceprism::testing::shared_traces();
  std::size_t rows = 0;
  for (const auto& sheet : sheets) {
    std::size_t sheet_rows = 0;
    for (const SheetRow& row : traceprism::testing::read_sheet_rows(sheet)) {
      SCOPED_TRACE(where(row));
      ASSERT_EQ(row.name, "aten::convolution");
      const Outcome x = run(model_convolution, row.call);
      ASSERT_EQ(x.status, OpStatus::kOk);
      EXPECT_EQ(x.r.category, "CONV_fwd");
      const double gflops = std::stod(row.gflops);
      EXPECT_TRUE(near(gflops, x.r.flops / 1e9)) << x.r.flops;
      if (row.data_moved_mb.empty()) {
        EXPECT_EQ(x.r.bytes, -1.0);
      } else {
        EXPECT_TRUE(near(std::stod(row.data_moved_mb), x.r.bytes / 1048576)) << x.r.bytes;
      }
      EXPECT_EQ(x.r.compute_spec, row.compute_spec);
      expect_params(x.r, row);
      ASSERT_EQ(x.r.bwd_status, OpStatus::kOk);
      // Closed form from the sheet's forward numbers: with B = prod(out) when the bias counts,
      // FLOPs_bwd = 2·(FLOPs_fwd - B) + B and Bytes_bwd = 2·(Bytes_fwd - out[1]·bpe) + B + out[1].
      const auto w = row.call.shape(1);
      const bool bias = params_of(x.r)["bias"] == "True";
      ASSERT_FALSE(bias && params_of(x.r)["transposed_conv"] == "True");  // not derivable here
      double w_tail = 1;
      for (std::size_t i = 1; i < w.size(); ++i) w_tail *= static_cast<double>(w[i]);
      const double fwd = gflops * 1e9, prod_out = bias ? fwd / (2 * w_tail + 1) : 0;
      EXPECT_TRUE(near(2 * (fwd - prod_out) + prod_out, x.r.flops_bwd)) << x.r.flops_bwd;
      if (!row.data_moved_mb.empty()) {
        const double bpe = *bytes_per_element(row.call.type(0));
        const double out_ch = bias ? static_cast<double>(w[0]) : 0;
        const double bytes_fwd = std::stod(row.data_moved_mb) * 1048576;
        EXPECT_TRUE(near(2 * (bytes_fwd - out_ch * bpe) + prod_out + out_ch, x.r.bytes_bwd))
            << x.r.bytes_bwd;
      }
      ++sheet_rows;
    }
    std::cout << "[conv golden] " << sheet_rows << " rows: " << sheet.string() << "\n";
    rows += sheet_rows;
  }
  std::cout << "[conv golden] " << rows << " CONV_fwd rows in " << sheets.size() << " sheets; "
            << g_param_cells << " param cells compared\n";
  EXPECT_GT(rows, 0u);
}

TEST(ConvGolden, NoConvBwdOrSsmSheetsToCheck) {
  // The shared traces hold no CONV_bwd / SSM golden sheet: those numbers are checked by the
  // hand-computed cases above only. Fail loudly if one appears, so it gets wired in.
  if (!std::filesystem::is_directory(traceprism::testing::shared_traces()))
    GTEST_SKIP() << "no shared traces";
  for (const char* name : {"CONV_bwd.csv", "SSM_fwd.csv", "SSM_bwd.csv"})
    EXPECT_TRUE(all_golden_sheets(name).empty()) << name << " appeared: check it here";
}

}  // namespace
}  // namespace traceprism::plugins::conv
