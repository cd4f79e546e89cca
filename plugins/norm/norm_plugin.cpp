// The norm plugin: op models of the reference's Normalization classes (NORM_fwd / NORM_bwd, sheet
// Normalization) and of the extension RMSNorm family (category and sheet RMSNorm).
// Its analyzer, norm-efficiency, is the compute-tier analysis of these categories (plugins/common).
#include <traceprism/sdk.hpp>

#include "../common/compute_analyzer.hpp"
#include "norm_models.hpp"

namespace nm = traceprism::plugins::norm;

TRACEPRISM_OP_MODELS(
    traceprism::op_model<&nm::model_batch_norm>("norm-batch-norm", "batch norm forward",
                                                nm::kBatchNormOpNames),
    traceprism::op_model<&nm::model_batch_norm_backward>("norm-batch-norm-bwd",
                                                         "batch norm backward",
                                                         nm::kBatchNormBackwardOpNames),
    traceprism::op_model<&nm::model_layer_norm>("norm-layer-norm", "layer norm forward",
                                                nm::kLayerNormOpNames),
    traceprism::op_model<&nm::model_layer_norm_backward>("norm-layer-norm-bwd",
                                                         "layer norm backward",
                                                         nm::kLayerNormBackwardOpNames),
    traceprism::op_model<&nm::model_group_norm>("norm-group-norm", "group norm forward",
                                                nm::kGroupNormOpNames),
    traceprism::op_model<&nm::model_group_norm_backward>("norm-group-norm-bwd",
                                                         "group norm backward",
                                                         nm::kGroupNormBackwardOpNames),
    traceprism::op_model<&nm::model_instance_norm>("norm-instance-norm", "instance norm forward",
                                                   nm::kInstanceNormOpNames),
    traceprism::op_model<&nm::model_instance_norm_backward>("norm-instance-norm-bwd",
                                                            "instance norm backward (not modelled)",
                                                            nm::kInstanceNormBackwardOpNames),
    traceprism::op_model<&nm::model_fused_rms_norm>("norm-rms-norm", "aten::_fused_rms_norm",
                                                    nm::kFusedRmsNormOpNames),
    traceprism::op_model<&nm::model_rms_norm_backward>("norm-rms-norm-bwd", "RMS norm backward",
                                                       nm::kRmsNormBackwardOpNames),
    traceprism::op_model<&nm::model_fused_ln_modulate>("norm-fused-ln-modulate",
                                                       "primus fused LayerNorm + modulate",
                                                       nm::kFusedLnModulateOpNames),
    traceprism::op_model<&nm::model_fused_ln_modulate_backward>(
        "norm-fused-ln-modulate-bwd", "primus fused LayerNorm + modulate backward",
        nm::kFusedLnModulateBackwardOpNames),
    traceprism::op_model<&nm::model_aiter_rms_norm>("rmsnorm-aiter-rms-norm", "aiter RMSNorm",
                                                    nm::kAiterRmsNormOpNames),
    traceprism::op_model<&nm::model_aiter_rmsnorm>("rmsnorm-aiter-rmsnorm",
                                                   "aiter RMSNorm with an out tensor",
                                                   nm::kAiterRmsnormOpNames),
    traceprism::op_model<&nm::model_rmsnorm_with_add>("rmsnorm-with-add",
                                                      "fused residual add + RMSNorm",
                                                      nm::kRmsNormWithAddOpNames),
    traceprism::op_model<&nm::model_rmsnorm_dynamic_quant>("rmsnorm-dynamic-quant",
                                                           "RMSNorm + per-token fp8 quant",
                                                           nm::kRmsNormDynamicQuantOpNames));

// norm-efficiency: the compute-tier analysis of normalization categories (norm_fwd, norm_bwd,
// rmsnorm; the reference's norm-analyzer, norm_analysis.py). Page:
// docs/analyzers/norm/norm-efficiency.md.
TRACEPRISM_ANALYZERS(
    traceprism::analyzer<
        traceprism::plugins::compute::FamilyAnalyzer<traceprism::plugins::compute::Family::kNorm>>(
        "norm-efficiency",
        "Roofline efficiency and impact of normalization ops (norm_fwd, norm_bwd, rmsnorm).",
        traceprism::plugins::compute::kComputeOptions,
        traceprism::plugins::compute::kComputeDependencies));

TRACEPRISM_PLUGIN_WITH_OP_MODELS("norm", "1.0.0");
