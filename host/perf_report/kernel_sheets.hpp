#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "perf_report/launcher_sheet_inputs.hpp"
#include "perf_report/ops_sheets.hpp"
#include "perf_report/sheet_table.hpp"

namespace traceprism::perf_report {

// One event of cat `kernel` (memcpy/memset excluded), linked or not, in row (UID) order, with
// the op it is filed under (trace-format spec §8.7). Twelve bytes a kernel: the rest is read
// from the index when the sheets need it (KernelTable).
struct KernelRow {
  index::Row row = 0;
  std::int32_t parent_op = -1;        // the nearest cpu_op at or above the launch (no stepping over
                                      // "execute" here), or -1
  std::uint32_t parent_category = 0;  // with parent_op: index into KernelTable::categories
};

struct KernelTable {
  const index::EventIndex* index = nullptr;
  const model::LaunchLinks* links = nullptr;
  std::vector<KernelRow> kernels;
  // The parent ops' categories (spec §7; an op instance's with its own kernel_details),
  // interned texts.
  std::vector<std::string_view> categories;
  bool any_parent_op = false;       // some kernel has a cpu_op: the Parent cpu_op column exists
  bool any_stream_missing = false;  // pandas then holds streams as floats ("7.0")

  double dur_us(const KernelRow& k) const;  // raw trace duration
  std::optional<std::int64_t> stream(const KernelRow& k) const;
  std::int32_t launcher(const KernelRow& k) const { return links->launcher(k.row); }
};

// The categories of the op instances (launchers), which the kernel table gives their kernels'
// parent ops: add() each, then finish() before find().
class LauncherCategories {
 public:
  void add(index::Row launcher, std::string_view category);
  void finish();
  std::optional<std::string_view> find(index::Row op) const;

 private:
  // (launcher, index into categories_), sorted by row after finish(): 8 bytes a launcher.
  std::vector<std::pair<index::Row, std::uint32_t>> rows_;
  std::vector<std::string_view> categories_;  // distinct (interned) categories
};

// The per-kernel table; `launchers` supply the categories of cpu_ops that are op instances.
KernelTable build_kernel_table(const LauncherSheetInputs& inputs,
                               std::span<const LauncherRow> launchers);
KernelTable build_kernel_table(const LauncherSheetInputs& inputs,
                               const LauncherCategories& launchers);

// kernel_summary (when enabled and the trace has kernels), then short_kernel_histogram and
// short_kernels_summary (when the short-kernel study is enabled), as typed sheets:
// what build_kernel_sheets (perf_sheets.hpp) makes, from the launchers' categories only.
std::vector<PerfSheet> kernel_sheets_of(const LauncherSheetInputs& inputs,
                                        const LauncherCategories& launchers);

// pandas' reading of gpu_timeline's total: total_time_ms * 1e3 (µs).
double timeline_total_us(const model::GpuTimeline& timeline);

// kernel_summary (spec §8.7): per (Parent op category, Parent cpu_op, Kernel name, Kernel
// stream), plain sums of raw durations, sorted by the sum descending. No columns (empty CSV)
// when the trace has no kernel.
SheetTable kernel_summary_sheet(const KernelTable& table, double total_time_us);

// short_kernel_histogram (spec §8.8): numpy.histogram of the durations under the threshold.
SheetTable short_kernel_histogram_sheet(const KernelTable& table,
                                        const KernelSheetOptions& options);

// short_kernels_summary (spec §8.8): short kernels grouped by parent op, its shape args and
// the kernel name (kernel name only for GPU-only traces); rows with a missing key dropped.
SheetTable short_kernels_summary_sheet(const KernelTable& table, double total_time_us,
                                       const KernelSheetOptions& options, bool gpu_only);

}  // namespace traceprism::perf_report
