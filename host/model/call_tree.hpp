#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "index/event_index.hpp"

namespace traceprism::model {

using index::Row;
inline constexpr std::int32_t kNoParent = -1;

// Rows the capture merge appended to the index (index/row_copies.hpp), with the parents the
// merge gives them: all of them carry their graph launch's time, so the stack walk cannot place
// them. parent[r - first_row] is a row of the tree or kNoParent (not in the tree).
struct Grafts {
  Row first_row = 0;
  std::vector<std::int32_t> parent;
  // Pseudo ops (inference-mode spec §4.2) as (pseudo op, launch): the pseudo op replaces the
  // launch among the children of the launch's parent and has the launch as its one child, while
  // the launch's parent() stays that parent, as in the reference (its QUIRK: upward walks skip
  // the pseudo op, downward walks find it). Their parent[] entries are kNoParent.
  std::vector<std::pair<Row, Row>> adoptions;
};

struct CallTreeOptions {
  // The reference adds python_function frames only for call stacks / recompute detection.
  bool include_python = false;
  std::shared_ptr<const Grafts> grafts;
};

// Host call stacks per (pid, tid) built with the reference's rules (trace-format spec §3.1):
// events sorted by ts (stable), a stack per thread, siblings when a start equals the top's end,
// and the "bleed" rule: an event that starts inside the top but ends after it is either nested
// after popping the top (overlap < 1 µs and the stack holds >= 2 entries) or dropped.
class CallTree {
 public:
  static CallTree build(const index::EventIndex& index, const CallTreeOptions& options = {});
  // parent() of every row of the same tree and nothing else: no children lists, states or
  // roots, and no copy of the processing order (half the temporary memory of build()).
  static std::vector<std::int32_t> parents(const index::EventIndex& index,
                                           const CallTreeOptions& options = {});

  std::int32_t parent(Row r) const { return parent_[r]; }
  // parent() of every row (kNoParent for roots and rows outside the tree).
  const std::vector<std::int32_t>& parent_column() const { return parent_; }
  std::span<const Row> children(Row r) const {
    return {children_.rows.data() + children_.offsets[r],
            children_.offsets[r + 1] - children_.offsets[r]};
  }
  bool in_tree(Row r) const { return state_[r] != State::kNotInTree; }
  bool dropped(Row r) const { return state_[r] == State::kDropped; }
  // cpu_ops with no cpu_op below them on their stack when placed, in processing order.
  const std::vector<Row>& cpu_op_roots() const { return cpu_op_roots_; }
  std::size_t dropped_count() const { return dropped_count_; }
  std::size_t node_count() const { return node_count_; }
  // The grafts the tree was built with (another tree of the same index needs them too).
  const std::shared_ptr<const Grafts>& grafts() const { return grafts_; }
  // Grafts::adoptions (pseudo op, launch): walks that mark ancestors through parent() mark the
  // pseudo op from its launch with these.
  std::span<const std::pair<Row, Row>> adoptions() const {
    if (!grafts_) return {};
    return grafts_->adoptions;
  }

 private:
  enum class State : std::uint8_t { kNotInTree, kPlaced, kDropped };
  std::vector<std::int32_t> parent_;
  std::vector<State> state_;
  index::RowGroups children_;  // one group per row
  std::vector<Row> cpu_op_roots_;
  std::size_t dropped_count_ = 0;
  std::size_t node_count_ = 0;
  std::shared_ptr<const Grafts> grafts_;
};

}  // namespace traceprism::model
