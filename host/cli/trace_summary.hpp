#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli/trace_options.hpp"

namespace traceprism::cli {

// What `inspect` reports, gathered once and rendered as text or JSON.
struct TraceSummary {
  struct Count {
    std::string name;
    std::uint64_t count;
  };
  struct Stream {
    std::int32_t device;
    std::int32_t stream;
    std::uint64_t events;
    double busy_ms;  // sum of durations on the stream
  };
  struct Thread {
    std::string pid, tid, name;
    std::uint64_t events;
  };
  struct Copies {
    std::string direction;  // HtoD, DtoH, ...
    std::uint64_t count = 0, bytes = 0, pageable = 0;
  };
  struct Issue {
    std::string name, description;
    std::uint64_t count;
    bool skipped;
    std::string first_example;  // "event 12 (near byte 3456): ..."
  };

  std::string path, compression;
  std::uint64_t file_bytes = 0, json_bytes = 0, events = 0;
  std::vector<Count> by_category, by_phase;
  double span_ms = 0;
  std::int64_t first_ts_ns = 0, last_end_ns = 0;
  std::vector<index::DeviceInfo> devices;
  std::string distributed;  // "" when absent
  std::vector<Stream> streams;
  std::vector<Thread> threads;
  std::vector<Copies> copies;  // gpu_memcpy events by direction
  std::uint64_t gpu_events = 0, linked = 0, unlinked = 0, graph_launches = 0;
  std::string link_key;
  bool flowless = false;
  std::uint64_t tree_nodes = 0, tree_dropped = 0, cpu_op_roots = 0;
  std::vector<Issue> issues;
  bool legacy_format = false;
  model::GpuTimeline timeline;
  double read_seconds = 0, model_seconds = 0;
};

TraceSummary summarize(const pipeline::TraceSession& session);
std::string render_text(const TraceSummary& summary);
std::string render_json(const TraceSummary& summary);

}  // namespace traceprism::cli
