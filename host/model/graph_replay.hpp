#pragma once

#include <cstddef>
#include <cstdint>

#include "index/event_index.hpp"
#include "model/launch_links.hpp"

namespace traceprism::model {

// The GPU work of CUDA/HIP graph replays (cudaGraphLaunch / hipGraphLaunch): kernels the trace
// shows under no CPU op, with no shapes, so they cannot be attributed to ops or modelled
// without the graphs' capture traces (inference-mode spec §0, analysis-rules §14).
struct GraphReplay {
  std::size_t launches = 0;    // graph launch calls that launched GPU work
  std::size_t gpu_events = 0;  // the GPU events they launched
  std::int64_t busy_ns = 0;    // the union of those events' time
};

GraphReplay graph_replay(const index::EventIndex& index, const LaunchLinks& links);

}  // namespace traceprism::model
