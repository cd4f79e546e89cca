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
// A multi-rank run (docs/multi-rank.md): the job around the focus rank whose report this is.
struct MultiRankFacts {
  std::size_t ranks_analyzed = 0;
  std::int64_t world_size = 0;
  int focus_rank = -1;
  std::vector<std::int32_t> missing_ranks;
  std::vector<std::int32_t> slowest_ranks;  // the straggler item's ranks; empty: none
  double slowest_last_percent = 0;          // the largest % last among them
  double collective_wait_percent = 0;       // Σ exposed wait / Σ E2E over the ranks
  std::vector<std::string> warnings;        // one sentence each, for the Warnings section
  struct NodeClock {
    std::int32_t node = -1;
    std::int64_t offset_ns = 0;  // ahead of the reference node's clock
    std::int64_t mad_ns = 0;
    std::size_t samples = 0;
    bool applied = false;
  };
  std::vector<NodeClock> clock_offsets;  // per node, ascending
  struct Rank {
    std::int32_t rank = -1;
    std::string file;
    std::size_t collectives = 0;
    double wait_ms = 0, exposed_wait_ms = 0, last_percent = 0, mean_lateness_us = 0;
    std::size_t last_arrivals = 0;
    std::string cause;
    std::int32_t node = -1;
    double step_ms = 0;           // mean GPU span of its profiler steps; 0 without steps
    double gpu_idle_percent = 0;  // over its steps, else the whole trace
  };
  std::vector<Rank> ranks;  // ascending rank
  // Matching (§5): instances on every rank, of which matched, per tier; complete instances.
  struct Matching {
    std::string tier;  // "seq", "ordinal", "timeline"
    std::size_t groups = 0, instances = 0, matched_instances = 0, collectives = 0;
  };
  std::vector<Matching> matching;  // tiers in that order, only those used
  std::size_t complete_collectives = 0;
  // The focus rank's exposed communication and the part of it spent waiting at collectives for
  // later ranks (§9.1: the exposed-comm card says so).
  std::int64_t focus_exposed_comm_ns = 0;
  std::int64_t focus_exposed_wait_ns = 0;
  // The heat map's rows (§9.3), ascending rank: each profiler step's GPU span cut into equal
  // bins, and per bin the mean over the rank's steps of the share of the bin that computation
  // (communication) kernels covered, in % (0-100). Empty vectors: the rank has no steps.
  struct HeatRow {
    std::int32_t rank = -1;
    std::int32_t node = -1;
    std::vector<double> compute_percent;
    std::vector<double> comm_percent;
  };
  std::vector<HeatRow> heat_rows;
};

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
  std::optional<MultiRankFacts> multi_rank;  // set by a multi-rank run before writing
};

}  // namespace traceprism::pipeline
