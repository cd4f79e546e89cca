#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cli/per_rank_reports.hpp"
#include "findings/finding.hpp"
#include "multirank/cross_rank_thresholds.hpp"
#include "multirank/rank_discovery.hpp"
#include "pipeline/analysis_report.hpp"
#include "pipeline/platform_choice.hpp"

namespace traceprism::cli {

// The cross-rank part of `analyze` over several rank traces (multi-rank.md §2, §3.1 with one
// rank at a time): each trace reduced to its rank summary, collectives matched, the cross-rank
// figures and findings. The focus rank's trace then goes through the single-rank pipeline,
// which ranks `outcomes` with its own.
struct MultiRankPlan {
  std::string focus_trace;
  int focus_rank = -1;
  std::size_t ranks = 0;
  std::int64_t world_size = 0;
  std::vector<findings::AnalyzerOutcome> outcomes;
  // multi_rank_csvs/: file name and text (ranks.csv, process_groups.csv, clock_offsets.csv,
  // collectives_summary.csv, straggler_summary.csv; docs/multi-rank-csvs.md)
  std::vector<std::pair<std::string, std::string>> csvs;
  pipeline::MultiRankFacts facts;      // for analysis.md and findings.json
  std::vector<RankTrace> rank_traces;  // every loaded rank's trace, ascending rank
};

struct MultiRankOptions {
  bool allow_partial = false;  // --allow-partial
  bool quiet = false;
  std::string summaries_out;  // --summaries-out: also write rank-NNNNN.tpsum there
  int gpus_per_node = 0;      // --gpus-per-node; 0: from the traces (§7.6)
  unsigned rank_jobs = 0;     // --rank-jobs: ranks read at once; 0: from cores and memory
  std::uint64_t memory_budget_bytes = 0;  // --memory-budget; 0: 70% of MemAvailable
  std::int32_t focus_rank = -1;           // --focus-rank; -1: auto (§9.1)
  // --rank-from, --rank-regex, --ranks, --recursive, --on-duplicate-rank, --require-all-ranks
  multirank::DiscoveryOptions discovery;
  // The platform whose interconnect peaks collective bandwidth is judged against (§8): as the
  // single-rank report chooses it, from the focus rank's device name by default.
  pipeline::PlatformOptions platform;
  double nic_gbits = 0;  // --nic-gbps: scale-out NIC bandwidth per GPU in Gb/s; 0 unknown
  std::int64_t match_tolerance_ns = 1'000'000;  // --match-tolerance-us: the timeline tier's T
  bool align_clocks = true;                     // false: --no-clock-align
  bool detail = false;                          // --detail: also multi_rank_csvs/collectives.csv
  bool per_rank_reports = false;  // --per-rank-reports: OUT/ranks/rank-NNNNN/ per rank
  bool light_depth = false;       // --rank-depth light: index only what a rank summary reads
  // The xrank.* configuration options (multi-rank.md §9.2).
  multirank::CrossRankThresholds thresholds;
};

// --detail's collectives.csv holds at most this many rows (multi-rank.md §2).
inline constexpr std::size_t kMaxDetailedCollectives = 1'000'000;

// `inputs`: files, folders (their .json, .json.gz and .json.zst traces) and globs, each file's
// rank from its distributedInfo or its name (multirank/rank_discovery.hpp). Throws
// io::InputError with one sentence for unreadable input, a duplicate rank, or fewer than two
// traces.
MultiRankPlan plan_multi_rank(const std::vector<std::string>& inputs,
                              const MultiRankOptions& options);

// The same from the rank summaries `analyze --summaries-out` wrote (`traceprism merge`): the
// folders' rank-NNNNN.tpsum files. The focus rank's trace is read again at the path its summary
// records, so the report is the one `analyze` writes over the traces themselves.
// An MPI job's other processes (traceprism-mpi): find the rank traces as process 0 does and read
// this process's share of them for it; process 0 calls plan_multi_rank and writes the report.
void read_rank_share(const std::vector<std::string>& inputs, const MultiRankOptions& options);

MultiRankPlan plan_from_summaries(const std::vector<std::string>& dirs,
                                  const MultiRankOptions& options);

// Whether `inputs` name a multi-rank job: two or more paths, or one folder.
// §9.1: the focus rank's exposed-comm card gains the metric exposed_wait_percent and a sentence
// on the part of its exposed communication spent waiting for later ranks (naming the cross-rank
// card that explains it).
void add_collective_wait_to_exposed_comm(pipeline::AnalysisReport& report);
// Before ranking (diagnosis.md §1.5: time counted once): when a cross-rank card reports late
// arrivals (straggler, arrival jitter, a slow group), the focus rank's exposed-comm card's impact
// keeps only the part of its exposed communication that is not waiting for them.
void discount_collective_wait(std::vector<findings::AnalyzerOutcome>& outcomes,
                              const pipeline::MultiRankFacts& facts);

bool is_multi_rank_input(const std::vector<std::string>& inputs);

}  // namespace traceprism::cli
