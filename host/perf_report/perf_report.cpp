#include "perf_report/perf_report.hpp"

#include <oneapi/tbb/task_group.h>

#include <optional>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "perf_report/category_sheets.hpp"
#include "perf_report/gpu_subtrees.hpp"
#include "perf_report/gpu_timeline_sheet.hpp"
#include "perf_report/kernel_sheets.hpp"
#include "perf_report/ops_sheets.hpp"
#include "perf_report/unified_perf_table.hpp"

namespace traceprism::perf_report {
namespace {

RegistryCategory registry_of(const PerfReportInputs& in) {
  if (!in.op_work) return {};
  return [work = in.op_work, index = in.index](index::Row row) -> std::optional<std::string> {
    if (auto category = work->category_of_name(index->name_id(row))) return std::string(*category);
    return std::nullopt;
  };
}

// The sheets made from op instances and kernels (ops sheets, then kernel sheets). The launcher
// rows are made one at a time and fed to the ops sheets' groups: on big traces there are
// hundreds of thousands, and only the groups and each launcher's category are needed.
void launcher_sheets(const LauncherSheetInputs& in, std::vector<PerfSheet>& ops_sheets,
                     std::vector<PerfSheet>& kernel_sheets) {
  LauncherCategories categories;
  {
    OpsSheetsBuilder ops({in.group_by_num_kernels, in.group_by_parent_module});
    ops.reserve(in.launchers.all().size());
    LauncherRowBuilder builder(in);
    LauncherRow row;  // reused: its kernel list keeps its capacity
    for (const model::KernelLauncher& l : in.launchers.all()) {
      builder.fill(l, row);
      ops.add(row);
      categories.add(row.row, row.category);
    }
    // GPU-only traces get no CPU sheets, and the reference drops empty ones.
    if (!is_gpu_only_trace(in.index) && !in.launchers.all().empty()) {
      ops_sheets.push_back({"ops_summary_by_category", ops.ops_summary_by_category()});
      ops_sheets.push_back({"ops_summary", ops.ops_summary()});
      ops_sheets.push_back({"ops_unique_args", ops.ops_unique_args()});
    }
  }
  categories.finish();
  kernel_sheets = kernel_sheets_of(in, categories);
}

}  // namespace

std::vector<PerfSheet> build_perf_report(const PerfReportInputs& in) {
  LauncherSheetInputs launcher_inputs{*in.index,     *in.tree,     *in.links,
                                      *in.launchers, *in.timeline, registry_of(in)};
  launcher_inputs.kernel_options.short_kernel_threshold_us = in.options.short_kernel_threshold_us;
  launcher_inputs.kernel_options.short_kernel_histogram_bins =
      static_cast<std::size_t>(in.options.short_kernel_bins);
  launcher_inputs.group_by_num_kernels = in.options.group_by_num_kernels;
  launcher_inputs.group_by_parent_module = in.options.group_by_parent_module;
  launcher_inputs.python_parents = in.python_parents;
  if (in.options.topk_short_kernels > 0)
    launcher_inputs.kernel_options.topk_short_kernels =
        static_cast<std::size_t>(in.options.topk_short_kernels);

  // Three independent groups of sheets: from the op instances (ops and kernel sheets), the
  // per-category sheets, and unified_perf_summary, the slowest, which this thread builds while
  // the others are made on TBB's workers. Each is deterministic, so the output does not depend
  // on the threads; the last two walk the call tree through one shared, read-only GpuSubtrees.
  std::vector<PerfSheet> ops_sheets, kernel_sheets, unified_sheet, category_sheets;
  const PerfSheetInputs perf{in.index,
                             in.tree,
                             in.links,
                             in.fwd_bwd,
                             in.op_work,
                             in.platform,
                             in.launchers,
                             in.options.group_by_num_kernels,
                             in.options.include_call_stack,
                             in.python_parents};
  std::optional<GpuSubtrees> subtrees;  // outlives the tasks that read it
  oneapi::tbb::task_group others;
  others.run([&] { launcher_sheets(launcher_inputs, ops_sheets, kernel_sheets); });
  if (!is_gpu_only_trace(*in.index)) {  // no ops sheets for those (spec §8)
    subtrees.emplace(*in.index, *in.tree, *in.links, in.fwd_bwd);
    others.run([&] { category_sheets = build_category_sheets(perf, *subtrees); });
    UnifiedPerfTable unified = build_unified_perf_table(perf, *subtrees, false);
    if (in.unified_events) *in.unified_events = std::move(unified.events);
    if (!unified.groups.empty())
      unified_sheet.push_back({"unified_perf_summary", unified_perf_summary_sheet(unified)});
    if (in.unified_table) {
      in.unified_table->groups = std::move(unified.groups);
      in.unified_table->has_model_columns = unified.has_model_columns;
      in.unified_table->has_roofline_columns = unified.has_roofline_columns;
      in.unified_table->has_call_stack_columns = unified.has_call_stack_columns;
      in.unified_table->bucket_categories = std::move(unified.bucket_categories);
      in.unified_table->kernel_buckets = std::move(unified.kernel_buckets);
    }
  }
  others.wait();

  // The reference's sheet order.
  std::vector<PerfSheet> sheets;
  sheets.push_back({"gpu_timeline", gpu_timeline_sheet(*in.timeline)});
  for (auto* part : {&ops_sheets, &unified_sheet, &category_sheets, &kernel_sheets})
    for (PerfSheet& sheet : *part) sheets.push_back(std::move(sheet));
#if defined(__GLIBC__)
  // The report's working memory is freed by now but stays in the heap; hand it back, so that
  // what runs next (analyzers in forked children) starts from a smaller process.
  malloc_trim(0);
#endif
  return sheets;
}

}  // namespace traceprism::perf_report
