// Model identification rules (analysis-rules.md §15): families from module class names,
// op-set fallbacks, architecture, precision weighted by kernel time, scale from GEMM K.
#include <gtest/gtest.h>

#include "findings/model_identification.hpp"

namespace traceprism::findings {
namespace {

using Op = ModelEvidence::Op;

Op gemm(const char* name, const char* dims, const char* types, double us, double count = 1) {
  return {name, "gemm", dims, types, us, count};
}

constexpr const char* kBf16x3 = "('c10::BFloat16', 'c10::BFloat16', 'c10::BFloat16')";
constexpr const char* kBf16x2 = "('c10::BFloat16', 'c10::BFloat16')";

TEST(ModelIdentification, NothingKnownIsNeverGuessed) {
  const ModelInfo info = identify_model(ModelEvidence{});
  EXPECT_EQ(info.model, kCannotInfer);
  EXPECT_EQ(info.architecture, kCannotInfer);
  EXPECT_EQ(info.scale, kCannotInfer);
  EXPECT_EQ(info.precision, kCannotInfer);
}

TEST(ModelIdentification, FamilyFromModuleClasses) {
  ModelEvidence e;
  e.module_classes = {"Embedding", "Linear", "Qwen2Attention", "Qwen2DecoderLayer", "SiLU"};
  EXPECT_EQ(identify_model(e).model, "Qwen2");
  e.module_classes = {"Conv2d", "LayerNorm", "TimeSformerAttention", "TimesformerLayer"};
  EXPECT_EQ(identify_model(e).model, "TimeSformer");
  e.module_classes = {"BertLayer", "BertModel", "Linear"};
  EXPECT_EQ(identify_model(e).model, "BERT");
  e.module_classes = {"BasicBlock", "Conv2d"};
  EXPECT_EQ(identify_model(e).model, "ResNet");
  // The family most classes belong to wins (a vision tower inside a Llama model).
  e.module_classes = {"CLIPEncoder", "LlamaAttention", "LlamaDecoderLayer", "LlamaModel"};
  EXPECT_EQ(identify_model(e).model, "Llama");
}

TEST(ModelIdentification, OpSetFallbacks) {
  ModelEvidence e;
  e.ops = {{"aten::convolution", "conv_fwd", "", "", 900, 1},
           {"aten::add", "elementwise", "", "", 100, 1}};
  EXPECT_EQ(identify_model(e).model, "Vision");
  EXPECT_EQ(identify_model(e).architecture, "CNN");
  e.ops = {{"aten::embedding_bag", "other", "", "", 500, 1}, gemm("aten::mm", "", "", 500)};
  EXPECT_EQ(identify_model(e).model, "Recommendation");
  e.ops = {{"aten::embedding", "other", "", "", 10, 1},
           {"aten::_scaled_dot_product_flash_attention", "sdpa_fwd", "", "", 100, 1}};
  EXPECT_EQ(identify_model(e).model, "LLM");
  EXPECT_EQ(identify_model(e).architecture, "Transformer");
}

TEST(ModelIdentification, Architecture) {
  ModelEvidence e;
  e.ops = {{"aten::bmm", "gemm", "", "", 10, 1}, {"aten::_softmax", "reduce", "", "", 10, 1}};
  EXPECT_EQ(identify_model(e).architecture, "Transformer");
  e.ops.push_back({"vllm::rocm_aiter_fused_moe", "moe_fused", "", "", 10, 1});
  EXPECT_EQ(identify_model(e).architecture, "Transformer (MoE)");
  e.ops = {{"aten::lstm", "other", "", "", 10, 1}};
  EXPECT_EQ(identify_model(e).architecture, "RNN");
}

TEST(ModelIdentification, PrecisionWeightedByKernelTime) {
  ModelEvidence e;
  e.ops = {gemm("aten::mm", "((8, 16), (16, 8))", kBf16x2, 900),
           gemm("aten::bmm", "((1, 32, 1), (1, 1, 559))", "('float', 'float')", 100)};
  EXPECT_EQ(identify_model(e).precision, "BF16");
  e.ops[1].kernel_time_us = 400;  // bf16 69%: no dtype above 80%
  EXPECT_EQ(identify_model(e).precision, "Mixed (BF16/FP32)");
  // Non-matrix ops do not count.
  e.ops = {{"aten::add", "elementwise", "((8,), (8,))", "('float', 'float')", 1000, 1}};
  EXPECT_EQ(identify_model(e).precision, kCannotInfer);
}

TEST(ModelIdentification, ScaleFromTheMostFrequentLinearK) {
  ModelEvidence e;
  e.ops = {gemm("aten::addmm", "((3072,), (512, 768), (768, 3072))", kBf16x3, 10, 12),
           gemm("aten::addmm", "((768,), (512, 3072), (3072, 768))", kBf16x3, 10, 12),
           gemm("aten::addmm", "((768,), (512, 768), (768, 768))", kBf16x3, 10, 48)};
  EXPECT_EQ(identify_model(e).scale, "base (~100M)");
  e.ops = {gemm("aten::mm", "((8944, 1024), (1024, 2816))", kBf16x2, 10, 48)};
  EXPECT_EQ(identify_model(e).scale, "large/~350M");
  // A hidden size outside the table is not mapped to a guess.
  e.ops = {gemm("aten::mm", "((512, 512), (512, 2048))", kBf16x2, 10, 8)};
  EXPECT_EQ(identify_model(e).scale, kCannotInfer);
  // Without linear GEMMs, the last dim of the norm inputs.
  e.ops = {
      {"aten::layer_norm", "norm_fwd", "((4, 197, 4096), (4096,))", "('c10::BFloat16',)", 10, 25}};
  EXPECT_EQ(identify_model(e).scale, "~7-8B");
}

TEST(ModelIdentification, ModelInfoJson) {
  EXPECT_EQ(model_info_json({"Qwen2", "Transformer", "large/~350M", "BF16"}),
            "{\n  \"model\": \"Qwen2\",\n  \"architecture\": \"Transformer\",\n  \"scale\": "
            "\"large/~350M\",\n  \"precision\": \"BF16\"\n}\n");
}

}  // namespace
}  // namespace traceprism::findings
