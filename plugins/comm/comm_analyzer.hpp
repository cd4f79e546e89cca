// The "comm" analyzer: collective communication on the GPU timeline (diagnosis.md §4).
//
// Figures: the reference's communication numbers, kept for parity (reference_figures.hpp), and
// per collective type over the GPU timeline's event set (collectives.*). Finding (category
// "comm", cause "exposed_comm"): "exposed-comm", when exposed communication is material, with
// the action aimed at the types that hold it. See docs/analyzers/comm/comm.md.
#pragma once

#include <traceprism/sdk.hpp>

#include <cstdint>
#include <optional>

#include "collective_stats.hpp"

namespace traceprism::plugins::comm {

class CommAnalyzer : public Analyzer {
 public:
  explicit CommAnalyzer(Context& ctx);
  Status run(Context& ctx) override;

 private:
  static void record_types(Context& ctx, const CollectiveStats& stats, double e2e_us);
  void report_exposed(Context& ctx, const CollectiveStats& stats, const Timeline& t) const;
  static bool looks_like_training(const Context& ctx);

  double material_percent_;
  double many_per_step_;
  std::int64_t top_collectives_;
};

// The analyzer's options with their defaults (the one place each default is written).
inline constexpr traceprism_option_v1 kCommOptions[] = {
    {"MaterialExposedPercent", "2",
     "exposed-comm fires when exposed communication is at least this % of E2E; a type other "
     "than the most exposed one gets its own advice from this % of E2E."},
    {"ManyCollectivesPerStep", "8",
     "From this many all-reduces per step (mostly on the LL protocol) they are many small ones."},
    {"TopCollectives", "10", "Collectives listed as evidence (longest first)."},
};

}  // namespace traceprism::plugins::comm
