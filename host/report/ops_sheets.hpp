#pragma once

#include <span>
#include <string>
#include <vector>

#include "index/event_index.hpp"
#include "report/csv_sheet.hpp"
#include "report/kernel_details_summary.hpp"
#include "report/launcher_sheet_inputs.hpp"

namespace traceprism::report {

// process_name / process_label / thread_name of a host event as the reference reads them:
// metadata of the event's pid (and pid, tid), "Unknown" when absent.
struct HostNames {
  std::string process_name;
  std::string process_label;
  std::string thread_name;
};
HostNames host_names(const index::EventIndex& index, index::Row row);

// The raw `dur` of an event in µs as the reference reads it from the JSON.
double raw_dur_us(const index::EventIndex& index, index::Row row);

// {name, dur, stream} of one GPU event, the entry of a kernel_details list.
KernelDetail kernel_detail(const index::EventIndex& index, index::Row gpu_row);

// One op instance (kernel launcher, trace-format spec §6) with the fields the ops sheets print.
struct LauncherRow {
  index::Row row = 0;
  std::string name;
  std::string category;  // spec §7 on the name and the first direct kernel
  double direct_kernel_time_us = 0;
  double subtree_kernel_time_us = 0;
  KernelDetails kernel_details;  // direct kernels sorted by start time (stable)
  // Python str() of the shape args after list->tuple conversion; "None" when absent.
  std::string input_dims;
  std::string input_type;
  std::string input_strides;
  std::string concrete_inputs;
  HostNames names;
};

// Launcher rows in the launchers' order (start time).
std::vector<LauncherRow> build_launcher_rows(const LauncherSheetInputs& inputs);

// The reference treats a trace without any cpu_op as GPU-only: no ops sheets (spec §8).
bool is_gpu_only_trace(const index::EventIndex& index);

// ops_summary_by_category (spec §8.2): per op category, Count and direct kernel time.
CsvSheet ops_summary_by_category_sheet(std::span<const LauncherRow> rows);
// ops_summary (spec §8.3): per op name, direct/subtree kernel time, Count, Categories.
CsvSheet ops_summary_sheet(std::span<const LauncherRow> rows);
// ops_unique_args (spec §8.4): per (name, category, process/thread names, shape args).
CsvSheet ops_unique_args_sheet(std::span<const LauncherRow> rows);

}  // namespace traceprism::report
