#pragma once

#include <cstdint>
#include <span>

#include "index/event_index.hpp"
#include "model/call_tree.hpp"
#include "model/forward_backward.hpp"
#include "model/kernel_launchers.hpp"
#include "model/launch_links.hpp"
#include "model/op_work.hpp"
#include "platform/platform_info.hpp"

namespace traceprism::perf_report {

// What the sheets made from the op models' results read: unified_perf_summary (trace-format
// spec §8.5) and the per-category perf-model sheets (§8.6). The caller owns everything.
struct PerfSheetInputs {
  const index::EventIndex* index = nullptr;
  const model::CallTree* tree = nullptr;
  const model::LaunchLinks* links = nullptr;
  // Autograd links (§3.7); null for a trace without backward ops: no _bwd sheets, no "sole
  // backward" rows.
  const model::ForwardBackwardLinks* fwd_bwd = nullptr;
  const model::OpWorkTable* op_work = nullptr;  // phase-1 results; null: no op models ran
  // Null, or without a peak for an op's compute spec: no roofline numbers ("unknown").
  const platform::PlatformInfo* platform = nullptr;
  // The op instances of spec §6, for the categories of ops without a registry category; built
  // from the index, tree and links when null.
  const model::KernelLaunchers* launchers = nullptr;
  // --group_by_num_kernels: the perf-model sheets also keyed on each row's kernel count.
  bool group_by_num_kernels = false;
  // --include_call_stack (inference-mode spec §4 "Call stacks"): unified_perf_summary gains
  // entry_point and call_stack_full, found through each row's parent in the call tree with
  // python frames (CallTree::parents with include_python).
  bool include_call_stack = false;
  std::span<const std::int32_t> python_parents = {};
};

using UnifiedPerfInputs = PerfSheetInputs;
using CategorySheetInputs = PerfSheetInputs;

}  // namespace traceprism::perf_report
