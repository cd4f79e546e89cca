#pragma once

#include <string>
#include <vector>

#include "index/event_index.hpp"
#include "model/gpu_timeline.hpp"
#include "platform/platform_info.hpp"
#include "plugins/op_model_runner.hpp"
#include "plugins/plugin_registry.hpp"
#include "report/model_identification.hpp"
#include "report/perf_report.hpp"
#include "report/ranker.hpp"
#include "schedule/analysis_graph.hpp"

namespace traceprism::report {

// Everything the writers render for one analysed trace.
struct AnalysisReport {
  std::string trace_path;
  const index::EventIndex* index = nullptr;
  model::GpuTimeline timeline;
  platform::PlatformInfo platform;
  std::vector<plugins::RefusedPlugin> refused_plugins;
  std::vector<plugins::OpModelOutcome> op_models;  // phase 1, in load order
  std::vector<PerfSheet> perf_sheets;              // perf_report_csvs/, in sheet order
  schedule::GraphResult graph;
  RankedFindings findings;
  // The op category with the most direct kernel time, and that time as % of computation time.
  std::string top_category;
  double top_category_percent = 0;
  ModelInfo model;  // every field "Cannot be inferred from trace" unless identified
};

// "<Model>" of the report title and chart: the identified model, or "Workload".
std::string model_label(const AnalysisReport& report);
// "<Platform>": --platform's name, else the device name, else "Unknown platform".
std::string platform_label(const AnalysisReport& report);

// findings.json (schema documented in docs/report-format.md).
inline constexpr int kFindingsSchemaVersion = 1;
std::string findings_json(const AnalysisReport& report);

// analysis.md, with the structure and markers of analysis-rules.md §10.
std::string analysis_markdown(const AnalysisReport& report);

// perf_breakdown.svg, the figure analysis.md shows under the executive summary (§10.8).
inline constexpr const char* kBreakdownChartFile = "perf_breakdown.svg";
std::string perf_breakdown_svg(const AnalysisReport& report);

}  // namespace traceprism::report
