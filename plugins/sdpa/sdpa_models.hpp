// Attention op models (perf-model spec §7): the SDPA family (category SDPA_fwd / SDPA_bwd,
// sheet "SDPA", maf matrix), the category-only attention names of §4.4, and the inference
// attention ops of §7.4 (category InferenceAttention), whose statistics need an iteration
// annotation that an op call does not carry.
#pragma once

#include <traceprism/op_model.hpp>

namespace traceprism::plugins::sdpa {

// aten::_scaled_dot_product_{flash,efficient,cudnn}_attention: (B, H, N, d) tensors.
void model_aten_sdpa_flash(const OpCall& call, OpModelResult& r);
void model_aten_sdpa_efficient(const OpCall& call, OpModelResult& r);
void model_aten_sdpa_cudnn(const OpCall& call, OpModelResult& r);
// Dao flash_attn: FlashAttnFunc, flash_attn::_flash_attn_forward / _backward, varlen variants.
void model_flash_attn_forward(const OpCall& call, OpModelResult& r);
void model_flash_attn_backward(const OpCall& call, OpModelResult& r);
void model_flash_attn_varlen_forward(const OpCall& call, OpModelResult& r);
void model_flash_attn_varlen_backward(const OpCall& call, OpModelResult& r);
// aiter (ROCm) flash attention ops and flash_attn_3.
void model_aiter_flash_attn_forward(const OpCall& call, OpModelResult& r);
void model_aiter_flash_attn_backward(const OpCall& call, OpModelResult& r);
void model_aiter_fmha_v3_forward(const OpCall& call, OpModelResult& r);
void model_aiter_fmha_v3_backward(const OpCall& call, OpModelResult& r);
void model_aiter_mha_fwd(const OpCall& call, OpModelResult& r);
void model_aiter_mha_bwd(const OpCall& call, OpModelResult& r);
void model_flash_attn_v3_forward(const OpCall& call, OpModelResult& r);
// DeepSpeed EvoformerAttention(Q, K, V, mask, bias) with 5-d (B, Nseq, Nres, H, D) tensors.
void model_evoformer_attention(const OpCall& call, OpModelResult& r);
// Category-only names (§4.4).
void model_sdpa_fwd_category_only(const OpCall& call, OpModelResult& r);
void model_sdpa_bwd_category_only(const OpCall& call, OpModelResult& r);
// Inference attention (§7.4): category first, then fails (no iteration annotation).
void model_inference_attention(const OpCall& call, OpModelResult& r);
// KV-cache writes: category-only InferenceAttention.
void model_store_cache(const OpCall& call, OpModelResult& r);
void model_kv_cache_write(const OpCall& call, OpModelResult& r);

// NULL-terminated op-name tables, one per model above.
extern const char* const kAtenSdpaFlashNames[];
extern const char* const kAtenSdpaEfficientNames[];
extern const char* const kAtenSdpaCudnnNames[];
extern const char* const kFlashAttnForwardNames[];
extern const char* const kFlashAttnBackwardNames[];
extern const char* const kFlashAttnVarlenForwardNames[];
extern const char* const kFlashAttnVarlenBackwardNames[];
extern const char* const kAiterFlashAttnForwardNames[];
extern const char* const kAiterFlashAttnBackwardNames[];
extern const char* const kAiterFmhaV3ForwardNames[];
extern const char* const kAiterFmhaV3BackwardNames[];
extern const char* const kAiterMhaFwdNames[];
extern const char* const kAiterMhaBwdNames[];
extern const char* const kFlashAttnV3ForwardNames[];
extern const char* const kEvoformerAttentionNames[];
extern const char* const kSdpaFwdCategoryOnlyNames[];
extern const char* const kSdpaBwdCategoryOnlyNames[];
extern const char* const kInferenceAttentionNames[];
extern const char* const kStoreCacheNames[];
extern const char* const kKvCacheWriteNames[];

}  // namespace traceprism::plugins::sdpa
