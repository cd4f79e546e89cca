// The convolution op models (perf-model spec §6) and the SSM models (§9.2, §9.5).
// Its analyzer, conv-efficiency, is the compute-tier analysis of these categories (plugins/common).
#include <traceprism/sdk.hpp>

#include "../common/compute_analyzer.hpp"
#include "conv_models.hpp"

namespace conv = traceprism::plugins::conv;
using traceprism::op_model;

TRACEPRISM_OP_MODELS(
    op_model<&conv::model_convolution>("conv-aten", "aten::convolution, with its backward",
                                       conv::kConvolutionNames),
    op_model<&conv::model_convolution_backward>("conv-aten-backward", "aten::convolution_backward",
                                                conv::kConvolutionBackwardNames),
    op_model<&conv::model_conv_bias>("conv-bias", "fused ConvBias_ / ConvBiasReLU_",
                                     conv::kConvBiasNames),
    op_model<&conv::model_conv_bias_backward>("conv-bias-backward",
                                              "ConvBias*_Backward (category only in practice)",
                                              conv::kConvBiasBackwardNames),
    op_model<&conv::model_legacy_conv_backward_input>(
        "conv-legacy-backward-input", "PyTorch <= 1.10 *_convolution_backward_input",
        conv::kLegacyConvBackwardInputNames),
    op_model<&conv::model_legacy_conv_backward_weight>(
        "conv-legacy-backward-weight", "PyTorch <= 1.10 *_convolution_backward_weight",
        conv::kLegacyConvBackwardWeightNames),
    op_model<&conv::model_legacy_conv_backward_both>(
        "conv-legacy-backward", "PyTorch <= 1.10 cudnn/miopen/thnn/slow conv backward",
        conv::kLegacyConvBackwardBothNames),
    op_model<&conv::model_conv_category_only>("conv-category-only",
                                              "cuDNN / MIOpen convolution: CONV_fwd timing only",
                                              conv::kConvCategoryOnlyNames),
    op_model<&conv::model_causal_conv1d_fwd>("ssm-causal-conv1d", "DaoAILab causal conv1d",
                                             conv::kCausalConv1dFwdNames),
    op_model<&conv::model_mamba_ssd_fwd>("ssm-mamba-ssd", "Mamba-2 SSD fused conv1d + scan",
                                         conv::kMambaSsdFwdNames),
    op_model<&conv::model_ssm_bwd_category_only>("ssm-bwd-category-only",
                                                 "SSM backward ops: SSM_bwd timing only",
                                                 conv::kSsmBwdCategoryOnlyNames));

// conv-efficiency: the compute-tier analysis of convolution categories (conv_fwd, conv_bwd; the
// reference's convolution-analyzer, convolution_analysis.py). Page:
// docs/analyzers/conv/conv-efficiency.md.
TRACEPRISM_ANALYZERS(
    traceprism::analyzer<
        traceprism::plugins::compute::FamilyAnalyzer<traceprism::plugins::compute::Family::kConv>>(
        "conv-efficiency",
        "Roofline efficiency and impact of convolutions (conv_fwd, conv_bwd), with the transpose "
        "overhead.",
        traceprism::plugins::compute::kComputeOptions,
        traceprism::plugins::compute::kComputeDependencies));

TRACEPRISM_PLUGIN_WITH_OP_MODELS("conv", "1.0.0");
