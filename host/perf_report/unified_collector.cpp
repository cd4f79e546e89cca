#include "perf_report/unified_collector.hpp"

#include <string_view>

namespace traceprism::perf_report {

using index::EventKind;

namespace {

constexpr int kSoleBackwardLevels = 5;  // how far up the reference looks for the wrapper
constexpr int kLeafSearchDepth = 10;    // how deep it looks for a leaf op's kernels

}  // namespace

UnifiedCollector::UnifiedCollector(const GpuSubtrees& subtrees, const model::OpWorkTable& op_work)
    : subtrees_(subtrees),
      index_(subtrees.index()),
      tree_(subtrees.tree()),
      op_work_(op_work),
      visited_(subtrees.index().size(), false),
      model_below_known_(subtrees.index().size(), false),
      model_below_(subtrees.index().size(), false) {
  // python_function frames are tree nodes only when the tree was built with them.
  for (Row r : index_.rows_of_kind(EventKind::kPythonFunction)) {
    if (tree_.in_tree(r)) {
      python_in_tree_ = true;
      break;
    }
  }
}

std::vector<Row> UnifiedCollector::collect() {
  if (python_in_tree_) {
    for (Row r : index_.rows_of_kind(EventKind::kPythonFunction))
      if (tree_.in_tree(r) && tree_.parent(r) == model::kNoParent) visit(r);
  }
  for (Row r : tree_.cpu_op_roots()) visit(r);
  return std::move(collected_);
}

std::optional<model::OpWork> UnifiedCollector::own_model(Row row) const {
  std::optional<model::OpWork> work = op_work_.find(row);
  if (work && !work->has_model) work.reset();
  return work;
}

void UnifiedCollector::visit_children(Row row) {
  for (Row child : tree_.children(row)) visit(child);
}

void UnifiedCollector::visit(Row row) {
  if (visited_[row]) return;
  visited_[row] = true;
  const bool cpu_op = index_.kind(row) == EventKind::kCpuOp;
  if (!python_in_tree_ && !cpu_op) return;
  if (!subtrees_.has_gpu_events(row)) return;
  if (has_own_model(row)) {
    collected_.push_back(row);
    return;
  }
  if (sole_backward_forward(row) >= 0) {
    // A finer op with its own model below wins over the backward numbers of the forward op.
    if (model_below(row))
      visit_children(row);
    else
      collected_.push_back(row);
    return;
  }
  if (model_below(row)) {
    visit_children(row);
    return;
  }
  if (is_leaf_cpu_op(row)) {
    // (A leaf whose direct child op has a model was already sent to its children above.)
    if (!subtrees_.launches_communication(row)) collected_.push_back(row);
    return;
  }
  visit_children(row);
}

bool UnifiedCollector::model_below(Row row) {
  if (model_below_known_[row]) return model_below_[row];
  bool found = false;
  for (Row child : tree_.children(row)) {
    const EventKind kind = index_.kind(child);
    if (kind == EventKind::kCpuOp) {
      found = (has_own_model(child) && subtrees_.has_gpu_events(child)) || model_below(child);
    } else if (kind == EventKind::kPythonFunction) {
      found = model_below(child);
    }
    if (found) break;
  }
  model_below_known_[row] = true;
  model_below_[row] = found;
  return found;
}

bool UnifiedCollector::is_leaf_cpu_op(Row row) const {
  return index_.kind(row) == EventKind::kCpuOp && reaches_gpu(row, 0);
}

// The reference looks for a GPU event among the children, descending only through
// cuda_runtime and python_function nodes: an op whose launches are cuda_driver calls
// (cuLaunchKernel) is not a leaf.
bool UnifiedCollector::reaches_gpu(Row row, int depth) const {
  if (depth > kLeafSearchDepth) return false;
  if (index_.kind(row) == EventKind::kCudaRuntime && !subtrees_.links().launched(row).empty())
    return true;
  for (Row child : tree_.children(row)) {
    const EventKind kind = index_.kind(child);
    if ((kind == EventKind::kCudaRuntime || kind == EventKind::kPythonFunction) &&
        reaches_gpu(child, depth + 1))
      return true;
  }
  return false;
}

std::int32_t UnifiedCollector::sole_backward_forward(Row row) const {
  std::int32_t wrapper = -1;
  Row current = row;
  for (int level = 0; level < kSoleBackwardLevels; ++level) {
    const std::int32_t parent = tree_.parent(current);
    if (parent < 0) break;
    if (subtrees_.forward_of(static_cast<Row>(parent)) >= 0) {
      wrapper = parent;
      break;
    }
    current = static_cast<Row>(parent);
  }
  if (wrapper < 0) return -1;
  const std::int32_t forward = subtrees_.forward_of(static_cast<Row>(wrapper));
  const std::optional<model::OpWork> work = op_work_.find(static_cast<Row>(forward));
  if (!work || !work->has_model || work->bwd_category == 0 ||
      work->bwd_status != model::OpWorkStatus::kModelled)
    return -1;
  // "autograd::engine::evaluate_function: MmBackward0" -> ops named "MmBackward0".
  const std::string_view wrapper_name = index_.name(static_cast<Row>(wrapper));
  const std::size_t colon = wrapper_name.find(": ");
  const std::string_view main_name =
      colon == std::string_view::npos ? std::string_view() : wrapper_name.substr(colon + 2);
  return count_backward_ops(static_cast<Row>(wrapper), main_name) == 1 ? forward : -1;
}

std::size_t UnifiedCollector::count_backward_ops(Row wrapper, std::string_view name) const {
  std::size_t count = 0;
  for (Row child : tree_.children(wrapper)) {
    if (index_.kind(child) != EventKind::kCpuOp) continue;
    if (subtrees_.has_gpu_events(child) && (name.empty() || index_.name(child) == name)) ++count;
    count += count_backward_ops(child, name);
  }
  return count;
}

}  // namespace traceprism::perf_report
