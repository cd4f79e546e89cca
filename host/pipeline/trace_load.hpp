#pragma once

#include <string>

#include "ingest/trace_reader.hpp"
#include "model/call_tree.hpp"
#include "model/gpu_timeline.hpp"
#include "model/launch_links.hpp"

namespace traceprism::pipeline {

struct LoadOptions {
  bool strict = false;
  bool quiet = false;  // no progress line on stderr
  bool include_unlinked = false;
  double micro_idle_threshold_us = 0;  // 0: one idle_time row
};

// A trace read and modelled (the pipeline's first stages: read -> index -> model): the index
// plus the host-side derived products every command needs. Reading errors propagate as
// io::InputError.
struct TraceSession {
  ingest::TraceFile file;
  model::CallTree tree;
  model::LaunchLinks links;
  model::GpuTimeline timeline;
  double read_seconds = 0;
  double model_seconds = 0;
};

TraceSession load_trace(const std::string& path, const LoadOptions& options);

}  // namespace traceprism::pipeline
