#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "index/event_index.hpp"

namespace traceprism::model {

using index::Row;

// Training traces: which forward op each autograd backward node belongs to (trace-format spec
// §3.7). cpu_ops sharing a `Sequence number` form a group; its first
// "autograd::engine::evaluate_function: ..." op is the backward node, and the latest-starting
// op of the group on another thread is its forward op.
class ForwardBackwardLinks {
 public:
  static ForwardBackwardLinks build(const index::EventIndex& index);

  // The forward op of a backward node, or -1.
  std::int32_t forward_of(Row backward) const;
  // Backward nodes of a forward op, in group order.
  std::vector<Row> backward_of(Row forward) const;
  // (backward, forward) pairs, by backward row.
  const std::vector<std::pair<Row, Row>>& pairs() const { return pairs_; }

 private:
  std::vector<std::pair<Row, Row>> pairs_;
};

}  // namespace traceprism::model
