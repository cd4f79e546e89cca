#pragma once

#include <span>
#include <string>
#include <vector>

#include "index/event_index.hpp"
#include "model/call_tree.hpp"
#include "model/forward_backward.hpp"
#include "model/gpu_timeline.hpp"
#include "model/kernel_launchers.hpp"
#include "model/launch_links.hpp"
#include "model/op_work.hpp"
#include "perf_report/sheet_table.hpp"
#include "platform/platform_info.hpp"

namespace traceprism::perf_report {

struct UnifiedPerfTable;

struct PerfReportOptions {
  double short_kernel_threshold_us = 10;
  int short_kernel_bins = 100;
  int topk_short_kernels = 0;  // 0: all
  // --group_by_num_kernels: ops_unique_args and the perf-model sheets are also keyed on the
  // op's kernel count (a num_kernels column); unified_perf_summary has no such key.
  bool group_by_num_kernels = false;
  // --group_by_parent_module (inference-mode spec §4 "Call stacks", §5.2-§5.4): each op's
  // nearest enclosing nn.Module groups the ops sheets, which gain parent_module and call-stack
  // columns. Needs PerfReportInputs::python_parents.
  bool group_by_parent_module = false;
  // --include_call_stack (inference-mode spec §4 "Call stacks"): unified_perf_summary gains
  // entry_point and call_stack_full. Needs PerfReportInputs::python_parents.
  bool include_call_stack = false;
};

struct PerfReportInputs {
  const index::EventIndex* index = nullptr;
  const model::CallTree* tree = nullptr;
  const model::LaunchLinks* links = nullptr;
  const model::ForwardBackwardLinks* fwd_bwd = nullptr;
  const model::GpuTimeline* timeline = nullptr;
  const model::KernelLaunchers* launchers = nullptr;
  const model::OpWorkTable* op_work = nullptr;       // phase-1 results (may be empty)
  const platform::PlatformInfo* platform = nullptr;  // null or without peaks: no roofline
  PerfReportOptions options;
  // Each row's parent in the call tree with python frames (CallTree::parents with
  // include_python), for group_by_parent_module and include_call_stack.
  std::span<const std::int32_t> python_parents = {};
  // When set, receives the events unified_perf_summary stands for (UnifiedPerfTable::events).
  std::vector<index::Row>* unified_events = nullptr;
  // When set, receives the typed unified_perf_summary (UnifiedPerfTable::groups and its column
  // flags; no rows, no events): what the sheet prints, as numbers (ABI 1.5 op_metrics).
  UnifiedPerfTable* unified_table = nullptr;
};

// The TraceLens-compatible perf report (trace-format spec §8), every sheet as a typed table, in the
// reference's sheet order: gpu_timeline, ops_summary_by_category, ops_summary,
// ops_unique_args, unified_perf_summary, the per-category perf-model sheets, kernel_summary,
// short_kernel_histogram, short_kernels_summary. GPU-only traces get the GPU sheets only.
std::vector<PerfSheet> build_perf_report(const PerfReportInputs& in);

}  // namespace traceprism::perf_report
