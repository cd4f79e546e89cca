// The comm analyzer's measurements: collective kernels of the GPU timeline's event set (linked
// events) by type (traceprism/collective.hpp), with their time, exposed time, counts per step,
// protocols and algorithms (diagnosis.md §4). Header of a C++17 plugin.
#pragma once

#include <traceprism/collective.hpp>
#include <traceprism/sdk.hpp>

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace traceprism::plugins::comm {

// A ProfilerStep#N user annotation.
struct Step {
  std::string name;
  std::int64_t start_ns = 0, end_ns = 0;
};

// The collectives of one type.
struct TypeStats {
  collective::Type type = collective::Type::kUnknown;
  std::vector<Row> rows;                         // file order
  double time_us = 0;                            // union of their intervals
  double exposed_us = 0;                         // of that, with no computation kernel running
  double total_dur_us = 0;                       // sum of their durations (for the mean)
  std::vector<std::size_t> per_step;             // kernels launched in each step, in step order
  std::size_t protocol_count[4] = {0, 0, 0, 0};  // by collective::Protocol
  std::map<std::string, std::size_t> algorithm_count;  // by name; unnamed ones not counted
  // Message sizes (bytes) of the kernels whose own args or launching ops' args give one
  // (Context::comm_args, ABI 1.7: "In/Out msg nelems" x the dtype's size).
  std::vector<double> message_bytes;

  std::size_t count() const { return rows.size(); }
  double mean_us() const { return rows.empty() ? 0 : total_dur_us / static_cast<double>(count()); }
  std::size_t in_steps() const;  // kernels launched inside some step
  // The protocol most of the kernels name, and how many do; kUnknown / 0 when none names one.
  collective::Protocol main_protocol(std::size_t* count = nullptr) const;
  // The algorithm most of the kernels name ("" when none names one).
  std::string main_algorithm() const;
  // The median message size in bytes, when at least half of the kernels have one.
  std::optional<double> median_message_bytes() const;
};

struct CollectiveStats {
  std::vector<Step> steps;       // by start time
  std::vector<TypeStats> types;  // present types, in collective::kTypes order

  // The type holding the most exposed time (first in kTypes order on ties); nullptr when none.
  const TypeStats* most_exposed() const;
};

// Measures the collectives of the timeline's event set: a GPU event is in it when it has a
// launch, as in the host's gpu_timeline. A generic NCCL/RCCL kernel takes the type of the
// innermost host op above its launch that names a collective (type_from_op).
CollectiveStats measure_collectives(const Context& ctx);

}  // namespace traceprism::plugins::comm
