#pragma once

#include <span>
#include <string>
#include <utility>
#include <vector>

#include "perf_report/launcher_sheet_inputs.hpp"
#include "perf_report/ops_sheets.hpp"

namespace traceprism::perf_report {

// ops_summary_by_category, ops_summary, ops_unique_args in the reference's order. Empty for a
// GPU-only trace (no cpu_op) or a trace without op instances. In the reference's report these
// follow gpu_timeline and precede unified_perf_summary.
std::vector<PerfSheet> build_ops_sheets(const LauncherSheetInputs& inputs);
// The same from launcher rows already built (build_launcher_rows), to build them only once.
std::vector<PerfSheet> build_ops_sheets(const LauncherSheetInputs& inputs,
                                        std::span<const LauncherRow> rows);

// kernel_summary (when enabled and the trace has kernels), then short_kernel_histogram and
// short_kernels_summary (when the short-kernel study is enabled). In the reference's report
// these follow the perf-model sheets.
std::vector<PerfSheet> build_kernel_sheets(const LauncherSheetInputs& inputs);
std::vector<PerfSheet> build_kernel_sheets(const LauncherSheetInputs& inputs,
                                           std::span<const LauncherRow> rows);

// build_ops_sheets then build_kernel_sheets: the six sheets made from op instances and kernels,
// in the reference's sheet order (trace-format spec §8).
std::vector<PerfSheet> build_launcher_sheets(const LauncherSheetInputs& inputs);

}  // namespace traceprism::perf_report
