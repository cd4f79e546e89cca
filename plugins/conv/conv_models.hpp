// Convolution op models (perf-model spec §6) and the SSM models built on a convolution (§9.2,
// §9.5): FLOPs and bytes read from the op's shape args the way the reference (TraceLens
// PerfModel) reads them, quirks included (§14 Q4, Q9). Pure functions: no host access.
#pragma once

#include <traceprism/op_model.hpp>

namespace traceprism::plugins::conv {

// aten::convolution: CONV_fwd, bwd CONV_bwd (r.backward holds the §6 backward formulas), sheet
// CONV.
void model_convolution(const OpCall& call, OpModelResult& r);
// aten::convolution_backward: CONV_bwd; its FLOPs/bytes are the backward formulas.
void model_convolution_backward(const OpCall& call, OpModelResult& r);
// ConvBias_ / ConvBiasReLU_: bias always counted; stride and padding are scalars.
void model_conv_bias(const OpCall& call, OpModelResult& r);
// ConvBias_Backward / ConvBiasReLU_Backward: CONV_bwd. Their shapes live only on the forward
// op with the same Sequence number, which a pure model cannot see: always fails (BadArgs),
// as the reference does on a cache miss. The forward's r.backward carries these numbers.
void model_conv_bias_backward(const OpCall& call, OpModelResult& r);
// PyTorch <= 1.10 conv-backward ops (no reference model): CONV_bwd, sheet CONV, one convolution's
// FLOPs (2·prod(grad_output)·prod(w[1:])) per gradient computed.
// *_backward_input(self_size, grad_output, weight, ...): the input gradient only.
void model_legacy_conv_backward_input(const OpCall& call, OpModelResult& r);
// *_backward_weight(weight_size, grad_output, self, ...): the weight gradient only; needs the
// weight size from Concrete Inputs.
void model_legacy_conv_backward_weight(const OpCall& call, OpModelResult& r);
// cudnn/miopen_convolution_backward, thnn/slow_conv2d_backward: the gradients of output_mask.
void model_legacy_conv_backward_both(const OpCall& call, OpModelResult& r);
// aten::cudnn_convolution / aten::miopen_convolution: CONV_fwd, category only.
void model_conv_category_only(const OpCall& call, OpModelResult& r);

// DaoAILab::_causal_conv1d_fwd_cpp: SSM_fwd, no backward, sheet SSM.
void model_causal_conv1d_fwd(const OpCall& call, OpModelResult& r);
// MambaSplitConv1dScanCombinedFn (Mamba-2 SSD): SSM_fwd, bwd SSM_bwd (= the forward numbers).
void model_mamba_ssd_fwd(const OpCall& call, OpModelResult& r);
// DaoAILab::_causal_conv1d_bwd_cpp / MambaSplitConv1dScanCombinedFnBackward: SSM_bwd, category
// only.
void model_ssm_bwd_category_only(const OpCall& call, OpModelResult& r);

// NULL-terminated op-name tables, one per model function.
extern const char* const kConvolutionNames[];
extern const char* const kConvolutionBackwardNames[];
extern const char* const kConvBiasNames[];
extern const char* const kConvBiasBackwardNames[];
extern const char* const kConvCategoryOnlyNames[];
extern const char* const kLegacyConvBackwardInputNames[];
extern const char* const kLegacyConvBackwardWeightNames[];
extern const char* const kLegacyConvBackwardBothNames[];
extern const char* const kCausalConv1dFwdNames[];
extern const char* const kMambaSsdFwdNames[];
extern const char* const kSsmBwdCategoryOnlyNames[];

}  // namespace traceprism::plugins::conv
