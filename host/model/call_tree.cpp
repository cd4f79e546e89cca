#include "model/call_tree.hpp"

#include <algorithm>
#include <unordered_map>

namespace traceprism::model {

using index::EventKind;

namespace {

struct StackEntry {
  Row row;
  double end_us;
};

struct ThreadStack {
  std::vector<StackEntry> entries;
  int cpu_ops = 0;  // cpu_ops currently on the stack
};

}  // namespace

CallTree CallTree::build(const index::EventIndex& index, const CallTreeOptions& options) {
  CallTree tree;
  const std::size_t n = index.size();
  tree.parent_.assign(n, kNoParent);
  tree.state_.assign(n, State::kNotInTree);

  // Sorted like the reference: by its double timestamp, ties in file order. Sorting (ts, row)
  // pairs is that stable order and keeps the keys next to each other in memory.
  std::vector<std::pair<double, Row>> order;
  auto add = [&](EventKind k) {
    for (Row r : index.rows_of_kind(k)) order.emplace_back(index.ts_us(r), r);
  };
  add(EventKind::kCpuOp);
  add(EventKind::kCudaRuntime);
  add(EventKind::kCudaDriver);
  if (options.include_python) add(EventKind::kPythonFunction);
  std::sort(order.begin(), order.end());
  std::vector<Row> input(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) input[i] = order[i].second;
  std::vector<std::pair<double, Row>>().swap(order);
  tree.node_count_ = input.size();

  auto thread_key = [&](Row r) { return (std::uint64_t(index.pid(r)) << 32) | index.tid(r); };
  std::unordered_map<std::uint64_t, ThreadStack> stacks;
  std::vector<std::pair<Row, Row>> edges;  // (parent, child) in processing order
  if (options.build_children) edges.reserve(input.size());

  for (Row r : input) {
    tree.state_[r] = State::kPlaced;
    ThreadStack& stack = stacks[thread_key(r)];
    const double ts = index.ts_us(r);
    const double end = index.end_us(r);
    auto pop = [&] {
      if (index.kind(stack.entries.back().row) == EventKind::kCpuOp) --stack.cpu_ops;
      stack.entries.pop_back();
    };
    while (!stack.entries.empty() && ts >= stack.entries.back().end_us) pop();
    if (!stack.entries.empty() && end > stack.entries.back().end_us) {
      const double overlap = stack.entries.back().end_us - ts;
      if (overlap < 1.0 && stack.entries.size() >= 2) {
        pop();
      } else {
        tree.state_[r] = State::kDropped;
        ++tree.dropped_count_;
        continue;
      }
    }
    if (!stack.entries.empty()) {
      tree.parent_[r] = static_cast<std::int32_t>(stack.entries.back().row);
      if (options.build_children) edges.emplace_back(stack.entries.back().row, r);
    }
    stack.entries.push_back({r, end});
    if (index.kind(r) == EventKind::kCpuOp) {
      if (stack.cpu_ops == 0) tree.cpu_op_roots_.push_back(r);
      ++stack.cpu_ops;
    }
  }

  // Children lists in processing order (counting sort by parent keeps that order).
  auto& c = tree.children_;
  if (!options.build_children) {
    c.offsets.assign(n + 1, 0);  // every row: no children
    return tree;
  }
  c.offsets.assign(n + 1, 0);
  for (auto& [p, child] : edges) ++c.offsets[p + 1];
  for (std::size_t i = 0; i < n; ++i) c.offsets[i + 1] += c.offsets[i];
  c.rows.resize(edges.size());
  std::vector<std::uint32_t> fill(c.offsets.begin(), c.offsets.end() - 1);
  for (auto& [p, child] : edges) c.rows[fill[p]++] = child;
  return tree;
}

}  // namespace traceprism::model
