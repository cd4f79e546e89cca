#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace traceprism::perf_report {

// One entry of a row's `kernel_details` list as the reference builds it: {name, dur, stream}
// plus optional keys some sheets add (the unified table's 'call_stack', the overlap sheets'
// 'overlap_pct'). `dur` is the raw trace duration in µs, not a busy time.
struct KernelDetail {
  std::string_view name;  // the trace's kernel name (the index's string pool)
  double dur_us = 0;
  std::optional<std::int64_t> stream;  // None when the event has no args.stream
  // Further keys in dict order, each with its value already rendered as a Python repr
  // (e.g. {"call_stack", "['nn.Module: Linear', 'aten::linear']"}). A "gpu_op_uid" key is
  // dropped from summaries, as the reference drops it.
  std::vector<std::pair<std::string, std::string>> extra_keys;
  // --include_call_stack's stack of the kernel (call_stacks.hpp); empty otherwise. Not printed:
  // the reference drops it from the summaries once call_stack_full is made.
  std::vector<std::string_view> call_stack = {};
};
using KernelDetails = std::vector<KernelDetail>;

// One entry of the summarized list (trace-format spec §9): the template row's entry without
// `dur`, with statistics over the durations found at the same position in every row.
struct KernelSummaryEntry {
  std::string name;
  std::optional<std::int64_t> stream;
  std::vector<std::pair<std::string, std::string>> extra_keys;
  std::size_t count = 0;
  double total_duration_us = 0;  // np.sum
  double mean_duration_us = 0;   // np.mean
  double median_duration_us = 0;
  double std_dev_duration_us = 0;  // np.std, ddof 0
  double min_duration_us = 0;
  double max_duration_us = 0;
  std::vector<std::string_view> call_stack = {};  // the template entry's (KernelDetail::call_stack)
};

// Positional summary of a group's kernel lists (one list per row, group order): the first
// non-empty list is the template; rows whose list has another length are skipped; entries are
// sorted by (total_duration_us, name). Empty result when no row has kernels.
std::vector<KernelSummaryEntry> summarize_kernel_details(
    std::span<const KernelDetails* const> rows);

// summarize_kernel_details fed one row at a time, in group order: keeps the template list and
// the durations only, so a group's rows need not stay in memory.
class KernelSummaryBuilder {
 public:
  void add(std::span<const KernelDetail> row);
  std::vector<KernelSummaryEntry> finish() const;
  // A row with kernels came: later rows' entries only add durations.
  bool has_template() const { return !template_.empty(); }

 private:
  KernelDetails template_;                      // the first non-empty list
  std::vector<std::vector<double>> durations_;  // per template position
};

// The summary as the reference prints it: a Python list of dicts. Numbers print as plain
// Python floats/ints; the goldens show numpy scalars as np.float64(...), which the reference's
// regression test (and our golden test) strip before comparing, so plain numbers are
// equivalent.
std::string kernel_summary_repr(const std::vector<KernelSummaryEntry>& summary);

// The `trunc_kernel_details` cell: per entry {name cut to 64 characters + "...", stream,
// mean_duration_us rounded to 2 decimals the numpy way}; empty text (None) for an empty list.
std::string trunc_kernel_details_repr(const std::vector<KernelSummaryEntry>& summary);

}  // namespace traceprism::perf_report
