// reduce-efficiency: the compute-tier analysis of the reduce category (the reference's
// reduce-analyzer, reduce_analysis.py). Page: docs/analyzers/reduce/reduce-efficiency.md.
#pragma once

#include <traceprism/sdk.hpp>

#include "../common/compute_analyzer.hpp"

namespace traceprism::plugins::reduce {

class ReduceEfficiency : public traceprism::Analyzer {
 public:
  explicit ReduceEfficiency(traceprism::Context& ctx)
      : settings_(traceprism::compute::compute_settings(ctx)) {}
  traceprism::Status run(traceprism::Context& ctx) override;

 private:
  traceprism::compute::ComputeSettings settings_;
};

}  // namespace traceprism::plugins::reduce
