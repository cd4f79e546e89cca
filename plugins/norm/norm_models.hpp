// Op models of the normalization family (perf-model spec §8.3): the reference's Normalization
// classes (category NORM_fwd / NORM_bwd, sheet Normalization) for batch/layer/group/instance norm
// in all their aten name variants, aten::_fused_rms_norm and its backward, primus
// fused_ln_modulate(_backward), and the extension RMSNorm family (category RMSNorm, own sheet).
// Pure functions of the op call; each sets its categories first, so they count even when the rest
// throws (BadArgs: the reference's failed perf metrics; NotModelled: its NotImplementedError).
#pragma once

#include <traceprism/op_model.hpp>

namespace traceprism::plugins::norm {

// ---- core Normalization (NORM_fwd / NORM_bwd) --------------------------------------------------
void model_batch_norm(const OpCall& call, OpModelResult& r);
void model_batch_norm_backward(const OpCall& call, OpModelResult& r);
void model_layer_norm(const OpCall& call, OpModelResult& r);
void model_layer_norm_backward(const OpCall& call, OpModelResult& r);
void model_group_norm(const OpCall& call, OpModelResult& r);  // + aiter::_groupnorm_run
void model_group_norm_backward(const OpCall& call, OpModelResult& r);
void model_instance_norm(const OpCall& call, OpModelResult& r);
void model_instance_norm_backward(const OpCall& call, OpModelResult& r);  // always NotModelled
void model_fused_rms_norm(const OpCall& call, OpModelResult& r);
void model_rms_norm_backward(const OpCall& call, OpModelResult& r);
void model_fused_ln_modulate(const OpCall& call, OpModelResult& r);
void model_fused_ln_modulate_backward(const OpCall& call, OpModelResult& r);

// ---- extension RMSNorm family (category RMSNorm, sheet RMSNorm) --------------------------------
// aiter::rms_norm(x, weight, eps, ...) and aiter::rmsnorm2d_fwd_ck.
void model_aiter_rms_norm(const OpCall& call, OpModelResult& r);
// aiter::rmsnorm(out, input, weight, eps).
void model_aiter_rmsnorm(const OpCall& call, OpModelResult& r);
// Fused residual add + RMSNorm: (out, input, residual_in, residual_out, weight, eps, ...).
void model_rmsnorm_with_add(const OpCall& call, OpModelResult& r);
// RMSNorm + per-token fp8 quant: (out, input, yscale, weight, eps, ...).
void model_rmsnorm_dynamic_quant(const OpCall& call, OpModelResult& r);

// NULL-terminated op-name tables, one per model function above.
extern const char* const kBatchNormOpNames[];
extern const char* const kBatchNormBackwardOpNames[];
extern const char* const kLayerNormOpNames[];
extern const char* const kLayerNormBackwardOpNames[];
extern const char* const kGroupNormOpNames[];
extern const char* const kGroupNormBackwardOpNames[];
extern const char* const kInstanceNormOpNames[];
extern const char* const kInstanceNormBackwardOpNames[];
extern const char* const kFusedRmsNormOpNames[];
extern const char* const kRmsNormBackwardOpNames[];
extern const char* const kFusedLnModulateOpNames[];
extern const char* const kFusedLnModulateBackwardOpNames[];
extern const char* const kAiterRmsNormOpNames[];
extern const char* const kAiterRmsnormOpNames[];
extern const char* const kRmsNormWithAddOpNames[];
extern const char* const kRmsNormDynamicQuantOpNames[];

}  // namespace traceprism::plugins::norm
