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

}  // namespace traceprism::plugins::fusion
