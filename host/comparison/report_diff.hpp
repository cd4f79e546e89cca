// The report-level diff (trace-format spec §14.1; the reference's
// TraceLens_compare_perf_reports_pytorch): two or more perf reports' sheets outer-merged on
// their key columns, with `<column>__<tag>_diff` (variant - baseline) and `_pct` columns. It
// needs no traces, only the reports' sheets; the first report is the baseline. ops_all and
// roofline sheets are split per variant into `_intersect_`, `_only_baseline_` and
// `_only_variant_` sheets, so ops are matched by exact name and argument strings.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "comparison/sheet_frame.hpp"

namespace traceprism::comparison {

// Returns one sheet of a report as read back (read_sheet_frame), nullopt when the report has
// none of that name.
using SheetSource = std::function<std::optional<SheetFrame>(const std::string& sheet)>;

struct TaggedReport {
  std::string tag;  // column prefix: "<tag>::Kernel Time (µs)_sum"
  SheetSource sheets;
};

// The reference's --sheets groups.
enum class SheetGroup { kGpuTimeline, kOpsSummary, kKernelSummary, kOpsAll, kRoofline };

// "gpu_timeline", ... ; nullopt for an unknown name. "all" is every group.
std::optional<std::vector<SheetGroup>> parse_sheet_groups(const std::vector<std::string>& names);

struct DiffSheet {
  std::string name;  // "gpu_timeline", "GEMM_intersect_mi300", ...
  SheetFrame frame;
};

struct ReportDiff {
  std::vector<DiffSheet> sheets;     // in the reference's order
  std::vector<std::string> skipped;  // one sentence per sheet that could not be compared
};

// Throws std::invalid_argument when there are fewer than 2 reports or two share a tag.
ReportDiff diff_perf_reports(const std::vector<TaggedReport>& reports,
                             const std::vector<SheetGroup>& groups);

}  // namespace traceprism::comparison
