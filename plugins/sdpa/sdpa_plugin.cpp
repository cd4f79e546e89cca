// The "sdpa" plugin: attention op models (perf-model spec §7), one entry per reference model
// class, plus the category-only attention names.
// Its analyzer, sdpa-efficiency, is the compute-tier analysis of these categories (plugins/common).
#include <traceprism/sdk.hpp>

#include "../common/compute_analyzer.hpp"
#include "sdpa_models.hpp"

namespace {

using namespace traceprism::plugins::sdpa;
using traceprism::op_model;

TRACEPRISM_OP_MODELS(
    op_model<&model_aten_sdpa_flash>("sdpa-aten-flash", "aten::_scaled_dot_product_flash_attention",
                                     kAtenSdpaFlashNames),
    op_model<&model_aten_sdpa_efficient>("sdpa-aten-efficient",
                                         "aten::_scaled_dot_product_efficient_attention",
                                         kAtenSdpaEfficientNames),
    op_model<&model_aten_sdpa_cudnn>("sdpa-aten-cudnn", "aten::_scaled_dot_product_cudnn_attention",
                                     kAtenSdpaCudnnNames),
    op_model<&model_flash_attn_forward>("sdpa-flash-attn-forward",
                                        "Dao flash_attn forward (FlashAttnFunc)",
                                        kFlashAttnForwardNames),
    op_model<&model_flash_attn_backward>("sdpa-flash-attn-backward", "Dao flash_attn backward",
                                         kFlashAttnBackwardNames),
    op_model<&model_flash_attn_varlen_forward>("sdpa-flash-attn-varlen-forward",
                                               "Dao flash_attn varlen (packed) forward",
                                               kFlashAttnVarlenForwardNames),
    op_model<&model_flash_attn_varlen_backward>("sdpa-flash-attn-varlen-backward",
                                                "Dao flash_attn varlen (packed) backward",
                                                kFlashAttnVarlenBackwardNames),
    op_model<&model_aiter_flash_attn_forward>("sdpa-aiter-flash-attn-forward",
                                              "aiter::_flash_attn_forward",
                                              kAiterFlashAttnForwardNames),
    op_model<&model_aiter_flash_attn_backward>("sdpa-aiter-flash-attn-backward",
                                               "aiter::_flash_attn_backward",
                                               kAiterFlashAttnBackwardNames),
    op_model<&model_aiter_fmha_v3_forward>("sdpa-aiter-fmha-v3-forward",
                                           "aiter::wrapper_fmha_v3_fwd", kAiterFmhaV3ForwardNames),
    op_model<&model_aiter_fmha_v3_backward>("sdpa-aiter-fmha-v3-backward",
                                            "aiter::wrapper_fmha_v3_bwd",
                                            kAiterFmhaV3BackwardNames),
    op_model<&model_aiter_mha_fwd>("sdpa-aiter-mha-fwd", "aiter::mha_fwd, aiter::fmha_v3_fwd",
                                   kAiterMhaFwdNames),
    op_model<&model_aiter_mha_bwd>("sdpa-aiter-mha-bwd", "aiter::mha_bwd", kAiterMhaBwdNames),
    op_model<&model_flash_attn_v3_forward>("sdpa-flash-attn-v3-forward", "flash_attn_3::fwd",
                                           kFlashAttnV3ForwardNames),
    op_model<&model_evoformer_attention>("sdpa-evoformer", "DeepSpeed EvoformerAttention",
                                         kEvoformerAttentionNames),
    op_model<&model_sdpa_fwd_category_only>("sdpa-fwd-category-only",
                                            "SDPA_fwd ops without a model",
                                            kSdpaFwdCategoryOnlyNames),
    op_model<&model_sdpa_bwd_category_only>("sdpa-bwd-category-only",
                                            "SDPA_bwd ops without a model",
                                            kSdpaBwdCategoryOnlyNames),
    op_model<&model_inference_attention>(
        "sdpa-inference-attention",
        "Paged / chunked-prefill / decode attention (needs an iteration annotation)",
        kInferenceAttentionNames),
    op_model<&model_store_cache>("sdpa-store-cache", "SGLang KV-cache store (bytes only)",
                                 kStoreCacheNames),
    op_model<&model_kv_cache_write>("sdpa-kv-cache-write", "KV-cache writes (category only)",
                                    kKvCacheWriteNames));

}  // namespace

// sdpa-efficiency: the compute-tier analysis of attention categories (sdpa_fwd, sdpa_bwd,
// inferenceattention; the reference's sdpa-analyzer, sdpa_analysis.py). Page:
// docs/analyzers/sdpa/sdpa-efficiency.md.
TRACEPRISM_ANALYZERS(
    traceprism::analyzer<
        traceprism::plugins::compute::FamilyAnalyzer<traceprism::plugins::compute::Family::kSdpa>>(
        "sdpa-efficiency",
        "Roofline efficiency and impact of attention ops (sdpa_fwd, sdpa_bwd, inferenceattention): "
        "flash, paged or unfused.",
        traceprism::plugins::compute::kComputeOptions,
        traceprism::plugins::compute::kComputeDependencies));

TRACEPRISM_PLUGIN_WITH_OP_MODELS("sdpa", "1.0.0");
