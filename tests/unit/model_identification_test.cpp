// Model identification rules (analysis-rules.md §15, spec issue 15 item 7): families from module
// class names, op-set fallbacks, architectures from the layer structure of small synthetic
// traces (ResNet, VGG, transformer blocks), precision from kernel names and op input types
// weighted by kernel time, scale from measured shapes only.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "findings/model_identification.hpp"
#include "ingest/trace_reader.hpp"
#include "support/temp_dir.hpp"
#include "support/trace_builder.hpp"

namespace traceprism::findings {
namespace {

using Op = ModelEvidence::Op;

Op gemm(const char* name, const char* dims, const char* types, double us, double count = 1) {
  return {name, "gemm", dims, types, us, count, {}};
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
  e.ops = {{"aten::convolution", "conv_fwd", "", "", 900, 1, {}},
           {"aten::add", "elementwise", "", "", 100, 1, {}}};
  EXPECT_EQ(identify_model(e).model, "Vision");
  EXPECT_EQ(identify_model(e).architecture, "CNN");
  e.ops = {{"aten::embedding_bag", "other", "", "", 500, 1, {}}, gemm("aten::mm", "", "", 500)};
  EXPECT_EQ(identify_model(e).model, "Recommendation");
  e.ops = {{"aten::embedding", "other", "", "", 10, 1, {}},
           {"aten::_scaled_dot_product_flash_attention", "sdpa_fwd", "", "", 100, 1, {}}};
  EXPECT_EQ(identify_model(e).model, "LLM");
  EXPECT_EQ(identify_model(e).architecture, "Transformer");
}

TEST(ModelIdentification, Architecture) {
  ModelEvidence e;
  e.ops = {{"aten::bmm", "gemm", "", "", 10, 1, {}},
           {"aten::_softmax", "reduce", "", "", 10, 1, {}}};
  EXPECT_EQ(identify_model(e).architecture, "Transformer");
  e.ops.push_back({"vllm::rocm_aiter_fused_moe", "moe_fused", "", "", 10, 1, {}});
  EXPECT_EQ(identify_model(e).architecture, "Transformer (MoE)");
  e.ops = {{"aten::lstm", "other", "", "", 10, 1, {}}};
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
  e.ops = {{"aten::add", "elementwise", "((8,), (8,))", "('float', 'float')", 1000, 1, {}}};
  EXPECT_EQ(identify_model(e).precision, kCannotInfer);
}

TEST(ModelIdentification, ScaleIsTheMeasuredHiddenSizeNeverAParameterCount) {
  ModelEvidence e;
  e.module_classes = {"Qwen2DecoderLayer"};  // an architecture the trace names
  e.ops = {gemm("aten::addmm", "((3072,), (512, 768), (768, 3072))", kBf16x3, 10, 12),
           gemm("aten::addmm", "((768,), (512, 3072), (3072, 768))", kBf16x3, 10, 12),
           gemm("aten::addmm", "((768,), (512, 768), (768, 768))", kBf16x3, 10, 48)};
  EXPECT_EQ(identify_model(e).scale, "hidden size 768");
  // Qwen1.5-0.5B's hidden size: 1024 is no evidence of a "~350M" model.
  e.ops = {gemm("aten::mm", "((8944, 1024), (1024, 2816))", kBf16x2, 10, 48)};
  EXPECT_EQ(identify_model(e).scale, "hidden size 1024");
  // Without linear GEMMs, the last dim of the norm inputs; 4096 says nothing about "7B".
  e.ops = {{"aten::layer_norm",
            "norm_fwd",
            "((4, 197, 4096), (4096,))",
            "('c10::BFloat16',)",
            10,
            25,
            {}}};
  EXPECT_EQ(identify_model(e).scale, "hidden size 4096");
  e.ops = {{"aten::add", "elementwise", "((8,), (8,))", "('float', 'float')", 1000, 1, {}}};
  EXPECT_EQ(identify_model(e).scale, kCannotInfer);
}

// Issue 15 item 7: no scale without a model. A lone norm layer of width 32 (the normalization
// test trace) names no architecture, so its width is no model's size.
TEST(ModelIdentification, NoScaleWithoutAnArchitecture) {
  ModelEvidence e;
  e.ops = {{"aten::layer_norm", "norm_fwd", "((4, 197, 32), (32,))", "('float',)", 10, 25, {}}};
  ASSERT_EQ(identify_model(e).architecture, kCannotInfer);
  EXPECT_EQ(identify_model(e).scale, kCannotInfer);
}

// ---- precision from kernel names ------------------------------------------------------------

TEST(ModelIdentification, KernelNamePrecision) {
  // FP8 / MXFP4 GEMMs.
  EXPECT_EQ(kernel_name_precision("sm90_xmma_gemm_e4m3e4m3_e4m3f32_f32_tn_n_tilesize128x128x64"),
            "FP8");
  EXPECT_EQ(kernel_name_precision("_gemm_a8w8_blockscale_e5m2_kernel"), "FP8");
  EXPECT_EQ(kernel_name_precision("gemm_mxfp4_e2m1_preshuffle_256x256"), "MXFP4");
  // BF16 / FP16 tensor cores: bf16 is matched before its "f16" substring.
  EXPECT_EQ(kernel_name_precision("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x128x64"),
            "BF16");
  EXPECT_EQ(kernel_name_precision("volta_h884gemm_64x128_ldg8_nn"), "FP16");
  EXPECT_EQ(kernel_name_precision("ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_nn"), "FP16");
  // TF32 and FP32 (SIMT) kernels.
  EXPECT_EQ(kernel_name_precision("ampere_sgemm_128x64_tn"), "FP32");
  EXPECT_EQ(kernel_name_precision("cutlass_80_simt_sgemm_128x32_8x5_nn_align1"), "FP32");
  EXPECT_EQ(kernel_name_precision("ampere_s1688gemm_128x128_ldg8_nn"), "TF32");
  EXPECT_EQ(kernel_name_precision("implicit_convolve_sgemm<float, float, 128, 5, 5>"), "FP32");
  // hipBLASLt / Tensile type codes after the layouts.
  EXPECT_EQ(kernel_name_precision("Cijk_Alik_Bljk_B_BS_BH_Bias_HA_S_SAV_UserArgs_MT16x16x128"),
            "BF16");
  EXPECT_EQ(kernel_name_precision("Cijk_Ailk_Bljk_HHS_BH_MT128x128x32"), "FP16");
  EXPECT_EQ(kernel_name_precision("Cijk_Ailk_Bljk_SB_MT64x64x8"), "FP32");
  // Not a matrix kernel, or no precision stated.
  EXPECT_EQ(kernel_name_precision("void at::native::vectorized_elementwise_kernel<4, bf16>"), "");
  EXPECT_EQ(kernel_name_precision("nvjet_tst_128x256_64x4_1x2_h_bz_coopA_NNT"), "");
}

TEST(ModelIdentification, PrecisionFromKernelNamesOverInputTypes) {
  ModelEvidence e;
  // The op says bf16 but its GEMM kernel runs FP8 (a quantizing custom op): the kernel wins.
  Op fp8 = gemm("aten::mm", "((8, 16), (16, 8))", kBf16x2, 900);
  fp8.kernels = {{"sm90_xmma_gemm_e4m3e4m3_e4m3f32_f32_tn_n", 900}};
  e.ops = {fp8};
  EXPECT_EQ(identify_model(e).precision, "FP8");
  // A kernel whose name states no precision falls back on the op's input type.
  Op unnamed = gemm("aten::mm", "((8, 16), (16, 8))", kBf16x2, 300);
  unnamed.kernels = {{"nvjet_tst_128x256_64x4_1x2_h_bz_coopA_NNT", 300}};
  e.ops = {fp8, unnamed};  // FP8 900 µs of 1200: 75%, under 80%
  EXPECT_EQ(identify_model(e).precision, "Mixed (FP8/BF16)");
  // An op outside the matrix categories counts only through GEMM kernels that state a precision.
  Op custom{"mylib::fp4_linear", "other", "", "", 500, 1, {{"gemm_mxfp4_e2m1_kernel", 500}}};
  Op copy{"aten::copy_",
          "elementwise",
          "",
          "('float', 'c10::BFloat16')",
          5000,
          1,
          {{"void at::native::elementwise_kernel<128, 4>", 5000}}};
  e.ops = {custom, copy};
  EXPECT_EQ(identify_model(e).precision, "MXFP4");
}

// ---- architectures from the layer structure of synthetic traces --------------------------------

// A host-only trace of cpu_ops, one after another on one thread, with their Input Dims.
class LayerTrace {
 public:
  LayerTrace& op(const std::string& name, const std::string& dims = "[]") {
    t_.x("cpu_op", name, std::to_string(ts_), "8", R"({"Input Dims": )" + dims + "}");
    ts_ += 10;
    return *this;
  }
  LayerTrace& conv(int in, int out, int k, int hw) {
    const std::string x =
        "[8," + std::to_string(in) + "," + std::to_string(hw) + "," + std::to_string(hw) + "]";
    const std::string w = "[" + std::to_string(out) + "," + std::to_string(in) + "," +
                          std::to_string(k) + "," + std::to_string(k) + "]";
    return op("aten::conv2d", "[" + x + "," + w + ",[],[],[],[],[]]")
        .op("aten::convolution", "[" + x + "," + w + ",[],[],[],[],[],[],[]]");
  }
  LayerTrace& residual_add(int c, int hw) {
    const std::string t =
        "[8," + std::to_string(c) + "," + std::to_string(hw) + "," + std::to_string(hw) + "]";
    return op("aten::add_", "[" + t + "," + t + ",[]]");
  }
  LayerTrace& step(const std::string& name, double start, double end) {
    t_.x("user_annotation", name, std::to_string(start), std::to_string(end - start));
    return *this;
  }
  double now() const { return ts_; }
  ModelInfo identify() {
    traceprism::testing::TempDir dir;
    const auto file = ingest::read_trace(dir.write("t.json", t_.str()));
    return identify_model(gather_model_evidence(&file.index, nullptr));
  }

 private:
  traceprism::testing::TraceText t_;
  double ts_ = 100;
};

// torchvision Bottleneck: 1x1 reduce, 3x3, 1x1 expand, [1x1 downsample], add.
void bottleneck(LayerTrace& t, int width, bool downsample) {
  t.conv(4 * width, width, 1, 14).op("aten::batch_norm").op("aten::relu_");
  t.conv(width, width, 3, 14).op("aten::batch_norm").op("aten::relu_");
  t.conv(width, 4 * width, 1, 14).op("aten::batch_norm");
  if (downsample) t.conv(4 * width, 4 * width, 1, 14).op("aten::batch_norm");
  t.residual_add(4 * width, 14).op("aten::relu_");
}

TEST(ModelStructure, ResNet50FromItsBottleneckBlocks) {
  LayerTrace t;
  t.conv(3, 64, 7, 224).op("aten::max_pool2d");
  for (int stage_blocks : {3, 4, 6, 3})  // ResNet-50: 3 + 4 + 6 + 3 = 16 bottleneck blocks
    for (int b = 0; b < stage_blocks; ++b) bottleneck(t, 64, b == 0);
  t.op("aten::adaptive_avg_pool2d").op("aten::linear", "[[8,2048],[1000,2048],[1000]]");
  const ModelInfo info = t.identify();
  EXPECT_EQ(info.model, "ResNet-style CNN");
  EXPECT_EQ(
      info.architecture,
      "CNN (ResNet-style: 16 bottleneck blocks, 1x1-3x3-1x1 convolutions with residual adds)");
  EXPECT_EQ(info.scale, "ResNet-50 depth");
}

TEST(ModelStructure, BottleneckConvsWithoutResidualAddsAreNoResNet) {
  LayerTrace t;
  for (int b = 0; b < 4; ++b) {
    t.conv(256, 64, 1, 14).conv(64, 64, 3, 14).conv(64, 256, 1, 14);
    t.op("aten::add_", "[[8,256,14,14],[]]");  // add of a scalar: no skip connection
  }
  const ModelInfo info = t.identify();
  EXPECT_EQ(info.model, kCannotInfer);
  EXPECT_EQ(info.architecture, kCannotInfer);
  EXPECT_EQ(info.scale, kCannotInfer);
}

TEST(ModelStructure, ResNet18FromItsBasicBlocks) {
  LayerTrace t;
  t.conv(3, 64, 7, 224).op("aten::max_pool2d");
  for (int b = 0; b < 8; ++b) {  // ResNet-18: 2 + 2 + 2 + 2 basic blocks
    t.conv(64, 64, 3, 56).conv(64, 64, 3, 56);
    if (b % 2 == 0 && b > 0) t.conv(64, 64, 1, 56);
    t.residual_add(64, 56);
  }
  const ModelInfo info = t.identify();
  EXPECT_EQ(info.architecture,
            "CNN (ResNet-style: 8 basic blocks, 3x3-3x3 convolutions with residual adds)");
  EXPECT_EQ(info.scale, "ResNet-18 depth");
}

TEST(ModelStructure, Vgg16FromItsConvStacks) {
  LayerTrace t;
  for (int stack : {2, 2, 3, 3, 3}) {  // VGG-16: 13 3x3 convs in 5 stacks, a max-pool after each
    for (int i = 0; i < stack; ++i) t.conv(64, 64, 3, 56).op("aten::relu_");
    t.op("aten::max_pool2d");
  }
  for (int i = 0; i < 3; ++i) t.op("aten::linear", "[[8,4096],[4096,4096],[4096]]");
  const ModelInfo info = t.identify();
  EXPECT_EQ(info.model, "VGG-style CNN");
  EXPECT_EQ(info.architecture,
            "CNN (VGG-style: 13 3x3 convolutions in stacks with max-pooling, no residual adds)");
  EXPECT_EQ(info.scale, "VGG-16 depth");
}

// One pre-norm transformer block: norm, q/k/v, attention, out projection, norm, MLP.
void transformer_block(LayerTrace& t, bool fused_attention) {
  const std::string linear = "[[1,128,512],[512,512],[512]]";
  t.op("aten::layer_norm", "[[1,128,512],[],[512],[512],[],[]]");
  for (int i = 0; i < 3; ++i) t.op("aten::linear", linear);
  if (fused_attention) {
    t.op("aten::scaled_dot_product_attention").op("aten::_scaled_dot_product_flash_attention");
  } else {
    t.op("aten::matmul").op("aten::bmm").op("aten::softmax").op("aten::_softmax");
    t.op("aten::matmul").op("aten::bmm");
  }
  t.op("aten::linear", linear).op("aten::add", "[[1,128,512],[1,128,512],[]]");
  t.op("aten::layer_norm", "[[1,128,512],[],[512],[512],[],[]]");
  t.op("aten::linear", linear).op("aten::gelu").op("aten::linear", linear);
}

TEST(ModelStructure, TransformerBlocksWithFusedAttention) {
  LayerTrace t;
  t.op("aten::embedding");
  for (int i = 0; i < 6; ++i) transformer_block(t, true);
  const ModelInfo info = t.identify();
  EXPECT_EQ(info.architecture, "Transformer, 6 blocks");
  EXPECT_EQ(info.scale, kCannotInfer) << "no unified table here: no hidden size, and the "
                                         "architecture holds the block count";
}

TEST(ModelStructure, TransformerBlocksWithEagerAttention) {
  LayerTrace t;
  for (int i = 0; i < 4; ++i) transformer_block(t, false);
  EXPECT_EQ(t.identify().architecture, "Transformer, 4 blocks");
}

TEST(ModelStructure, EagerRmsNormCountsAsTheBlockNorm) {
  // HF Qwen2/Llama eager RMSNorm: pow, mean, rsqrt, mul; SwiGLU MLP with silu.
  LayerTrace t;
  for (int i = 0; i < 5; ++i) {
    t.op("aten::pow").op("aten::mean").op("aten::rsqrt").op("aten::mul");
    t.op("aten::linear").op("aten::linear").op("aten::linear");
    t.op("aten::scaled_dot_product_attention").op("aten::linear");
    t.op("aten::pow").op("aten::mean").op("aten::rsqrt").op("aten::mul");
    t.op("aten::linear").op("aten::silu").op("aten::linear").op("aten::linear");
  }
  EXPECT_EQ(t.identify().architecture, "Transformer, 5 blocks");
}

TEST(ModelStructure, BlocksAreCountedInTheFirstProfilerStep) {
  LayerTrace t;
  for (int step = 0; step < 3; ++step) {
    const double start = t.now();
    for (int i = 0; i < 2; ++i) transformer_block(t, true);
    t.step("ProfilerStep#" + std::to_string(step + 1), start - 1, t.now());
  }
  EXPECT_EQ(t.identify().architecture, "Transformer, 2 blocks");
}

TEST(ModelStructure, TwoAttentionsPerBlockCountOneBlock) {
  // Divided space-time attention (TimeSformer): a temporal and a spatial attention, then one MLP.
  LayerTrace t;
  for (int i = 0; i < 3; ++i) {
    t.op("aten::layer_norm").op("aten::linear").op("aten::scaled_dot_product_attention");
    t.op("aten::linear").op("aten::linear");
    t.op("aten::layer_norm").op("aten::linear").op("aten::scaled_dot_product_attention");
    t.op("aten::linear").op("aten::layer_norm").op("aten::linear").op("aten::gelu");
    t.op("aten::linear");
  }
  EXPECT_EQ(t.identify().architecture, "Transformer, 3 blocks");
}

TEST(ModelStructure, BackwardOpsAreNotLayers) {
  LayerTrace t;
  for (int i = 0; i < 4; ++i)
    t.op("aten::convolution_backward", "[[8,64,56,56],[8,64,56,56],[64,64,3,3]]")
        .op("aten::max_pool2d_with_indices_backward");
  const ModelInfo info = t.identify();
  EXPECT_EQ(info.architecture, kCannotInfer);
}

TEST(ModelIdentification, ModelInfoJson) {
  EXPECT_EQ(model_info_json({"Qwen2", "Transformer", "large/~350M", "BF16"}),
            "{\n  \"model\": \"Qwen2\",\n  \"architecture\": \"Transformer\",\n  \"scale\": "
            "\"large/~350M\",\n  \"precision\": \"BF16\"\n}\n");
}

}  // namespace
}  // namespace traceprism::findings
