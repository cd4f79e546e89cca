// The words and tables of a kernel-fusion finding (analysis-rules §10.5 card fields, with the
// §9.7 pattern names as titles).
#pragma once

#include <traceprism/sdk.hpp>

#include <string>

#include "fusion_candidate.hpp"
#include "fusion_estimate.hpp"
#include "fusion_pattern.hpp"

namespace traceprism::plugins::fusion {

struct FusionFindingText {
  std::string title;  // "Unfused RMSNorm in Qwen2RMSNorm"
  std::string insight;
  std::string action;
  std::string identification;
  std::string confidence_reason;  // one clause: why High / Medium / Low
};

// `training`: the trace has a backward pass (traceprism/training.hpp), which rules out advice
// that needs frozen weights or statistics.
FusionFindingText describe(const FusionCandidate& c, const FusionEstimate& e,
                           const FusionPattern& pattern, double baseline_ms, bool training);

// A comparative estimate (§9.5): trace 2's fewer kernels and the measured gap, no roofline.
FusionFindingText describe_comparative(const FusionCandidate& c, const FusionEstimate& e,
                                       const FusionPattern& pattern, double baseline_ms,
                                       bool training);

// A kernel name short enough for a table cell that still says what the kernel computes.
std::string kernel_label(const std::string& name);

// Table "kernels": Kernel, Type, Duration (us), Perf model.
Table kernels_table(const FusionEstimate& e);
// Table "trace 2 kernels" (comparative): Kernel, Type, Duration (us).
Table trace2_kernels_table(const FusionEstimate& e);
// Table "estimate": bound_type, fusion_type, confidence, confidence_reason, estimation.
Table estimate_table(const FusionEstimate& e, const std::string& confidence_reason);

const char* confidence_label(Confidence c);  // "High", "Medium", "Low"

}  // namespace traceprism::plugins::fusion
