#include "perf_report/gpu_subtrees.hpp"

#include <algorithm>
#include <span>
#include <utility>

#include "model/gpu_timeline.hpp"

namespace traceprism::perf_report {

using index::EventKind;

GpuSubtrees::GpuSubtrees(const index::EventIndex& index, const model::CallTree& tree,
                         const model::LaunchLinks& links,
                         const model::ForwardBackwardLinks* fwd_bwd)
    : index_(index), tree_(tree), links_(links), fwd_bwd_(fwd_bwd) {
  classify_gpu_events();
  mark_gpu_events();
  if (fwd_bwd_)
    for (const auto& [backward, forward] : fwd_bwd_->pairs())
      backward_of_[forward].push_back(backward);
  mark_forward_ops();
}

// Once per GPU event, so queries are lookups (a graph-replay trace asks for millions of
// kernels) and the table stays read-only for the sheets' threads.
void GpuSubtrees::classify_gpu_events() {
  communication_kernel_.assign(index_.size(), false);
  model::GpuActivityByName activity(index_);
  for (EventKind kind : {EventKind::kKernel, EventKind::kGpuMemcpy, EventKind::kGpuMemset})
    for (Row gpu : index_.rows_of_kind(kind))
      communication_kernel_[gpu] = activity(gpu) == model::GpuActivity::kCommunication;
}

// The reference appends each launched GPU event to the launching call and to every ancestor
// of it; marking the same paths tells which events have gpu_events without storing the lists.
// A path stops at the first ancestor already marked (its own ancestors are marked too).
void GpuSubtrees::mark_gpu_events() {
  has_gpu_.assign(index_.size(), false);
  communication_.assign(index_.size(), false);
  auto communication = [&](Row gpu) { return is_communication(gpu); };
  auto mark_up = [&](Row from, std::vector<bool>& flags) {
    for (std::int32_t cur = static_cast<std::int32_t>(from); cur >= 0 && !flags[cur];
         cur = tree_.parent(static_cast<Row>(cur)))
      flags[cur] = true;
  };
  for (EventKind kind : {EventKind::kCudaRuntime, EventKind::kCudaDriver}) {
    for (Row runtime : index_.rows_of_kind(kind)) {
      const auto launched = links_.launched(runtime);
      if (launched.empty()) continue;
      mark_up(runtime, has_gpu_);
      if (std::any_of(launched.begin(), launched.end(), communication))
        mark_up(runtime, communication_);
    }
  }
  // A pseudo op is above its launch only through the children lists (gpu_events is a
  // downward walk, so it finds the launch's events).
  for (const auto& [pseudo_op, launch] : tree_.adoptions()) {
    has_gpu_[pseudo_op] = has_gpu_[launch];
    communication_[pseudo_op] = communication_[launch];
  }
}

// forward_below_: the event is a forward op with backward nodes, or has one below it.
void GpuSubtrees::mark_forward_ops() {
  forward_below_.assign(index_.size(), false);
  for (const auto& entry : backward_of_)
    for (std::int32_t cur = static_cast<std::int32_t>(entry.first);
         cur >= 0 && !forward_below_[cur]; cur = tree_.parent(static_cast<Row>(cur)))
      forward_below_[cur] = true;
}

// Pruning keeps the preorder of the visited events: only subtrees without anything the walk
// looks for are skipped.
template <typename Visit>
void GpuSubtrees::walk(Row root, const std::vector<bool>& below, Visit&& visit) const {
  thread_local std::vector<Row> stack;  // reused: walks run per row of every sheet
  stack.assign(1, root);
  while (!stack.empty()) {
    const Row row = stack.back();
    stack.pop_back();
    visit(row);
    const auto children = tree_.children(row);
    for (auto it = children.rbegin(); it != children.rend(); ++it)
      if (below[*it]) stack.push_back(*it);
  }
}

std::vector<Row> GpuSubtrees::gpu_events(Row host) const {
  std::vector<Row> out;
  gpu_events(host, out);
  return out;
}

void GpuSubtrees::gpu_events(Row host, std::vector<Row>& out) const {
  out.clear();
  if (!has_gpu_[host]) return;
  thread_local std::vector<std::pair<Row, std::span<const Row>>> launches;  // (call, launched)
  launches.clear();
  walk(host, has_gpu_, [&](Row row) {
    if (!index::is_runtime_kind(index_.kind(row))) return;
    if (const auto launched = links_.launched(row); !launched.empty())
      launches.emplace_back(row, launched);
  });
  // The reference walks the launching calls in file order (runtime_uids), not tree order.
  std::sort(launches.begin(), launches.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [runtime, launched] : launches)
    out.insert(out.end(), launched.begin(), launched.end());
}

std::int32_t GpuSubtrees::forward_of(Row backward) const {
  return fwd_bwd_ ? fwd_bwd_->forward_of(backward) : -1;
}

std::vector<Row> GpuSubtrees::backward_nodes(Row op) const {
  std::vector<Row> out;
  if (!has_backward_nodes(op)) return out;
  walk(op, forward_below_, [&](Row row) {
    auto it = backward_of_.find(row);
    if (it != backward_of_.end()) out.insert(out.end(), it->second.begin(), it->second.end());
  });
  return out;
}

std::vector<Row> GpuSubtrees::backward_gpu_events(Row op) const {
  std::vector<Row> out;
  backward_gpu_events(op, out);
  return out;
}

void GpuSubtrees::backward_gpu_events(Row op, std::vector<Row>& out) const {
  out.clear();
  std::vector<Row> events;
  for (Row backward : backward_nodes(op)) {
    gpu_events(backward, events);
    out.insert(out.end(), events.begin(), events.end());
  }
}

}  // namespace traceprism::perf_report
