// The cross-rank items about ranks that do not pull their weight outside the collectives
// (multi-rank.md §9.2 `idle-outlier` and `step-imbalance`): a rank, or most of a node's ranks,
// whose GPU idles more than its peers; and, in a job whose ranks share no complete collective, a
// rank whose steps take longer than the others'. Both are System cards whose impact is not
// quantifiable from the traces; their share is the excess (idle percentage points, % of the
// median step).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>

#include "findings/finding.hpp"
#include "multirank/cross_rank_figures.hpp"
#include "multirank/cross_rank_findings.hpp"

namespace traceprism::multirank {

// Thresholds of §9.2 (defaults are the spec's).
struct RankBalanceOptions {
  // The robust z test needs this many ranks with data; with fewer neither item fires.
  std::size_t min_ranks = 4;
  double min_z = 3.5;
  // idle-outlier: idle % − median ≥ this many percentage points, z floor in pp.
  double min_idle_excess_pp = 5.0;
  double idle_z_floor_pp = 1.0;
  // A node is an outlier when at least this share of its ranks are, against the ranks of the
  // other nodes (needs at least 2 ranks on the node and `min_node_peers` ranks elsewhere).
  double min_node_rank_share = 0.75;
  std::size_t min_node_peers = 2;
  // step-imbalance: mean step ≥ this × the median step; z floor = this share of the median.
  double min_step_ratio = 1.10;
  double step_z_floor_share = 0.01;
};

// The `xrank-idle-outlier` analyzer's outcome: one System card naming the ranks (or nodes) whose
// GPU idle % (Σ step idle / Σ step GPU span, the whole trace without steps) stands out; none
// otherwise. A rank the figures flag as a straggler with a host cause is left to that card
// (one mechanism, one card); when every outlier is such a rank there is no card. `node_of_rank`
// maps rank → node (§7.6); ranks it lacks are tested on their own only. Skipped, with the
// reason, below 50% rank coverage unless context.allow_partial.
findings::AnalyzerOutcome idle_outlier_outcome(
    std::span<const RankInput> ranks, const CrossRankFigures& figures,
    const std::map<std::int32_t, std::int32_t>& node_of_rank, const CrossRankContext& context,
    const RankBalanceOptions& options = {});

// The `xrank-step-imbalance` analyzer's outcome: only when figures.instances is empty (no
// complete collective, so the ranks never wait for each other), one System card naming the
// ranks whose mean GPU step span is ≥ 1.10 × the median over the ranks with steps, z ≥ 3.5
// (floor 1% of the median step); none otherwise. Same coverage gate as above.
findings::AnalyzerOutcome step_imbalance_outcome(std::span<const RankInput> ranks,
                                                 const CrossRankFigures& figures,
                                                 const CrossRankContext& context,
                                                 const RankBalanceOptions& options = {});

}  // namespace traceprism::multirank
