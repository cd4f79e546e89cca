#pragma once

#include <cstddef>
#include <optional>
#include <span>

#include "index/event_index.hpp"
#include "model/call_tree.hpp"
#include "model/gpu_timeline.hpp"
#include "model/kernel_launchers.hpp"
#include "model/launch_links.hpp"
#include "perf_report/op_category.hpp"

namespace traceprism::perf_report {

// The reference's kernel-sheet switches. Its CLI has both sheets off by default; they default
// to on here because the regression goldens (and our report) include them.
struct KernelSheetOptions {
  bool kernel_summary = true;      // --enable_kernel_summary
  bool short_kernel_study = true;  // --short_kernel_study
  double short_kernel_threshold_us = 10;
  std::size_t short_kernel_histogram_bins = 100;
  std::optional<std::size_t> topk_short_kernels;  // keep the first N summary rows
};

// Everything the sheets built from op instances and kernels read. The registry callback may be
// empty (no op-model plugins): categories then come from names and kernels only.
struct LauncherSheetInputs {
  const index::EventIndex& index;
  const model::CallTree& tree;
  const model::LaunchLinks& links;
  const model::KernelLaunchers& launchers;
  const model::GpuTimeline& timeline;
  RegistryCategory registry_category;
  KernelSheetOptions kernel_options = {};
  // --group_by_num_kernels: ops_unique_args also keyed on each op's direct kernel count.
  bool group_by_num_kernels = false;
  // --group_by_parent_module: the ops sheets also keyed on each op's enclosing nn.Module, found
  // through `python_parents` (perf_report.hpp).
  bool group_by_parent_module = false;
  std::span<const std::int32_t> python_parents = {};
};

}  // namespace traceprism::perf_report
