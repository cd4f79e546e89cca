// elementwise-efficiency: the compute-tier analysis of the elementwise category (the reference's
// elementwise-analyzer, elementwise_analysis.py). Page:
// docs/analyzers/elementwise/elementwise-efficiency.md.
#pragma once

#include <traceprism/sdk.hpp>

#include "../common/compute_analyzer.hpp"

namespace traceprism::plugins::elementwise {

class ElementwiseEfficiency : public traceprism::Analyzer {
 public:
  explicit ElementwiseEfficiency(traceprism::Context& ctx)
      : settings_(traceprism::compute::compute_settings(ctx)) {}
  traceprism::Status run(traceprism::Context& ctx) override;

 private:
  traceprism::compute::ComputeSettings settings_;
};

}  // namespace traceprism::plugins::elementwise
