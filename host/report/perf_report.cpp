#include "report/perf_report.hpp"

#include "report/gpu_timeline_sheet.hpp"
#include "report/category_sheets.hpp"
#include "report/perf_sheets.hpp"
#include "report/unified_perf_table.hpp"

namespace traceprism::report {
namespace {

RegistryCategory registry_of(const PerfReportInputs& in) {
  if (!in.op_work) return {};
  return [work = in.op_work, index = in.index](index::Row row) -> std::optional<std::string> {
    if (auto category = work->category_of_name(index->name_id(row))) return std::string(*category);
    return std::nullopt;
  };
}

void append(std::vector<PerfSheet>& sheets, std::vector<NamedCsv> more) {
  for (auto& [name, csv] : more) sheets.push_back({std::move(name), std::move(csv)});
}

}  // namespace

std::vector<PerfSheet> build_perf_report(const PerfReportInputs& in) {
  LauncherSheetInputs launcher_inputs{*in.index,    *in.tree,       *in.links,
                                      *in.launchers, *in.timeline, registry_of(in)};
  launcher_inputs.kernel_options.short_kernel_threshold_us = in.options.short_kernel_threshold_us;
  launcher_inputs.kernel_options.short_kernel_histogram_bins =
      static_cast<std::size_t>(in.options.short_kernel_bins);
  if (in.options.topk_short_kernels > 0)
    launcher_inputs.kernel_options.topk_short_kernels =
        static_cast<std::size_t>(in.options.topk_short_kernels);

  std::vector<PerfSheet> sheets;
  sheets.push_back({"gpu_timeline", gpu_timeline_csv(*in.timeline)});
  append(sheets, build_ops_sheets(launcher_inputs));
  const PerfSheetInputs perf{in.index,   in.tree,    in.links,    in.fwd_bwd,
                             in.op_work, in.platform, in.launchers};
  const UnifiedPerfTable unified = build_unified_perf_table(perf);
  if (!unified.groups.empty())
    sheets.push_back({"unified_perf_summary", unified_perf_summary_csv(unified)});
  append(sheets, build_category_sheets(perf));
  append(sheets, build_kernel_sheets(launcher_inputs));
  return sheets;
}

}  // namespace traceprism::report
