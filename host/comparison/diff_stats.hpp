// TraceDiff's products (trace-format spec §14.2): diff_stats, one row per GPU event under a
// point where the merged trees diverge, and the columns it adds to trace 1's
// unified_perf_summary (speedup, delta, the lowest common ancestors' kernel times).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "comparison/trace_diff.hpp"
#include "perf_report/unified_perf_table.hpp"

namespace traceprism::comparison {

struct DiffStatsRow {
  index::Row gpu_event = 0;
  index::Row cpu_op = 0;                // the nearest cpu_op above the event's launch
  int source = 1;                       // 1: trace 1, 2: trace 2
  double kernel_time_us = 0;            // the event's duration
  double busy_time_us = 0;              // busy time of the LCA's events on this side, rounded to 3
  std::optional<std::string> lca_name;  // "a | b" when the two sides' names differ
  std::optional<std::uint32_t> lca_id;  // the LCA's merged id
};

// The rows in the reference's order: a walk of the merged tree from its roots, trace 1's
// events of each divergence point before trace 2's.
std::vector<DiffStatsRow> diff_stats(const MergedTree& merged, const DiffSide& trace1,
                                     const DiffSide& trace2);

// perf_report_trace1_csvs/diff_stats.csv.
std::string diff_stats_csv(const std::vector<DiffStatsRow>& rows, const DiffSide& trace1,
                           const DiffSide& trace2);

// Sets each trace-1 summary row's LCA columns (UnifiedGroup::lca) from the rows whose trace-1
// GPU events it stands for; the table gets the columns when any row has them.
void add_lca_columns(perf_report::UnifiedPerfTable& trace1_table,
                     const std::vector<DiffStatsRow>& rows);

}  // namespace traceprism::comparison
