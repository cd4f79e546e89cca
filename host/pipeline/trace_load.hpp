#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ingest/trace_reader.hpp"
#include "model/call_tree.hpp"
#include "model/capture_merge.hpp"
#include "model/gpu_timeline.hpp"
#include "model/launch_links.hpp"

namespace traceprism::pipeline {

struct LoadOptions {
  bool strict = false;
  bool quiet = false;  // no progress line on stderr
  bool include_unlinked = false;
  double micro_idle_threshold_us = 0;  // 0: one idle_time row
  // Inference mode's capture folder (empty: none): its captured ops are merged under the
  // graph launches that replayed them (model/capture_merge.hpp).
  std::string capture_dir;
  // When copying the whole capture for every graph launch would more than double the index
  // and add over a million events, copy only the captured events that lead to a launch call,
  // without python frames (otherwise copied, as the reference does: the perf report's UIDs
  // count them and the call stacks walk them)
  // (analyze does; the perf report keeps the reference's full copies). model/capture_merge.hpp.
  bool capture_prune_when_large = false;
  // Inference mode's pseudo-op pass (model/pseudo_ops.hpp): SGLang profiler ops lose their
  // call counter, and vLLM's unfused MoE GEMM kernels get pseudo ops.
  bool pseudo_ops = false;
  // Threads parsing the trace's events (ingest::ReadOptions::threads; capture traces are
  // read with one).
  unsigned read_threads = 1;
};

// What the capture merge did, for the report.
struct CaptureMergeOutcome {
  std::string folder;
  model::CaptureMergeSummary summary;
  std::vector<std::string> notes;  // capture traces that could not be read
};

// A trace read and modelled (the pipeline's first stages: read -> index -> model): the index
// plus the host-side derived products every command needs. Reading errors propagate as
// io::InputError.
struct TraceSession {
  ingest::TraceFile file;
  model::CallTree tree;
  model::LaunchLinks links;
  model::GpuTimeline timeline;
  std::optional<CaptureMergeOutcome> capture_merge;  // set when a capture folder was given
  double read_seconds = 0;
  double model_seconds = 0;
};

TraceSession load_trace(const std::string& path, const LoadOptions& options);

}  // namespace traceprism::pipeline
