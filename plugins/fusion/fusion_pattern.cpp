#include "fusion_pattern.hpp"

#include <algorithm>

#include "name_text.hpp"

namespace traceprism::plugins::fusion {
namespace {

std::size_t count_named(const FusionEstimate& e, std::initializer_list<std::string_view> parts) {
  return static_cast<std::size_t>(
      std::count_if(e.kernels.begin(), e.kernels.end(),
                    [&](const EnrichedKernel& k) { return contains_any(lower(k.name), parts); }));
}

}  // namespace

FusionPattern pattern_of(const FusionCandidate& c, const FusionEstimate& e) {
  const std::string name = lower(c.base_name);
  const auto n_matrix =
      static_cast<std::size_t>(std::count_if(e.kernels.begin(), e.kernels.end(), is_matrix_op));
  const bool conv = contains(name, "conv") || count_named(e, {"conv"}) > 0;
  const bool rsqrt = count_named(e, {"rsqrt"}) > 0;
  if (n_matrix >= 2 && count_named(e, {"softmax"}) > 0)
    return {PatternKind::kAttention, "Unfused attention"};
  if (count_named(e, {"moe"}) >= 2 || (contains(name, "moe") && count_named(e, {"moe"}) >= 1))
    return {PatternKind::kMoe, "Unfused MoE"};
  if (rsqrt || e.signals.name == "norm") {
    if (contains_any(name, {"layernorm", "layer_norm"}) ||
        (!contains_any(name, {"rmsnorm", "rms_norm"}) && count_named(e, {"sub"}) > 0 &&
         count_named(e, {"mean"}) > 0))
      return {PatternKind::kLayerNorm, "Unfused LayerNorm"};
    if (contains_any(name, {"batchnorm", "batch_norm"}))
      return {PatternKind::kBatchNorm, "Unfused BatchNorm"};
    if (rsqrt) return {PatternKind::kRmsNorm, "Unfused RMSNorm"};
  }
  if (e.signals.composition == "rope" || (n_matrix == 0 && e.signals.name == "rope"))
    return {PatternKind::kRope, "Unfused RoPE"};
  if (n_matrix > 0 && n_matrix < e.kernels.size() && e.compute_bound)
    return conv ? FusionPattern{PatternKind::kConvEpilogue, "Convolution epilogue"}
                : FusionPattern{PatternKind::kGemmEpilogue, "GEMM epilogue"};
  // No elementwise kernel after a matrix op: they all prepare its inputs.
  if (n_matrix > 0 && n_matrix < e.kernels.size())
    return conv ? FusionPattern{PatternKind::kConvPrologue, "Convolution prologue"}
                : FusionPattern{PatternKind::kGemmPrologue, "GEMM prologue"};
  if (n_matrix > 0) return {PatternKind::kMixed, conv ? "Convolution sequence" : "GEMM sequence"};
  if (count_named(e, {"silu", "swish"}) > 0 && count_named(e, {"mul"}) > 0)
    return {PatternKind::kSwiGlu, "Unfused SiLU/SwiGLU"};
  if (count_named(e, {"gelu", "erf", "tanh"}) >= 2) return {PatternKind::kGelu, "Unfused GELU"};
  return {PatternKind::kElementwiseChain, "Elementwise chain"};
}

}  // namespace traceprism::plugins::fusion
