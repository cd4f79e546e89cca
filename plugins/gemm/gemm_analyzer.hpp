// gemm-efficiency: the compute-tier analysis of GEMM categories (gemm, groupedgemm_fwd,
// groupedgemm_bwd; the reference's gemm-analyzer, gemm_analysis.py). Page:
// docs/analyzers/gemm/gemm-efficiency.md.
#pragma once

#include <traceprism/sdk.hpp>

#include "../common/compute_analyzer.hpp"

namespace traceprism::plugins::gemm {

class GemmEfficiency : public traceprism::Analyzer {
 public:
  explicit GemmEfficiency(traceprism::Context& ctx)
      : settings_(traceprism::compute::compute_settings(ctx)) {}
  traceprism::Status run(traceprism::Context& ctx) override;

 private:
  traceprism::compute::ComputeSettings settings_;
};

}  // namespace traceprism::plugins::gemm
