// Everything a comparative report shows beyond the two traces' own analyses (issue 16).
#pragma once

#include <string>
#include <vector>

#include "comparison/comparative_findings.hpp"
#include "comparison/diff_stats.hpp"
#include "comparison/kernel_diff.hpp"
#include "comparison/time_breakdown.hpp"

namespace traceprism::comparison {

struct Comparison {
  TraceTimeFigures trace1, trace2;
  std::vector<TimeRow> time_rows;  // time_breakdown(trace1, trace2)
  std::string gap_summary;         // the executive summary's first sentence
  std::vector<KernelDiffRow> kernels;
  std::vector<std::string> warnings;  // stack_mismatch_warnings
  std::vector<FindingInBoth> in_both;
  // TraceDiff (trace-format spec §14.2): diff_stats (written as perf_report_trace1_csvs/
  // diff_stats.csv) and the merged trees' size.
  DiffStats trace_diff;
  std::size_t merged_nodes = 0;
};

}  // namespace traceprism::comparison
