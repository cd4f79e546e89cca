#pragma once

#include <cstdint>
#include <span>

#include "findings/finding.hpp"
#include "multirank/cross_rank_figures.hpp"

namespace traceprism::multirank {

// What the report needs besides the figures: the focus rank's end-to-end time (impacts are
// shares of it, §9.1) and how many of the job's ranks were analysed.
struct CrossRankContext {
  std::int64_t e2e_ns = 0;
  std::int64_t sum_e2e_ns = 0;  // over the analysed ranks: what Σ exposed wait is a share of
  std::size_t loaded_ranks = 0;
  std::int64_t world_size = 0;
  bool allow_partial = false;  // --allow-partial: P-items below 50% rank coverage too
};

// A cross-rank analyzer's outcome (plugin `host`): skipped, with the reason, below 50% rank
// coverage (§5.4) unless context.allow_partial.
findings::AnalyzerOutcome cross_rank_outcome(const char* name, const CrossRankContext& context);
// A System card of `out` in category multi_rank.
findings::Finding cross_rank_finding(const findings::AnalyzerOutcome& out, const char* key,
                                     findings::ImpactKind impact_kind);

// The `xrank-straggler` analyzer's outcome (multi-rank.md §9.2): one System card when the
// figures flag stragglers, none otherwise; skipped, with the reason, below 50% coverage.
findings::AnalyzerOutcome straggler_outcome(const CrossRankFigures& figures,
                                            std::span<const RankInput> ranks,
                                            const CrossRankContext& context);

// The `xrank-arrival-jitter` analyzer's outcome (§9.2 `arrival-jitter`): with no straggler,
// the ranks' exposed waiting at collectives (Σ over ranks) reaching `min_wait_percent` of their
// summed end-to-end time: a System card with the late-arrival impact over every skewed
// collective.
findings::AnalyzerOutcome arrival_jitter_outcome(const CrossRankFigures& figures,
                                                 const CrossRankContext& context,
                                                 double min_wait_percent = 2.0);

}  // namespace traceprism::multirank
