// moe-efficiency: the compute-tier analysis of MoE categories (moe_fused, moe_unfused; the
// reference's moe-analyzer, moe_analysis.py). Page: docs/analyzers/moe/moe-efficiency.md.
#pragma once

#include <traceprism/sdk.hpp>

#include "../common/compute_analyzer.hpp"

namespace traceprism::plugins::moe {

class MoeEfficiency : public traceprism::Analyzer {
 public:
  explicit MoeEfficiency(traceprism::Context& ctx)
      : settings_(traceprism::compute::compute_settings(ctx)) {}
  traceprism::Status run(traceprism::Context& ctx) override;

 private:
  traceprism::compute::ComputeSettings settings_;
};

}  // namespace traceprism::plugins::moe
