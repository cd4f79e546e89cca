#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "index/event_index.hpp"
#include "model/launch_links.hpp"
#include "perf_report/kernel_details_summary.hpp"

namespace traceprism::perf_report {

// Call stacks as the reference prints them (inference-mode spec §4 "Call stacks"). Every
// function reads a row's parent in the call tree with python frames (`python_parents`, from
// CallTree::parents with include_python; -1 for a root).

// The text with every `_<digits>` removed (re.sub(r"_\d+", "", text)): "nn.Module: Linear_0"
// -> "nn.Module: Linear".
std::string without_counters(std::string_view text);

// --group_by_parent_module: the op's name, then the names of its ancestors that contain
// "nn.Module", nearest first, each cut to 256 characters + ".."; the parent module is the
// second entry without counters, or "NA".
struct ModuleCallStack {
  std::vector<std::string> frames;
  std::string parent_module;
};
ModuleCallStack module_call_stack(const index::EventIndex& index,
                                  std::span<const std::int32_t> python_parents, index::Row row);

// --include_call_stack: each kernel's stack below a collected event of the unified table. A
// frame is an event that is a cpu_op or whose name contains "nn.Module", "::" or "/", named
// without counters; the collected event's stack is its frames from the root down to itself,
// and a kernel's stack adds the frames from the kernel's launch up to (not including) the
// event, outermost first.
class KernelCallStacks {
 public:
  KernelCallStacks(const index::EventIndex& index, const model::LaunchLinks& links,
                   std::span<const std::int32_t> python_parents)
      : index_(index), links_(links), parents_(python_parents) {}

  // Sets details[i].call_stack for gpu_events[i], all under `collected`.
  void annotate(index::Row collected, std::span<const index::Row> gpu_events,
                KernelDetails& details);

 private:
  std::int32_t parent(index::Row row) const;
  // The row's frame name (interned), or "" when the row is not a frame.
  std::string_view frame(index::Row row);
  // Frames from `row` up to the root (or to `stop`, excluded), nearest first.
  void frames_up(index::Row row, std::int32_t stop, std::vector<std::string_view>& out);

  const index::EventIndex& index_;
  const model::LaunchLinks& links_;
  std::span<const std::int32_t> parents_;
  std::unordered_map<index::StringId, std::string_view> frame_names_;
  std::vector<std::string_view> scratch_;
};

// A unified_perf_summary group's call_stack_full: per kernel summary entry the chain = its
// call stack + [kernel name]; one entry gives that chain, several their longest common prefix
// followed by each distinct remaining tail as a sub-list (first-seen order). It views the
// summary's kernel names: keep the summary alive while it is used.
struct FullCallStack {
  std::vector<std::string_view> prefix;
  std::vector<std::vector<std::string_view>> tails;  // empty for a single entry
  bool found = false;                                // false: no kernel entry ("Not found")
};
FullCallStack full_call_stack(const std::vector<KernelSummaryEntry>& summary);
// The cell: a Python list (tails as sub-lists), or "Not found".
std::string full_call_stack_repr(const FullCallStack& stack);

// The source line an op is called from (`entry_point`): in the flattened stack, the op's
// frame (its name, else its name without a trailing counter; the last match); then inward the
// first later ".py" frame whose function (after the last "): ", lower-cased) contains the op's
// local name (after the last "::", lower-cased); else outward the nearest earlier ".py" frame
// that is not a wrapper (torch dispatch, nn.Module call, decorator frames). "Not found" when
// neither exists.
std::string entry_point(std::string_view op_name, const FullCallStack& stack);

}  // namespace traceprism::perf_report
