// TraceDiff's products (trace-format spec §14.2): diff_stats, one row per GPU event under a
// point where the merged trees diverge, and the columns it adds to trace 1's
// unified_perf_summary (speedup, delta, the lowest common ancestors' kernel times).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "comparison/trace_diff.hpp"
#include "perf_report/unified_perf_table.hpp"

namespace traceprism::comparison {

// A divergence point as diff_stats names it: its merged id and, per side, its name
// ("a | b" when the two sides' names differ).
struct DiffStatsLca {
  std::uint32_t id = 0;
  std::string name;
};

struct DiffStatsRow {
  index::Row gpu_event = 0;
  index::Row cpu_op = 0;      // the nearest cpu_op above the event's launch
  std::uint8_t source = 1;    // 1: trace 1, 2: trace 2
  std::int32_t lca = -1;      // index into DiffStats::lcas; -1: none (a root of one trace)
  double kernel_time_us = 0;  // the event's duration
  double busy_time_us = 0;    // busy time of the LCA's events on this side, rounded to 3
};

// The rows in the reference's order (a walk of the merged tree from its roots, trace 1's events
// of each divergence point before trace 2's), with their divergence points.
struct DiffStats {
  std::vector<DiffStatsRow> rows;
  std::vector<DiffStatsLca> lcas;
  const DiffStatsLca* lca_of(const DiffStatsRow& r) const {
    return r.lca < 0 ? nullptr : &lcas[static_cast<std::size_t>(r.lca)];
  }
  bool empty() const { return rows.empty(); }
  // GPU events of trace `source` (1 or 2) under a divergence point.
  std::size_t event_count(int source) const {
    return static_cast<std::size_t>(std::count_if(
        rows.begin(), rows.end(), [&](const DiffStatsRow& r) { return r.source == source; }));
  }
};

DiffStats diff_stats(const MergedTree& merged, const DiffSide& trace1, const DiffSide& trace2);

// perf_report_trace1_csvs/diff_stats.csv, in chunks of rows handed to `write` (the sheet can
// have as many rows as the traces have GPU events).
void write_diff_stats_csv(const DiffStats& stats, const index::EventIndex& trace1,
                          const index::EventIndex& trace2,
                          const std::function<void(std::string_view)>& write);
std::string diff_stats_csv(const DiffStats& stats, const index::EventIndex& trace1,
                           const index::EventIndex& trace2);

// Sets each trace-1 summary row's LCA columns (UnifiedGroup::lca) from the rows whose trace-1
// GPU events it stands for; the table gets the columns when any row has them.
void add_lca_columns(perf_report::UnifiedPerfTable& trace1_table, const DiffStats& stats);

}  // namespace traceprism::comparison
