#include "report/gpu_subtrees.hpp"

#include <algorithm>

#include "model/gpu_timeline.hpp"

namespace traceprism::report {

using index::EventKind;

GpuSubtrees::GpuSubtrees(const index::EventIndex& index, const model::CallTree& tree,
                         const model::LaunchLinks& links,
                         const model::ForwardBackwardLinks* fwd_bwd)
    : index_(index), tree_(tree), links_(links), fwd_bwd_(fwd_bwd) {
  count_gpu_events();
  if (fwd_bwd_)
    for (const auto& [backward, forward] : fwd_bwd_->pairs())
      backward_of_[forward].push_back(backward);
}

bool GpuSubtrees::is_communication(Row gpu) const {
  return model::classify_gpu_event(index_.kind(gpu), index_.name(gpu)) ==
         model::GpuActivity::kCommunication;
}

// The reference appends each launched GPU event to the launching call and to every ancestor
// of it; counting along the same paths gives len(gpu_events) without storing the lists.
void GpuSubtrees::count_gpu_events() {
  counts_.assign(index_.size(), 0);
  communication_.assign(index_.size(), false);
  for (EventKind kind : {EventKind::kCudaRuntime, EventKind::kCudaDriver}) {
    for (Row runtime : index_.rows_of_kind(kind)) {
      for (Row gpu : links_.launched(runtime)) {
        const bool communication = is_communication(gpu);
        for (std::int32_t cur = static_cast<std::int32_t>(runtime); cur >= 0;
             cur = tree_.parent(static_cast<Row>(cur))) {
          ++counts_[cur];
          if (communication) communication_[cur] = true;
        }
      }
    }
  }
}

std::vector<Row> GpuSubtrees::subtree(Row host) const {
  std::vector<Row> out;
  std::vector<Row> stack{host};
  while (!stack.empty()) {
    const Row row = stack.back();
    stack.pop_back();
    out.push_back(row);
    const auto children = tree_.children(row);
    stack.insert(stack.end(), children.rbegin(), children.rend());
  }
  return out;
}

std::vector<Row> GpuSubtrees::gpu_events(Row host) const {
  std::vector<Row> out;
  if (counts_[host] == 0) return out;
  std::vector<Row> launches;
  for (Row row : subtree(host))
    if (index::is_runtime_kind(index_.kind(row)) && !links_.launched(row).empty())
      launches.push_back(row);
  // The reference walks the launching calls in file order (runtime_uids), not tree order.
  std::sort(launches.begin(), launches.end());
  out.reserve(counts_[host]);
  for (Row runtime : launches) {
    const auto launched = links_.launched(runtime);
    out.insert(out.end(), launched.begin(), launched.end());
  }
  return out;
}

std::int32_t GpuSubtrees::forward_of(Row backward) const {
  return fwd_bwd_ ? fwd_bwd_->forward_of(backward) : -1;
}

std::vector<Row> GpuSubtrees::backward_nodes(Row op) const {
  std::vector<Row> out;
  if (backward_of_.empty()) return out;
  for (Row row : subtree(op)) {
    auto it = backward_of_.find(row);
    if (it != backward_of_.end()) out.insert(out.end(), it->second.begin(), it->second.end());
  }
  return out;
}

std::vector<Row> GpuSubtrees::backward_gpu_events(Row op) const {
  std::vector<Row> out;
  for (Row backward : backward_nodes(op)) {
    std::vector<Row> events = gpu_events(backward);
    out.insert(out.end(), events.begin(), events.end());
  }
  return out;
}

}  // namespace traceprism::report
