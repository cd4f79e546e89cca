#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "index/event_index.hpp"
#include "model/launch_links.hpp"

namespace traceprism::model {

enum class GpuActivity : std::uint8_t { kComputation, kCommunication, kMemcpy };

// Classifies a GPU event by category and name (trace-format spec §4.1, diagnosis.md §4): memcpy
// events and ROCm legacy copy kernels are memcpy; kernels and memsets that
// traceprism/collective.hpp calls collectives are communication (names mentioning nccl, rccl or
// cross_device_reduce, as in the reference, and the other collective kernels: multimem and
// one/two-shot all-reduces, custom all-reduces, all_gather kernels, ...); everything else is
// computation.
GpuActivity classify_gpu_event(index::EventKind kind, std::string_view name);

// classify_gpu_event of GPU rows, decided once per (kind, name): names repeat millions of times.
class GpuActivityByName {
 public:
  explicit GpuActivityByName(const index::EventIndex& index);
  GpuActivity operator()(index::Row gpu_row);

 private:
  static constexpr std::uint8_t kUnknown = 0xFF;
  const index::EventIndex& index_;
  std::vector<std::uint8_t> known_[index::kEventKindCount];  // by name id; kUnknown: not yet
};

struct GpuTimelineOptions {
  bool include_unlinked = false;  // the reference counts only GPU events linked to a launch
  // When > 0, idle time is split into gaps shorter than this (micro) and the rest (macro), as
  // the reference's --micro_idle_thresh_us does.
  double micro_idle_threshold_us = 0;
};

// Where GPU time goes, in reference microseconds (see traceprism/reference_time.hpp).
struct GpuTimeline {
  double computation_us = 0;
  double exposed_comm_us = 0;
  double exposed_memcpy_us = 0;
  double busy_us = 0;
  double idle_us = 0;
  double total_us = 0;
  double total_comm_us = 0;
  double total_memcpy_us = 0;
  std::size_t events = 0;   // GPU events in the analysed set
  bool idle_split = false;  // micro/macro idle computed (micro_idle_threshold_us > 0)
  double micro_idle_us = 0;
  double macro_idle_us = 0;
};

GpuTimeline compute_gpu_timeline(const index::EventIndex& index, const LaunchLinks& links,
                                 const GpuTimelineOptions& options = {});

}  // namespace traceprism::model
