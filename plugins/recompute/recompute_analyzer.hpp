// The "recompute" analyzer: activation-checkpoint recompute (diagnosis.md §6.3).
//
// Under activation checkpointing the forward ops of a checkpointed block run again inside the
// backward pass (reentrant: under the CheckpointFunctionBackward node; non-reentrant: under the
// torch/utils/checkpoint.py frames of the saved-tensor unpack hook). Figures (recompute.*): the
// recomputed kernels, their GPU time and shares. Finding (compute tier, category and cause
// "recompute", impact in % of E2E) when the recomputed GPU time is at least 2 % of
// computation: the recomputed ops and "use selective activation checkpointing". No backward
// pass or no checkpoint region: no finding. See docs/analyzers/recompute/recompute.md.
#pragma once

#include <traceprism/sdk.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "recomputed_kernels.hpp"

namespace traceprism::plugins::recompute {

class RecomputeAnalyzer : public Analyzer {
 public:
  explicit RecomputeAnalyzer(Context& ctx);
  Status run(Context& ctx) override;

 private:
  struct Measure;  // the recomputed GPU time and its shares
  struct OpGroup;  // the recomputed calls of one op (name, shapes, rerun op)

  static Measure measure(const Context& ctx, const RecomputeScan& scan);
  static void record(Context& ctx, const RecomputeScan& scan, const Measure& m);
  static std::vector<OpGroup> group_by_op(const Context& ctx, const RecomputeScan& scan);
  void report(Context& ctx, const RecomputeScan& scan, const Measure& m) const;
  Table ops_table(const std::vector<OpGroup>& groups, const Measure& m) const;
  static std::string insight(const RecomputeScan& scan, const Measure& m,
                             const std::vector<OpGroup>& groups);
  static double matrix_attention_percent(const std::vector<OpGroup>& groups);

  double computation_percent_;
  std::int64_t table_rows_;
  std::int64_t max_evidence_rows_;
};

// Recoverable share of the recomputed time (low, mid, high), docs/analyzers/recompute/recompute.md.
inline constexpr double kRecomputeRecovery[3] = {0.50, 0.75, 0.95};

// The analyzer's options with their defaults (the one place each default is written).
inline constexpr traceprism_option_v1 kRecomputeOptions[] = {
    {"ComputationPercentThreshold", "2",
     "Report recompute when its GPU time is at least this % of computation."},
    {"TableRows", "10", "Rows in the finding's table of recomputed ops."},
    {"MaxEvidenceRows", "200", "Evidence rows kept (recomputed kernels, longest first)."},
};

}  // namespace traceprism::plugins::recompute
