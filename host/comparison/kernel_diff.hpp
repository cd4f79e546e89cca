// Name-level GPU event diff of two traces (HTA's TraceDiff idea, issue 16): how many times each
// kernel, copy and memset name ran and for how long, side by side. It needs no structural
// matching, so it holds across frameworks, software versions and GPUs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "index/event_index.hpp"
#include "model/launch_links.hpp"

namespace traceprism::comparison {

// Which GPU events of a trace are counted: the GPU timeline's set (linked events unless
// include_unlinked), so each side's times add up to the same events its timeline shows.
struct GpuEventSet {
  const index::EventIndex& index;
  const model::LaunchLinks& links;
  bool include_unlinked = false;
};

struct KernelDiffRow {
  std::string name;
  std::uint64_t count_trace1 = 0, count_trace2 = 0;
  std::int64_t time_ns_trace1 = 0, time_ns_trace2 = 0;  // summed durations
  std::int64_t count_diff() const {
    return static_cast<std::int64_t>(count_trace1) - static_cast<std::int64_t>(count_trace2);
  }
  std::int64_t time_ns_diff() const { return time_ns_trace1 - time_ns_trace2; }
};

// One row per GPU kernel / copy / memset name of either trace (0 on the side that lacks it),
// by |time difference| descending, then by name. Differences are trace 1 - trace 2.
std::vector<KernelDiffRow> kernel_diff(const GpuEventSet& trace1, const GpuEventSet& trace2);

// DIR/kernel_diff.csv: name,count_trace1,count_trace2,count_diff,time_ms_trace1,time_ms_trace2,
// time_ms_diff (ms with 6 decimals, names quoted as CSV needs).
std::string kernel_diff_csv(const std::vector<KernelDiffRow>& rows);

}  // namespace traceprism::comparison
