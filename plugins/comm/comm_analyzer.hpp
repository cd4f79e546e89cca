// The "comm" analyzer: collective communication on the GPU timeline.
//
// Figures: the reference's multi_kernel_data.json communication numbers (nccl_summary.*, the
// comm half of overlap_analysis.*) and the nccl_blocking_assessment / overlap_assessment of
// multi_kernel_metrics.json, over the GPU events linked to a launch.
// Findings (category "comm"): "exposed-comm" and "poor-overlap". See docs/analyzers/comm/comm.md.
#pragma once

#include <traceprism/sdk.hpp>

#include <cstdint>
#include <vector>

namespace traceprism::plugins::comm {

class CommAnalyzer : public Analyzer {
 public:
  explicit CommAnalyzer(Context& ctx);
  Status run(Context& ctx) override;

 private:
  struct Overlap;    // overlap_analysis, the comm half
  struct Checks;     // which of the two assessments fire
  struct Narrative;  // what both findings say about the collectives

  static void record_summary(Context& ctx, const std::vector<Row>& collectives,
                             const std::vector<Row>& longest);
  static Overlap record_overlap(Context& ctx);
  Checks assess(Context& ctx, const Overlap& overlap) const;
  Narrative narrate(const Context& ctx, const std::vector<Row>& collectives,
                    const std::vector<Row>& longest, const Overlap& overlap) const;
  void report_exposed_comm(Context& ctx, const Overlap& overlap, bool poor_overlap,
                           const Narrative& story) const;
  void report_poor_overlap(Context& ctx, const Overlap& overlap, const Narrative& story) const;
  static Table collective_table(const Context& ctx, const std::vector<Row>& rows);
  static bool looks_like_training(const Context& ctx);

  double exposed_percent_threshold_;
  double overlap_ratio_threshold_;
  double min_comm_time_us_;
  std::int64_t top_collectives_;
};

// The analyzer's options with their defaults (the one place each default is written).
inline constexpr traceprism_option_v1 kCommOptions[] = {
    {"ExposedCommPercentThreshold", "5",
     "exposed-comm fires when exposed communication is above this % of the E2E span."},
    {"OverlapRatioThreshold", "0.70",
     "poor-overlap fires when the compute/communication overlap ratio is below this."},
    {"MinCommTimeUs", "100", "poor-overlap needs at least this much communication time (µs)."},
    {"TopCollectives", "10", "Collectives listed as evidence (longest first)."},
};

}  // namespace traceprism::plugins::comm
