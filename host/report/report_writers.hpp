// The renderers of an analysed trace: each turns the pipeline's typed result into one output.
#pragma once

#include <string>

#include "pipeline/analysis_report.hpp"
#include "text/json_writer.hpp"

namespace traceprism::report {

using pipeline::AnalysisReport;

// "<Model>" of the report title and chart: the identified model, or "Workload".
std::string model_label(const AnalysisReport& report);
// "<Platform>": --platform's name, else the device name, else "Unknown platform".
std::string platform_label(const AnalysisReport& report);

// findings.json (schema documented in docs/report-format.md).
inline constexpr int kFindingsSchemaVersion = 2;  // 2: diagnosis, cause
std::string findings_json(const AnalysisReport& report);
// A text field, null when empty (findings.json's convention for absent names).
void text_or_null(text::JsonWriter& w, std::string_view key, const std::string& text);
// findings.json's "platform" and "model" objects of a trace.
void write_trace_identity(text::JsonWriter& w, const AnalysisReport& report);
// Its fields, inside an object the caller opened; `mode` is "standalone" or "comparative".
void write_findings_fields(text::JsonWriter& w, const AnalysisReport& report,
                           std::string_view mode);

// analysis.md, with the structure and markers of analysis-rules.md §10.
std::string analysis_markdown(const AnalysisReport& report);

// perf_breakdown.svg, the figure analysis.md shows under the executive summary (§10.8).
inline constexpr const char* kBreakdownChartFile = "perf_breakdown.svg";
std::string perf_breakdown_svg(const AnalysisReport& report);

// Writes the whole report into `dir` (created if missing): perf_report_csvs/*.csv,
// findings.json, model_info.json, perf_breakdown.svg and analysis.md, each file atomically.
// Throws std::runtime_error with one sentence when the folder or a file cannot be written.
void write_report_folder(const std::string& dir, const AnalysisReport& report);

// Whether an analyze (or perf-report) folder of an earlier version, one without a manifest,
// holds `relative_path` ("analysis.md", "perf_report_csvs/GEMM.csv"): io::KnownReportFile.
bool is_analysis_report_file(const std::string& relative_path);
bool is_perf_sheets_file(const std::string& relative_path);
// A "*.csv" directly in `folder` ("" for the top level).
bool is_csv_in(const std::string& relative_path, const std::string& folder);

}  // namespace traceprism::report
