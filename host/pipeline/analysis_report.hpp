#pragma once

#include <optional>
#include <string>
#include <vector>

#include "findings/diagnosis.hpp"
#include "findings/model_identification.hpp"
#include "findings/ranker.hpp"
#include "index/event_index.hpp"
#include "model/gpu_timeline.hpp"
#include "model/graph_replay.hpp"
#include "perf_report/perf_report.hpp"
#include "perf_report/unified_perf_table.hpp"
#include "pipeline/trace_load.hpp"
#include "platform/platform_info.hpp"
#include "plugins/op_model_runner.hpp"
#include "plugins/plugin_registry.hpp"
#include "schedule/analysis_graph.hpp"

namespace traceprism::pipeline {

// The typed result of one analysed trace: everything the writers (report/) render.
struct AnalysisReport {
  std::string trace_path;
  const index::EventIndex* index = nullptr;
  model::GpuTimeline timeline;
  model::GraphReplay graph_replay;  // CUDA/HIP graph replays: GPU work without CPU ops
  bool inference_mode = false;      // --mode inference
  std::optional<CaptureMergeOutcome> capture_merge;  // --capture-dir
  platform::PlatformInfo platform;
  std::vector<plugins::RefusedPlugin> refused_plugins;
  std::vector<plugins::OpModelOutcome> op_models;   // phase 1, in load order
  std::vector<perf_report::PerfSheet> perf_sheets;  // perf_report_csvs/, in sheet order
  // unified_perf_summary as typed rows (the sheet's numbers, before any text); null when the
  // trace has none. Owned by the pipeline run's products.
  const perf_report::UnifiedPerfTable* unified = nullptr;
  schedule::GraphResult graph;
  findings::RankedFindings findings;
  // The op category with the most direct kernel time, and that time as % of computation time.
  std::string top_category;
  double top_category_percent = 0;
  findings::ModelInfo model;      // every field "Cannot be inferred from trace" unless identified
  findings::Diagnosis diagnosis;  // causes, steps, collectives and the cross-tier order
};

}  // namespace traceprism::pipeline
