#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "index/id_value.hpp"

namespace traceprism::index {

// One entry of the top-level `deviceProperties` list.
struct DeviceInfo {
  std::int64_t id = -1;
  std::string name;
  std::int64_t total_global_mem = 0;
  int compute_major = 0;
  int compute_minor = 0;
  int num_sms = 0;
  int warp_size = 0;
};

// The top-level `distributedInfo` object of multi-rank traces.
struct DistributedInfo {
  std::string backend;
  std::int64_t rank = -1;
  std::int64_t world_size = -1;
  std::string raw_json;  // the whole object, compact, for later analyzers
};

// Names given by `M` (metadata) events.
struct ProcessInfo {
  std::string name;    // process_name
  std::string labels;  // process_labels
  std::int64_t sort_index = 0;
};

// Everything in the trace that is not an event.
struct TraceMetadata {
  std::vector<DeviceInfo> devices;
  std::optional<DistributedInfo> distributed;
  // Scalar top-level keys as text (schemaVersion, cuda_runtime_version, hip_runtime_version,
  // roctracer_version, displayTimeUnit, baseTimeNanoseconds, ...).
  std::map<std::string, std::string> keys;
  // Filled from M events, keyed by pid and (pid, tid) as written (7 and "7" differ).
  std::map<IdRef, ProcessInfo> processes;
  std::map<std::pair<IdRef, IdRef>, std::string> thread_names;
  std::map<std::pair<IdRef, IdRef>, std::int64_t> thread_sort_indices;
  bool bare_event_array = false;  // the document was a JSON array, not {"traceEvents": ...}
  int trace_events_arrays = 0;    // top-level "traceEvents" keys; more than one is concatenated
  bool legacy_format = false;     // PyTorch <= 1.9 vocabulary was normalized
};

}  // namespace traceprism::index
