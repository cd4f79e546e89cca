// generic-ops: the compute-tier analysis of every op category that has no dedicated analyzer
// (the reference's generic-op-analyzer, other_analysis.py). Page:
// docs/analyzers/generic/generic-ops.md.
#pragma once

#include <traceprism/sdk.hpp>

#include "../common/compute_analyzer.hpp"

namespace generic {

class GenericOps : public traceprism::Analyzer {
 public:
  explicit GenericOps(traceprism::Context& ctx)
      : settings_(traceprism::compute::compute_settings(ctx)) {}
  traceprism::Status run(traceprism::Context& ctx) override;

 private:
  traceprism::compute::ComputeSettings settings_;
};

}  // namespace generic
