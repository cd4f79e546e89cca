// The one pipeline every command runs: read -> index -> model -> op models -> products (the
// perf report) -> analysis graph -> ranking. Commands differ only in where they stop and what
// they render; the comparative and inference modes are meant to be configurations of it.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "config/run_config.hpp"
#include "findings/diagnosis.hpp"
#include "model/idle_attribution.hpp"
#include "model/kernel_launchers.hpp"
#include "model/profiler_steps.hpp"
#include "perf_report/perf_report.hpp"
#include "pipeline/analysis_report.hpp"
#include "pipeline/platform_choice.hpp"
#include "pipeline/trace_load.hpp"
#include "plugins/idle_attribution_table.hpp"
#include "plugins/op_model_runner.hpp"
#include "plugins/plugin_registry.hpp"
#include "plugins/run_products.hpp"
#include "plugins/trace_diff_table.hpp"

namespace traceprism::pipeline {

enum class LastStage {
  kPerfReport,  // stop after the perf report's sheets (perf-report)
  kRanking,     // run the analyzers and rank their findings (analyze)
};

struct PipelineRun;

struct PipelineOptions {
  std::string trace_path;  // a file, or "-" for standard input
  LoadOptions load;        // load.capture_dir: inference mode's capture folder
  // --mode inference: serving traces (inference-mode spec); the default mode is training.
  bool inference_mode = false;
  PlatformOptions platform;
  const plugins::PluginRegistry* registry = nullptr;  // required
  const config::RunConfig* config = nullptr;          // required
  int jobs = 0;                                       // threads; 0 = all cores
  bool isolate_analyzers = true;
  double analyzer_timeout_seconds = 0;  // 0: no limit
  perf_report::PerfReportOptions sheets;
  LastStage last_stage = LastStage::kRanking;
  // Called once the trace is read and modelled, before the platform is chosen (e.g. to warn
  // about skipped events first).
  std::function<void(const TraceSession&)> after_load;
  // Called once the perf report is built, before any analyzer reads it: the comparison adds
  // trace 1's TraceDiff columns to the unified table and its diff_stats sheet here. The
  // unified_perf_summary sheet is rendered again when the table gained those columns.
  std::function<void(PipelineRun&, perf_report::UnifiedPerfTable&)> enrich_perf_report;
  // Outcomes of host-side analyzers that ran before the pipeline (the cross-rank ones of a
  // multi-rank run): ranked and reported with the plugins' outcomes, after them.
  std::vector<findings::AnalyzerOutcome> host_outcomes;
  // Called on every outcome (plugins' and host ones) just before ranking: a multi-rank run
  // moves the focus rank's collective waiting from its exposed-comm card to the cross-rank card
  // that reports it, so the time is counted once.
  std::function<void(std::vector<findings::AnalyzerOutcome>&)> before_ranking;
};

struct StageSeconds {
  double read = 0, model = 0, products = 0;
  double op_models = 0, perf_report = 0, analyzers = 0;  // analyzers: with idle causes, summary
};

// One run's typed result. The report points into `trace` (index, timeline), so the run is
// handed out behind a unique_ptr and never moves.
struct PipelineRun {
  TraceSession trace;
  model::KernelLaunchers launchers;
  std::unique_ptr<plugins::RunProducts> products;
  plugins::OpModelRun op_models;  // phase 1; the products point into its table
  model::IdleAttribution idle;    // GPU idle by cause (gaps, parts: in idle_table only)
  std::unique_ptr<plugins::IdleAttributionTable> idle_table;
  std::vector<model::StepFigures> steps;
  std::vector<findings::CauseIdle> idle_causes;  // summed before idle's gaps and parts are freed
  // Trace 1 of a comparison: TraceDiff's diff_stats as the analyzers read it (ABI 1.8).
  std::unique_ptr<plugins::TraceDiffTable> trace_diff;
  AnalysisReport report;
  StageSeconds seconds;
};

// Runs the stages up to options.last_stage. Throws io::InputError (unreadable or malformed
// trace), platform::PlatformError (bad --platform-file) and UnknownPlatform (bad --platform).
std::unique_ptr<PipelineRun> run_pipeline(const PipelineOptions& options);

}  // namespace traceprism::pipeline
