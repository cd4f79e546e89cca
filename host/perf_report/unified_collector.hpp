#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "index/event_index.hpp"
#include "model/op_work.hpp"
#include "perf_report/gpu_subtrees.hpp"

namespace traceprism::perf_report {

// Which host events the unified perf table shows (trace-format spec §8.5 step 1): a
// depth-first walk from the cpu_op roots that stops at the outermost op with a perf model, at
// a "sole backward" op of a forward op with a backward model, or at a leaf op that launches
// kernels itself (unless it launches collectives).
class UnifiedCollector {
 public:
  UnifiedCollector(const GpuSubtrees& subtrees, const model::OpWorkTable& op_work);

  // The collected events, in traversal order.
  std::vector<Row> collect();

  // The event's op-work answer when its name has a perf model of its own (the reference's
  // resolve(name)); nullopt otherwise.
  std::optional<model::OpWork> own_model(Row row) const;
  bool has_own_model(Row row) const { return own_model(row).has_value(); }
  // The forward op whose backward numbers an event stands for, or -1: an autograd wrapper
  // within 5 levels above the event is linked to a forward op whose model has a backward
  // model, and the wrapper holds exactly one kernel-launching op named after it. For a
  // Synthetic Op pass the event it copies (the copy keeps that event's parent).
  std::int32_t sole_backward_forward(Row row) const;

 private:
  void visit(Row row);
  bool model_below(Row row);  // a cpu_op below (python frames transparent) has a model and GPU work
  bool is_leaf_cpu_op(Row row) const;
  bool reaches_gpu(Row row, int depth) const;
  std::size_t count_backward_ops(Row wrapper, std::string_view name) const;
  void visit_children(Row row);

  const GpuSubtrees& subtrees_;
  const index::EventIndex& index_;
  const model::CallTree& tree_;
  const model::OpWorkTable& op_work_;
  bool python_in_tree_ = false;
  std::vector<bool> visited_;
  // model_below() per row once known: bits, not bytes (the rows of a multi-GB trace).
  std::vector<bool> model_below_known_, model_below_;
  std::vector<Row> collected_;
};

}  // namespace traceprism::perf_report
