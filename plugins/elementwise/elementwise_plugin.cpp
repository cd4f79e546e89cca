// The elementwise plugin: op models of the reference's UnaryElementwise / BinaryElementwise
// classes (category "elementwise"), the gated activations, fused RoPE and fused cross entropy.
// Its analyzer, elementwise-efficiency, is the compute-tier analysis of these categories
// (plugins/common).
#include <traceprism/sdk.hpp>

#include "../common/compute_analyzer.hpp"
#include "elementwise_models.hpp"

namespace ew = traceprism::plugins::elementwise;

TRACEPRISM_OP_MODELS(
    traceprism::op_model<&ew::model_unary>("elementwise-unary",
                                           "aten unary elementwise ops (copy_, pow, silu, ...)",
                                           ew::kUnaryOpNames),
    traceprism::op_model<&ew::model_replication_pad>("elementwise-replication-pad",
                                                     "aten::replication_pad{1,2,3}d",
                                                     ew::kReplicationPadOpNames),
    traceprism::op_model<&ew::model_upsample_nearest>("elementwise-upsample-nearest",
                                                      "aten::upsample_nearest{1,2,3}d",
                                                      ew::kUpsampleNearestOpNames),
    traceprism::op_model<&ew::model_quantize_fp8_tensorwise>("elementwise-quantize-fp8-tensorwise",
                                                             "primus_turbo tensorwise fp8 quantize",
                                                             ew::kQuantizeFp8TensorwiseOpNames),
    traceprism::op_model<&ew::model_quantize_mxfp4_dual>("elementwise-quantize-mxfp4-dual",
                                                         "rowwise + colwise mxfp4 quantize",
                                                         ew::kQuantizeMxfp4DualOpNames),
    traceprism::op_model<&ew::model_silu_and_mul>("elementwise-silu-and-mul", "gated SiLU",
                                                  ew::kSiluAndMulOpNames),
    traceprism::op_model<&ew::model_gelu_and_mul>("elementwise-gelu-and-mul", "gated GELU (erf)",
                                                  ew::kGeluAndMulOpNames),
    traceprism::op_model<&ew::model_gelu_tanh_and_mul>("elementwise-gelu-tanh-and-mul",
                                                       "gated GELU (tanh)",
                                                       ew::kGeluTanhAndMulOpNames),
    traceprism::op_model<&ew::model_binary>("elementwise-binary",
                                            "aten binary elementwise ops (add, mul, div, ...)",
                                            ew::kBinaryOpNames),
    traceprism::op_model<&ew::model_liger_silu_mul>("elementwise-liger-silu-mul",
                                                    "Liger fused SiLU(a) * b",
                                                    ew::kLigerSiluMulOpNames),
    traceprism::op_model<&ew::model_fused_rope>("rope-fused-rope-fwd",
                                                "TransformerEngine fused RoPE",
                                                ew::kFusedRopeOpNames),
    traceprism::op_model<&ew::model_rotary_embedding>(
        "rope-rotary-embedding", "SGLang rotary embedding of query and key in place",
        ew::kRotaryEmbeddingOpNames),
    traceprism::op_model<&ew::model_fused_rope_backward>("rope-fused-rope-bwd",
                                                         "fused RoPE backward (category only)",
                                                         ew::kFusedRopeBackwardOpNames),
    traceprism::op_model<&ew::model_cross_entropy>("cross-entropy-fwd",
                                                   "fused softmax + cross entropy",
                                                   ew::kCrossEntropyOpNames),
    traceprism::op_model<&ew::model_cross_entropy_backward>(
        "cross-entropy-bwd", "fused cross entropy backward (category only)",
        ew::kCrossEntropyBackwardOpNames));

// elementwise-efficiency: the compute-tier analysis of the elementwise category (the reference's
// elementwise-analyzer, elementwise_analysis.py). Page:
// docs/analyzers/elementwise/elementwise-efficiency.md.
TRACEPRISM_ANALYZERS(traceprism::analyzer<traceprism::plugins::compute::FamilyAnalyzer<
                         traceprism::plugins::compute::Family::kElementwise>>(
    "elementwise-efficiency",
    "Roofline efficiency and impact of elementwise ops against the HBM bandwidth.",
    traceprism::plugins::compute::kComputeOptions,
    traceprism::plugins::compute::kComputeDependencies));

TRACEPRISM_PLUGIN_WITH_OP_MODELS("elementwise", "1.0.0");
