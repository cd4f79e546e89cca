// The "kernel-fusion" analyzer (tier Fusion, category kernel_fusion): standalone kernel fusion
// opportunities (analysis-rules §9.1-§9.7). Candidates come from the call tree with python
// frames; estimates project the fused time on the roofline; the spec's proposed reject rule
// drops containers and loops of one op from the findings (the metrics keep them). Publishes
// the high-confidence kernel map (§5.6) for the compute analyzers as the product
// "kernel_fusion.high_confidence_kernel_map". See docs/analyzers/fusion/kernel-fusion.md.
#pragma once

#include <traceprism/sdk.hpp>

#include "fusion_estimate.hpp"
#include "reject_rule.hpp"

namespace traceprism::plugins::fusion {

inline constexpr const char* kKernelMapProduct = "kernel_fusion.high_confidence_kernel_map";

class KernelFusionAnalyzer : public Analyzer {
 public:
  explicit KernelFusionAnalyzer(Context& ctx);
  Status run(Context& ctx) override;

 private:
  FusionSettings settings_;
  RejectSettings reject_;
};

// The analyzer's options with their defaults (the one place each default is written; the
// engine's structs keep the same numbers for callers that use it without the analyzer).
inline constexpr traceprism_option_v1 kFusionOptions[] = {
    {"MaxKernelCount", "15",
     "Candidates with more kernels than this are skipped (too complex to fuse reliably)."},
    {"MinImpactPercent", "2",
     "Candidates below this % of E2E kernel time, and estimates whose best case saves less, "
     "are dropped."},
    {"OverlapEfficiency", "0.85",
     "How much of the fused kernel's memory and compute time overlap (0 none, 1 perfect)."},
    {"RejectContainers", "true",
     "Leave out of the findings estimates for containers (layers, models, entry points) and "
     "for loops of one op (the spec's proposed rule for the reference's LLM judgement)."},
    {"RejectPythonFrames", "false",
     "Also leave out every estimate whose candidate is a Python frame rather than a module."},
};

}  // namespace traceprism::plugins::fusion
