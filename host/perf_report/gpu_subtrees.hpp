#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "index/event_index.hpp"
#include "model/call_tree.hpp"
#include "model/forward_backward.hpp"
#include "model/launch_links.hpp"

namespace traceprism::perf_report {

using index::Row;

// The GPU work below host events as the reference's perf sheets see it: an event's
// `gpu_events` (every GPU event launched from its subtree, trace-format spec §3.4) and the GPU
// events of the autograd backward nodes linked to an op or to anything below it
// (`subtree_bwd_events`, §3.7). Built once per report (one pass over the launches) and shared
// by the unified table and the category sheets; lists are built on request.
//
// Every query walks only the branches that lead to what it looks for (GPU launches, linked
// forward ops): on a big trace the collected ops number in the hundreds of thousands, and a
// walk of the whole subtree under each of them (python frames, instant events, ...) was most
// of the report's time. Read-only once built: sheets on several threads may share it.
class GpuSubtrees {
 public:
  GpuSubtrees(const index::EventIndex& index, const model::CallTree& tree,
              const model::LaunchLinks& links, const model::ForwardBackwardLinks* fwd_bwd);

  // Whether a host event has gpu_events (len(gpu_events) > 0).
  bool has_gpu_events(Row host) const { return has_gpu_[host]; }
  // Whether a communication kernel (NCCL, RCCL, ...) is among its gpu_events.
  bool launches_communication(Row host) const { return communication_[host]; }
  bool is_communication(Row gpu) const { return communication_kernel_[gpu]; }

  // gpu_events in the reference's order: launching calls in file order, a graph launch's
  // events in file order. The second form fills `out` (cleared first), for callers that reuse
  // one buffer.
  std::vector<Row> gpu_events(Row host) const;
  void gpu_events(Row host, std::vector<Row>& out) const;

  // The autograd forward op linked to a backward node, or -1.
  std::int32_t forward_of(Row backward) const;
  // subtree_bwd_events: backward nodes linked to `op` or to one of its descendants, in
  // preorder of the linked events.
  std::vector<Row> backward_nodes(Row op) const;
  bool has_backward_nodes(Row op) const { return !backward_of_.empty() && forward_below_[op]; }
  // The GPU events below those backward nodes (the kernels of the op's backward pass).
  std::vector<Row> backward_gpu_events(Row op) const;
  void backward_gpu_events(Row op, std::vector<Row>& out) const;

  const index::EventIndex& index() const { return index_; }
  const model::CallTree& tree() const { return tree_; }
  const model::LaunchLinks& links() const { return links_; }

 private:
  void classify_gpu_events();
  void mark_gpu_events();
  void mark_forward_ops();
  // Preorder walk of `root`'s subtree entering only children whose `below` flag is set.
  template <typename Visit>
  void walk(Row root, const std::vector<bool>& below, Visit&& visit) const;

  const index::EventIndex& index_;
  const model::CallTree& tree_;
  const model::LaunchLinks& links_;
  const model::ForwardBackwardLinks* fwd_bwd_;
  // Per row: a GPU event is launched at or below it; one of those is a collective; an op with
  // backward nodes is at or below it. Bits, not counts: 3 bits a row on multi-GB traces.
  std::vector<bool> has_gpu_;
  std::vector<bool> communication_;
  std::vector<bool> communication_kernel_;  // GPU rows: the event itself is a collective
  std::vector<bool> forward_below_;
  std::unordered_map<Row, std::vector<Row>> backward_of_;  // forward op -> backward nodes
};

}  // namespace traceprism::perf_report
