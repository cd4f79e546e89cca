// The renderers of a comparison (issue 16): each turns the comparative pipeline's typed result
// into one output of `traceprism compare`.
#pragma once

#include <string>

#include "pipeline/comparison_pipeline.hpp"

namespace traceprism::report {

using pipeline::ComparativeReport;

// analysis.md in the comparative layout (analysis-rules.md §10-§11): the 4-column executive
// table, the trace comparison (where the time went, kernel diff), comparative Top Operations
// and trace 1's comparative ranking.
std::string comparative_markdown(const ComparativeReport& report);

// findings.json with "mode": "comparative": trace 1's document (its comparative findings) and a
// "comparison" object (trace 2's metadata and timeline, the gap, the time breakdown, the kernel
// diff's largest rows, warnings, findings in both). docs/report-format.md.
std::string comparative_findings_json(const ComparativeReport& report);

// DIR/time_breakdown.csv: group,part,time_ms_trace1,time_ms_trace2,time_ms_diff,count_trace1,
// count_trace2 (counts empty where not counted).
std::string time_breakdown_csv(const ComparativeReport& report);

// Writes analysis.md, findings.json, kernel_diff.csv, time_breakdown.csv, model_info.json,
// perf_breakdown.svg (trace 1), perf_report_trace1_csvs/, perf_report_trace2_csvs/ and
// report_diff_csvs/ (the two reports' sheet-level diff, trace 1 the baseline) into
// `dir`, each file atomically. Throws std::runtime_error with one sentence on failure.
void write_comparison_folder(const std::string& dir, const ComparativeReport& report);

// Whether a compare folder of an earlier version (no manifest) holds `relative_path`.
bool is_comparison_report_file(const std::string& relative_path);

}  // namespace traceprism::report
