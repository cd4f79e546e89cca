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
  std::size_t loaded_ranks = 0;
  std::int64_t world_size = 0;
  bool allow_partial = false;  // --allow-partial: P-items below 50% rank coverage too
};

// The `xrank-straggler` analyzer's outcome (multi-rank.md §9.2): one System card when the
// figures flag stragglers, none otherwise; skipped, with the reason, below 50% coverage.
findings::AnalyzerOutcome straggler_outcome(const CrossRankFigures& figures,
                                            std::span<const RankInput> ranks,
                                            const CrossRankContext& context);

}  // namespace traceprism::multirank
