#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "findings/category_shares.hpp"
#include "findings/ranker.hpp"
#include "index/event_index.hpp"
#include "model/idle_attribution.hpp"
#include "model/profiler_steps.hpp"
#include "model/steady_state.hpp"
#include "perf_report/unified_perf_table.hpp"

namespace traceprism::findings {

// A host op that holds idle time of one cause.
struct IdleHolder {
  std::string name;
  std::string frame;  // the innermost python frame of its largest part; empty when none
  double idle_us = 0;
};

struct CauseIdle {
  std::string cause;
  double idle_us = 0;
  double percent_of_idle = 0;
  double percent_of_e2e = 0;
  std::uint64_t gaps = 0;  // gaps with time of this cause
  double longest_gap_us = 0;
  std::vector<IdleHolder> host_ops;  // most idle first
};

struct StepRow {
  std::string name;
  double start_us = 0, dur_us = 0, gpu_busy_us = 0, idle_us = 0;
  bool outlier = false;  // longer than 1.25 x the median step
  // A serving step (inference-mode spec §2): its phase ("decode_only", ...), requests and
  // scheduled tokens; empty phase for a ProfilerStep.
  std::string phase;
  std::int64_t requests = 0, tokens = 0;
  double gpu_span_us = 0;  // first start to last end of the GPU work it launched; 0: none
};

// The steady state of a serving trace with several steps (inference-mode spec §7.2-§7.3): the
// largest region where the engine schedules about its peak number of requests (or, without
// such a plateau, the middle steps), and the mixed-mode window of up to 32 steps in it.
struct SteadyState {
  model::StepRange region;
  bool plateau = true;  // false: no plateau, the middle fallback
  std::int64_t peak_requests = 0;
  model::StepRange window;
};

// A serving trace's kernel time by roofline bound (from unified_perf_summary): which regime its
// ops run in. Shares of the table's kernel time: memory + compute + unknown = 100 %.
struct BoundBreakdown {
  double total_us = 0, memory_us = 0, compute_us = 0, unknown_us = 0;
  std::string top_memory_op, top_compute_op;  // the op signature with most time of each
};

struct CollectiveRow {
  std::string type;
  std::uint64_t count = 0;
  double time_us = 0, exposed_us = 0;
};

// A finding by its place in the ranking (stays valid when the report is copied).
struct FindingRef {
  Tier tier = Tier::kSystem;
  int rank = 0;
};
const Finding& resolve(const RankedFindings& ranked, FindingRef ref);

// findings.json's "diagnosis" (diagnosis.md §8): where the window's time goes by cause, the
// GPU-bound evidence, the steps and collectives, and the first item of the cross-tier ranking.
struct Diagnosis {
  bool present = false;  // false: the trace has no GPU timeline
  double window_us = 0;
  double idle_us = 0;                    // the sum of idle_by_cause
  std::vector<CauseIdle> idle_by_cause;  // idle_us desc, causes with time only
  std::vector<model::StreamQueue> queue;
  double launch_delay_median_us = 0, launch_delay_p95_us = 0;  // NaN: no launches
  std::vector<StepRow> steps;
  std::optional<SteadyState> steady_state;      // serving traces with at least 2 steps
  std::optional<BoundBreakdown> serving_bound;  // serving traces with a perf report
  std::vector<CollectiveRow> collectives;
  // Computation time by op category, a partition (sums to the timeline's computation).
  std::vector<CategoryShare> computation_by_category;
  std::optional<double> compute_coverage_percent;  // computation time a perf model covers
  std::vector<FindingRef> order;                   // every finding, cross-tier ranking
};

// The idle time per cause with its gaps and holding host ops, largest first (causes with time
// only). Needs the attribution's gaps and parts, which the pipeline frees after this.
std::vector<CauseIdle> idle_by_cause(const index::EventIndex& index,
                                     const model::IdleAttribution& idle);

struct DiagnosisInputs {
  const index::EventIndex& index;
  const model::IdleAttribution& idle;  // window, totals, queues and launch delay are read
  std::vector<CauseIdle> causes;       // idle_by_cause() of it
  const std::vector<model::StepFigures>& steps;
  std::vector<CollectiveRow> collectives;
  std::vector<CategoryShare> categories;  // computation_by_category
  const RankedFindings& findings;
  const perf_report::UnifiedPerfTable* unified = nullptr;  // null: no perf report
};

Diagnosis diagnose(const DiagnosisInputs& inputs);

// "system-p1": the id findings.json gives a finding.
std::string finding_id(const Finding& f);

}  // namespace traceprism::findings
