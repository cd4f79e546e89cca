#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "index/event_index.hpp"
#include "model/call_tree.hpp"
#include "model/forward_backward.hpp"
#include "model/launch_links.hpp"

namespace traceprism::report {

using index::Row;

// The GPU work below host events as the reference's perf sheets see it: an event's
// `gpu_events` (every GPU event launched from its subtree, trace-format spec §3.4) and the GPU
// events of the autograd backward nodes linked to an op or to anything below it
// (`subtree_bwd_events`, §3.7). Counts are precomputed once; lists are built on request.
class GpuSubtrees {
 public:
  GpuSubtrees(const index::EventIndex& index, const model::CallTree& tree,
              const model::LaunchLinks& links, const model::ForwardBackwardLinks* fwd_bwd);

  // len(gpu_events) of a host event.
  std::uint32_t gpu_event_count(Row host) const { return counts_[host]; }
  // Whether a communication kernel (NCCL, RCCL, ...) is among its gpu_events.
  bool launches_communication(Row host) const { return communication_[host]; }
  bool is_communication(Row gpu) const;

  // gpu_events in the reference's order: launching calls in file order, a graph launch's
  // events in file order.
  std::vector<Row> gpu_events(Row host) const;

  // The autograd forward op linked to a backward node, or -1.
  std::int32_t forward_of(Row backward) const;
  // subtree_bwd_events: backward nodes linked to `op` or to one of its descendants.
  std::vector<Row> backward_nodes(Row op) const;
  // The GPU events below those backward nodes (the kernels of the op's backward pass).
  std::vector<Row> backward_gpu_events(Row op) const;

  const index::EventIndex& index() const { return index_; }
  const model::CallTree& tree() const { return tree_; }
  const model::LaunchLinks& links() const { return links_; }

 private:
  void count_gpu_events();
  std::vector<Row> subtree(Row host) const;  // host and its descendants, preorder

  const index::EventIndex& index_;
  const model::CallTree& tree_;
  const model::LaunchLinks& links_;
  const model::ForwardBackwardLinks* fwd_bwd_;
  std::vector<std::uint32_t> counts_;
  std::vector<bool> communication_;
  std::unordered_map<Row, std::vector<Row>> backward_of_;  // forward op -> backward nodes
};

}  // namespace traceprism::report
