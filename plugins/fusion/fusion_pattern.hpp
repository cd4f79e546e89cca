// The fusion pattern a candidate shows (analysis-rules §9.7 item 2, the names the reference's
// LLM gives its recommendations): known patterns from the kernel composition and the module's
// name, else a generic elementwise chain.
#pragma once

#include <string>

#include "fusion_candidate.hpp"
#include "fusion_estimate.hpp"

namespace traceprism::plugins::fusion {

enum class PatternKind {
  kAttention,
  kRmsNorm,
  kLayerNorm,
  kBatchNorm,
  kRope,
  kSwiGlu,
  kGelu,
  kGemmEpilogue,
  kConvEpilogue,
  kGemmPrologue,  // elementwise kernels (layout copies, casts) only before the matrix op
  kConvPrologue,
  kMoe,  // mixture-of-experts stages (routing, expert GEMMs, weighted sum) as separate kernels
  kElementwiseChain,
  kMixed,  // matrix ops with something else that fits none of the above
};

struct FusionPattern {
  PatternKind kind = PatternKind::kElementwiseChain;
  std::string label;  // "Unfused RMSNorm", "GEMM epilogue", "Elementwise chain", ...
};

FusionPattern pattern_of(const FusionCandidate& c, const FusionEstimate& e);

}  // namespace traceprism::plugins::fusion
