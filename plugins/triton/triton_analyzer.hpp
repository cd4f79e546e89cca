// triton-efficiency: the compute-tier analysis of the triton category (the reference's
// triton-analyzer, triton_analysis.py, which computes no impact: findings only with
// QuantifyImpact). Page: docs/analyzers/triton/triton-efficiency.md.
#pragma once

#include <traceprism/sdk.hpp>

#include "../common/compute_analyzer.hpp"

namespace traceprism::plugins::triton {

class TritonEfficiency : public traceprism::Analyzer {
 public:
  explicit TritonEfficiency(traceprism::Context& ctx)
      : settings_(traceprism::compute::compute_settings(ctx, /*quantify_by_default=*/false)) {}
  traceprism::Status run(traceprism::Context& ctx) override;

 private:
  traceprism::compute::ComputeSettings settings_;
};

}  // namespace traceprism::plugins::triton
