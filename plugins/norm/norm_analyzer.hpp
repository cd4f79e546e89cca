// norm-efficiency: the compute-tier analysis of normalization categories (norm_fwd, norm_bwd,
// rmsnorm; the reference's norm-analyzer, norm_analysis.py). Page:
// docs/analyzers/norm/norm-efficiency.md.
#pragma once

#include <traceprism/sdk.hpp>

#include "../common/compute_analyzer.hpp"

namespace traceprism::plugins::norm {

class NormEfficiency : public traceprism::Analyzer {
 public:
  explicit NormEfficiency(traceprism::Context& ctx)
      : settings_(traceprism::compute::compute_settings(ctx)) {}
  traceprism::Status run(traceprism::Context& ctx) override;

 private:
  traceprism::compute::ComputeSettings settings_;
};

}  // namespace traceprism::plugins::norm
