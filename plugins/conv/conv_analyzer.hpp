// conv-efficiency: the compute-tier analysis of convolution categories (conv_fwd, conv_bwd; the
// reference's convolution-analyzer, convolution_analysis.py). Page:
// docs/analyzers/conv/conv-efficiency.md.
#pragma once

#include <traceprism/sdk.hpp>

#include "../common/compute_analyzer.hpp"

namespace traceprism::plugins::conv {

class ConvEfficiency : public traceprism::Analyzer {
 public:
  explicit ConvEfficiency(traceprism::Context& ctx)
      : settings_(traceprism::compute::compute_settings(ctx)) {}
  traceprism::Status run(traceprism::Context& ctx) override;

 private:
  traceprism::compute::ComputeSettings settings_;
};

}  // namespace traceprism::plugins::conv
