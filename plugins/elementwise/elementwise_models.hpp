// Op models of the elementwise family (perf-model spec §8.1, §8.2, §9.3, §9.4): the reference's
// UnaryElementwise and BinaryElementwise classes (category "elementwise"), the gated activations of
// the pseudo-op extensions, FusedRoPEFunc (RoPE_fwd) and CrossEntropyFunction (CrossEntropy_fwd).
// Pure functions of the op call; each sets the category first, so it counts even when the rest
// throws (BadArgs: the reference's failed perf metrics; NotModelled: its NotImplementedError).
#pragma once

#include <traceprism/op_model.hpp>

namespace traceprism::plugins::elementwise {

// ---- UnaryElementwise (sheet UnaryElementwise) -------------------------------------------------
// aten_unary_elementwise: copy/copy_, clamp_min/max(_), sigmoid, rsqrt, silu, neg, pow.
void model_unary(const OpCall& call, OpModelResult& r);
// aten::replication_pad{1,2,3}d(x, pad).
void model_replication_pad(const OpCall& call, OpModelResult& r);
// aten::upsample_nearest{1,2,3}d(x, output_size, ...).
void model_upsample_nearest(const OpCall& call, OpModelResult& r);
// primus_turbo(_cpp_extension)::quantize_fp8_tensorwise: bf16 -> e4m3fnuz.
void model_quantize_fp8_tensorwise(const OpCall& call, OpModelResult& r);
// quantize_mxfp4_dual: rowwise + colwise packed fp4 and their E8M0 scales.
void model_quantize_mxfp4_dual(const OpCall& call, OpModelResult& r);
// Gated activations (out, input) of the extensions: 5 / 8 / 10 FLOPs per output element.
void model_silu_and_mul(const OpCall& call, OpModelResult& r);
void model_gelu_and_mul(const OpCall& call, OpModelResult& r);
void model_gelu_tanh_and_mul(const OpCall& call, OpModelResult& r);

// ---- BinaryElementwise (sheet BinaryElementwise) -----------------------------------------------
// aten_binary_elementwise: div(_), mul(_), add(_), sigmoid_backward, threshold_backward.
void model_binary(const OpCall& call, OpModelResult& r);
// LigerSiLUMulFunction(a, b).
void model_liger_silu_mul(const OpCall& call, OpModelResult& r);

// ---- RoPE / CrossEntropy -----------------------------------------------------------------------
void model_fused_rope(const OpCall& call, OpModelResult& r);        // FusedRoPEFunc
void model_rotary_embedding(const OpCall& call, OpModelResult& r);  // sgl_kernel::rotary_embedding
void model_fused_rope_backward(const OpCall& call, OpModelResult& r);     // category only
void model_cross_entropy(const OpCall& call, OpModelResult& r);           // CrossEntropyFunction
void model_cross_entropy_backward(const OpCall& call, OpModelResult& r);  // category only

// NULL-terminated op-name tables, one per model function above.
extern const char* const kUnaryOpNames[];
extern const char* const kReplicationPadOpNames[];
extern const char* const kUpsampleNearestOpNames[];
extern const char* const kQuantizeFp8TensorwiseOpNames[];
extern const char* const kQuantizeMxfp4DualOpNames[];
extern const char* const kSiluAndMulOpNames[];
extern const char* const kGeluAndMulOpNames[];
extern const char* const kGeluTanhAndMulOpNames[];
extern const char* const kBinaryOpNames[];
extern const char* const kLigerSiluMulOpNames[];
extern const char* const kFusedRopeOpNames[];
extern const char* const kRotaryEmbeddingOpNames[];
extern const char* const kFusedRopeBackwardOpNames[];
extern const char* const kCrossEntropyOpNames[];
extern const char* const kCrossEntropyBackwardOpNames[];

}  // namespace traceprism::plugins::elementwise
