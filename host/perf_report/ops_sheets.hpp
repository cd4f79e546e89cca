#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "index/event_index.hpp"
#include "perf_report/call_stacks.hpp"
#include "perf_report/kernel_details_summary.hpp"
#include "perf_report/launcher_sheet_inputs.hpp"
#include "perf_report/sheet_table.hpp"
#include "text/python_repr.hpp"

namespace traceprism::perf_report {

// process_name / process_label / thread_name of a host event as the reference reads them:
// metadata of the event's pid (and pid, tid), "Unknown" when absent. Views of the index's
// metadata (or of a constant).
struct HostNames {
  std::string_view process_name;
  std::string_view process_label;
  std::string_view thread_name;
};
HostNames host_names(const index::EventIndex& index, index::Row row);

// host_names() once per thread, the texts interned (intern_report_text): two threads with the
// same names get the same views, so the views' addresses can key a grouping.
class HostNamesCache {
 public:
  explicit HostNamesCache(const index::EventIndex& index) : index_(index) {}
  const HostNames& of(index::Row row);

 private:
  const index::EventIndex& index_;
  std::map<std::pair<index::IdRef, index::IdRef>, HostNames> by_thread_;
  const HostNames* last_ = nullptr;  // consecutive rows mostly share a thread
  std::pair<index::IdRef, index::IdRef> last_thread_{};
};

// The raw `dur` of an event in µs as the reference reads it from the JSON.
double raw_dur_us(const index::EventIndex& index, index::Row row);

// A GPU event's args.stream as the reference reads it: nullopt when the trace wrote none.
std::optional<std::int64_t> args_stream(const index::EventIndex& index, index::Row gpu_row);

// {name, dur, stream} of one GPU event, the entry of a kernel_details list.
KernelDetail kernel_detail(const index::EventIndex& index, index::Row gpu_row);

// One op instance (kernel launcher, trace-format spec §6) with the fields the ops sheets print.
// Texts are views of the index's string pool (name) or of interned texts (the rest; see
// intern_report_text): rows are cheap to build and copy, and equal texts share one address,
// which the sheets' groupings rely on.
struct LauncherRow {
  index::Row row = 0;
  std::string_view name;
  std::string_view category;  // spec §7 on the name and the first direct kernel
  double direct_kernel_time_us = 0;
  double subtree_kernel_time_us = 0;
  KernelDetails kernel_details;  // direct kernels sorted by start time (stable)
  // Python str() of the shape args after list->tuple conversion; "None" when absent.
  std::string_view input_dims;
  std::string_view input_type;
  std::string_view input_strides;
  std::string_view concrete_inputs;
  HostNames names;
  // With --group_by_parent_module (else empty): the op's call stack as a Python list repr and
  // its parent module (call_stacks.hpp, module_call_stack).
  std::string_view call_stack;
  std::string_view parent_module;
};

// How the ops sheets group (the reference's --group_by_num_kernels, --group_by_parent_module).
struct OpsSheetsGrouping {
  bool num_kernels = false;    // ops_unique_args keyed on the direct kernel count too
  bool parent_module = false;  // all three keyed on parent_module, with call-stack columns
};

// Builds launcher rows one launcher at a time, with caches for what repeats across millions
// of ops: categories per (name, first kernel), reprs per arg text, names per thread.
class LauncherRowBuilder {
 public:
  explicit LauncherRowBuilder(const LauncherSheetInputs& inputs);
  // Overwrites `row`, reusing its kernel list's capacity.
  void fill(const model::KernelLauncher& launcher, LauncherRow& row);

 private:
  std::string_view category(const LauncherRow& row);
  void fill_module(LauncherRow& row);

  const LauncherSheetInputs& in_;
  text::ArgReprCache args_;
  HostNamesCache names_;
  std::unordered_map<std::uint64_t, std::string_view> categories_;  // (name, first kernel)
  std::vector<index::Row> by_start_;                                // scratch
  // (name, python parent) -> (call stack, parent module): the stack above a parent is fixed.
  std::unordered_map<std::uint64_t, std::pair<std::string_view, std::string_view>> modules_;
};

// Launcher rows in the launchers' order (start time).
std::vector<LauncherRow> build_launcher_rows(const LauncherSheetInputs& inputs);

// The reference treats a trace without any cpu_op as GPU-only: no ops sheets (spec §8).
bool is_gpu_only_trace(const index::EventIndex& index);

// The three ops sheets accumulated one launcher row at a time (rows in launcher order, from a
// LauncherRowBuilder: groups are keyed on the addresses of the rows' texts). Only the
// per-group columns are kept, not the rows.
class OpsSheetsBuilder {
 public:
  explicit OpsSheetsBuilder(OpsSheetsGrouping grouping = {});
  ~OpsSheetsBuilder();
  OpsSheetsBuilder(const OpsSheetsBuilder&) = delete;
  OpsSheetsBuilder& operator=(const OpsSheetsBuilder&) = delete;

  void reserve(std::size_t rows);
  void add(const LauncherRow& row);
  SheetTable ops_summary_by_category() const;
  SheetTable ops_summary() const;
  SheetTable ops_unique_args() const;

 private:
  struct Groups;
  std::unique_ptr<Groups> groups_;
  OpsSheetsGrouping grouping_;
};

// ops_summary_by_category (spec §8.2): per op category, Count and direct kernel time.
SheetTable ops_summary_by_category_sheet(std::span<const LauncherRow> rows,
                                         OpsSheetsGrouping grouping = {});
// ops_summary (spec §8.3): per op name, direct/subtree kernel time, Count, Categories.
SheetTable ops_summary_sheet(std::span<const LauncherRow> rows, OpsSheetsGrouping grouping = {});
// ops_unique_args (spec §8.4): per (name, category, process/thread names, shape args[, number
// of direct kernels]).
SheetTable ops_unique_args_sheet(std::span<const LauncherRow> rows,
                                 OpsSheetsGrouping grouping = {});

}  // namespace traceprism::perf_report
