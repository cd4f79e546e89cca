// sdpa-efficiency: the compute-tier analysis of attention categories (sdpa_fwd, sdpa_bwd,
// inferenceattention; the reference's sdpa-analyzer, sdpa_analysis.py). Page:
// docs/analyzers/sdpa/sdpa-efficiency.md.
#pragma once

#include <traceprism/sdk.hpp>

#include "../common/compute_analyzer.hpp"

namespace traceprism::plugins::sdpa {

class SdpaEfficiency : public traceprism::Analyzer {
 public:
  explicit SdpaEfficiency(traceprism::Context& ctx)
      : settings_(traceprism::compute::compute_settings(ctx)) {}
  traceprism::Status run(traceprism::Context& ctx) override;

 private:
  traceprism::compute::ComputeSettings settings_;
};

}  // namespace traceprism::plugins::sdpa
