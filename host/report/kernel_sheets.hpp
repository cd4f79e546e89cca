#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "report/csv_sheet.hpp"
#include "report/launcher_sheet_inputs.hpp"
#include "report/ops_sheets.hpp"

namespace traceprism::report {

// The nearest cpu_op above a kernel's launch (no stepping over "execute" here), with what the
// per-kernel table copies from it (trace-format spec §8.7).
struct ParentCpuOp {
  index::Row row = 0;
  std::string name;
  std::string category;  // spec §7 with the op's own kernel_details when it is a launcher
  // Python str() of the op's shape args after list->tuple; nullopt when the arg is absent.
  std::optional<std::string> input_dims;
  std::optional<std::string> input_strides;
  std::optional<std::string> concrete_inputs;
};

// One event of cat `kernel` (memcpy/memset excluded), linked or not, in row (UID) order.
struct KernelRow {
  index::Row row = 0;
  std::string_view name;  // points into the index's string pool
  double dur_us = 0;      // raw trace duration
  std::optional<std::int64_t> stream;
  std::optional<std::string_view> launcher;  // name of the launching runtime call
  std::int32_t parent_op = -1;               // index into KernelTable::parent_ops
};

struct KernelTable {
  std::vector<KernelRow> kernels;
  std::vector<ParentCpuOp> parent_ops;
  bool any_parent_op = false;       // some kernel has a cpu_op: the Parent cpu_op column exists
  bool any_stream_missing = false;  // pandas then holds streams as floats ("7.0")
  const ParentCpuOp* parent_of(const KernelRow& k) const {
    return k.parent_op < 0 ? nullptr : &parent_ops[static_cast<std::size_t>(k.parent_op)];
  }
};

// The per-kernel table; `launchers` supply the categories (and kernel_details) of cpu_ops
// that are op instances.
KernelTable build_kernel_table(const LauncherSheetInputs& inputs,
                               std::span<const LauncherRow> launchers);

// pandas' reading of gpu_timeline's total: total_time_ms * 1e3 (µs).
double timeline_total_us(const model::GpuTimeline& timeline);

// kernel_summary (spec §8.7): per (Parent op category, Parent cpu_op, Kernel name, Kernel
// stream), plain sums of raw durations, sorted by the sum descending. No columns (empty CSV)
// when the trace has no kernel.
CsvSheet kernel_summary_sheet(const KernelTable& table, double total_time_us);

// short_kernel_histogram (spec §8.8): numpy.histogram of the durations under the threshold.
CsvSheet short_kernel_histogram_sheet(const KernelTable& table, const KernelSheetOptions& options);

// short_kernels_summary (spec §8.8): short kernels grouped by parent op, its shape args and
// the kernel name (kernel name only for GPU-only traces); rows with a missing key dropped.
CsvSheet short_kernels_summary_sheet(const KernelTable& table, double total_time_us,
                                     const KernelSheetOptions& options, bool gpu_only);

}  // namespace traceprism::report
