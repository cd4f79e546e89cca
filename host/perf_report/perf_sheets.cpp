#include "perf_report/perf_sheets.hpp"

#include "perf_report/kernel_sheets.hpp"
#include "perf_report/ops_sheets.hpp"

namespace traceprism::perf_report {

std::vector<PerfSheet> build_ops_sheets(const LauncherSheetInputs& inputs) {
  return build_ops_sheets(inputs, build_launcher_rows(inputs));
}

std::vector<PerfSheet> build_ops_sheets(const LauncherSheetInputs& inputs,
                                        std::span<const LauncherRow> rows) {
  // GPU-only traces get no CPU sheets, and the reference drops empty ones.
  if (is_gpu_only_trace(inputs.index) || rows.empty()) return {};
  const OpsSheetsGrouping grouping{inputs.group_by_num_kernels, inputs.group_by_parent_module};
  return {{"ops_summary_by_category", ops_summary_by_category_sheet(rows, grouping)},
          {"ops_summary", ops_summary_sheet(rows, grouping)},
          {"ops_unique_args", ops_unique_args_sheet(rows, grouping)}};
}

std::vector<PerfSheet> build_kernel_sheets(const LauncherSheetInputs& inputs) {
  const KernelSheetOptions& options = inputs.kernel_options;
  if (!options.kernel_summary && !options.short_kernel_study) return {};
  return build_kernel_sheets(inputs, build_launcher_rows(inputs));
}

std::vector<PerfSheet> build_kernel_sheets(const LauncherSheetInputs& inputs,
                                           std::span<const LauncherRow> rows) {
  const KernelSheetOptions& options = inputs.kernel_options;
  std::vector<PerfSheet> sheets;
  if (!options.kernel_summary && !options.short_kernel_study) return sheets;
  // Parent op categories of op instances depend on their kernels: the rows supply them.
  const KernelTable table = build_kernel_table(inputs, rows);
  const double total_us = timeline_total_us(inputs.timeline);
  if (options.kernel_summary && !table.kernels.empty())
    sheets.push_back({"kernel_summary", kernel_summary_sheet(table, total_us)});
  if (options.short_kernel_study) {
    const bool gpu_only = is_gpu_only_trace(inputs.index);
    sheets.push_back({"short_kernel_histogram", short_kernel_histogram_sheet(table, options)});
    sheets.push_back(
        {"short_kernels_summary", short_kernels_summary_sheet(table, total_us, options, gpu_only)});
  }
  return sheets;
}

std::vector<PerfSheet> build_launcher_sheets(const LauncherSheetInputs& inputs) {
  const std::vector<LauncherRow> rows = build_launcher_rows(inputs);
  std::vector<PerfSheet> sheets = build_ops_sheets(inputs, rows);
  for (PerfSheet& sheet : build_kernel_sheets(inputs, rows)) sheets.push_back(std::move(sheet));
  return sheets;
}

}  // namespace traceprism::perf_report
