// The "comm" analyzer: collective communication on the GPU timeline.
//
// Figures: the reference's multi_kernel_data.json communication numbers (nccl_summary.*, the
// comm half of overlap_analysis.*) and the nccl_blocking_assessment / overlap_assessment of
// multi_kernel_metrics.json, over the GPU events linked to a launch.
// Findings (category "comm"): "exposed-comm" and "poor-overlap". See docs/analyzers/comm/comm.md.
#pragma once

#include <traceprism/sdk.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace traceprism_comm {

class CommAnalyzer : public traceprism::Analyzer {
 public:
  explicit CommAnalyzer(traceprism::Context& ctx);
  traceprism::Status run(traceprism::Context& ctx) override;

 private:
  traceprism::Table collective_table(const traceprism::Context& ctx,
                                     const std::vector<traceprism::Row>& top) const;
  static bool looks_like_training(const traceprism::Context& ctx);

  double exposed_percent_threshold_;
  double overlap_ratio_threshold_;
  double min_comm_time_us_;
  std::int64_t top_collectives_;
};

}  // namespace traceprism_comm
