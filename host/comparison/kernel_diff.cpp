#include "comparison/kernel_diff.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string_view>

#include "text/csv_sheet.hpp"

namespace traceprism::comparison {

namespace {

struct NameFigures {
  std::uint64_t count = 0;
  std::int64_t time_ns = 0;
};

std::map<std::string, NameFigures, std::less<>> figures_by_name(const GpuEventSet& set) {
  std::map<std::string, NameFigures, std::less<>> out;
  for (auto kind :
       {index::EventKind::kKernel, index::EventKind::kGpuMemcpy, index::EventKind::kGpuMemset})
    for (index::Row r : set.index.rows_of_kind(kind)) {
      if (!set.index.valid(r) || (!set.include_unlinked && !set.links.linked(r))) continue;
      std::string_view name = set.index.name(r);
      auto it = out.find(name);
      if (it == out.end()) it = out.emplace(std::string(name), NameFigures{}).first;
      ++it->second.count;
      it->second.time_ns += std::max<std::int64_t>(0, set.index.dur_ns(r));
    }
  return out;
}

std::string milliseconds(std::int64_t ns) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.6f", static_cast<double>(ns) / 1e6);
  return buf;
}

}  // namespace

std::vector<KernelDiffRow> kernel_diff(const GpuEventSet& trace1, const GpuEventSet& trace2) {
  const auto one = figures_by_name(trace1);
  const auto two = figures_by_name(trace2);
  std::map<std::string_view, KernelDiffRow> merged;
  for (const auto& [name, f] : one) {
    KernelDiffRow& row = merged[name];
    row.name = name;
    row.count_trace1 = f.count;
    row.time_ns_trace1 = f.time_ns;
  }
  for (const auto& [name, f] : two) {
    KernelDiffRow& row = merged[name];
    row.name = name;
    row.count_trace2 = f.count;
    row.time_ns_trace2 = f.time_ns;
  }
  std::vector<KernelDiffRow> rows;
  rows.reserve(merged.size());
  for (auto& [name, row] : merged) rows.push_back(std::move(row));
  // The map gave name order; a stable sort keeps it among equal differences.
  std::stable_sort(rows.begin(), rows.end(), [](const KernelDiffRow& a, const KernelDiffRow& b) {
    return std::llabs(a.time_ns_diff()) > std::llabs(b.time_ns_diff());
  });
  return rows;
}

std::string kernel_diff_csv(const std::vector<KernelDiffRow>& rows) {
  text::CsvSheet sheet;
  sheet.columns = {"name",           "count_trace1",   "count_trace2", "count_diff",
                   "time_ms_trace1", "time_ms_trace2", "time_ms_diff"};
  for (const KernelDiffRow& r : rows)
    sheet.rows.push_back({r.name, std::to_string(r.count_trace1), std::to_string(r.count_trace2),
                          std::to_string(r.count_diff()), milliseconds(r.time_ns_trace1),
                          milliseconds(r.time_ns_trace2), milliseconds(r.time_ns_diff())});
  return sheet.to_csv();
}

}  // namespace traceprism::comparison
