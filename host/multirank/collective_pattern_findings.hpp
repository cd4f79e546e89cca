// The cross-rank items about how the job's collectives are shaped rather than who is late
// (multi-rank.md §9.2 `small-collectives`, `alltoall-imbalance`, `pipeline-wait`): many
// latency-bound small collectives, all-to-alls whose per-rank volume is uneven (MoE routing),
// and pipeline stages that wait for their upstream stage's sends. Each is one analyzer (plugin
// `host`) with at most one System card; each is skipped, with the reason, below 50% rank
// coverage (cross_rank_outcome). Pure functions of the matched collectives and their figures.
#pragma once

#include <cstdint>
#include <map>
#include <span>

#include "findings/finding.hpp"
#include "model/collective_instance.hpp"
#include "multirank/collective_matching.hpp"
#include "multirank/cross_rank_figures.hpp"
#include "multirank/cross_rank_findings.hpp"

namespace traceprism::multirank {

// Thresholds of §9.2 (defaults are the spec's).
struct CollectivePatternOptions {
  // small-collectives: S < small_message_bytes, at least min_small_per_step of them per step
  // (median over the ranks), their exposed transfer time ≥ min_small_exposed_percent of E2E.
  std::int64_t small_message_bytes = std::int64_t{1} << 20;
  double min_small_per_step = 20;
  double min_small_exposed_percent = 2.0;
  // alltoall-imbalance: median over alltoallv instances of max / mean per-rank in bytes ≥
  // min_alltoall_imbalance, and their exposed wall time ≥ min_alltoall_exposed_percent of E2E.
  double min_alltoall_imbalance = 1.5;
  double min_alltoall_exposed_percent = 1.0;
  // pipeline-wait: a stage's late-sender exposed wait ≥ min_pipeline_wait_percent of E2E.
  double min_pipeline_wait_percent = 3.0;
};

// S of §7.2 for the analyzers here: collective_message_bytes, and for alltoallv (which §7.2
// sizes per rank) the instance's own in bytes (in_bytes, else in_nelems × dtype bytes). -1 when
// unknown.
std::int64_t pattern_message_bytes(const model::CollectiveInstance& instance);

// `xrank-small-collectives` (key `small-collectives`). Small = S < 1 MiB (send/recv and kinds
// without a size are left out). Per rank: its small instances in profiler steps / its number of
// steps (the whole trace counts as one step for a rank without steps); N = the median over the
// ranks. Exposed time = Σ over complete small collectives (figures.instances, once per matched
// collective) of T × x_c. Fires when N ≥ 20 and that time ≥ 2% of context.e2e_ns. Title "N
// small <kind>s per step spend X% of the step in latency" (<kind>: the one kind when all small
// collectives share it, else "collective"). Impact (heuristic) = X × {0.25, 0.5, 0.75}.
findings::AnalyzerOutcome small_collectives_outcome(std::span<const RankInput> ranks,
                                                    const MatchResult& matches,
                                                    const CrossRankFigures& figures,
                                                    const CrossRankContext& context,
                                                    const CollectivePatternOptions& options = {});

// `xrank-alltoall-imbalance` (key `alltoall-imbalance`). Over complete alltoallv collectives
// whose members all know their in bytes: imbalance = max / mean of the members' in bytes;
// wall = last end − first start on the aligned clocks (corrected = written − clock_offset_ns).
// Fires when the median imbalance ≥ 1.5 and Σ wall × x_c ≥ 1% of E2E. Title "All-to-all volume
// reaches I× the mean on rank(s) R", R = the ranks that hold the largest volume most often
// (ties within an instance: the lowest rank). Impact (quantified) = Σ wall × (1 − mean/max) ×
// x_c × {0.5, 0.75, 1}.
findings::AnalyzerOutcome alltoall_imbalance_outcome(
    std::span<const RankInput> ranks, const MatchResult& matches, const CrossRankFigures& figures,
    const std::map<std::int32_t, std::int64_t>& clock_offset_ns, const CrossRankContext& context,
    const CollectivePatternOptions& options = {});

// `xrank-pipeline-wait` (key `pipeline-wait`). Point-to-point matched collectives (§7.4 pairs,
// sender = key_rank): the receive waits min(max(0, s_send − s_recv), its duration) on the
// aligned clocks; exposed wait = wait × the receive's exposure. Stages: ranks linked by
// matched collectives that contain no send/receive pair (a tensor- or data-parallel group lies
// within one stage); a rank with no such collective is its own stage. A stage's exposed wait is
// the mean over its receiving ranks of their Σ exposed wait. Fires when the largest reaches 3%
// of E2E: "Stage of ranks R waits X% of the step for its upstream stage". Impact (quantified) =
// that exposed wait × {0.5, 0.75, 1}.
findings::AnalyzerOutcome pipeline_wait_outcome(
    std::span<const RankInput> ranks, const MatchResult& matches,
    const std::map<std::int32_t, std::int64_t>& clock_offset_ns, const CrossRankContext& context,
    const CollectivePatternOptions& options = {});

}  // namespace traceprism::multirank
