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

// The tree's rows sorted like the reference: by its double timestamp, ties in file order.
// Sorting (ts, row) pairs is that stable order and keeps the keys next to each other in memory.
std::vector<std::pair<double, Row>> processing_order(const index::EventIndex& index,
                                                     const CallTreeOptions& options) {
  const bool include_python = options.include_python;
  const Row end = options.grafts ? options.grafts->first_row : static_cast<Row>(index.size());
  std::vector<EventKind> kinds = {EventKind::kCpuOp, EventKind::kCudaRuntime,
                                  EventKind::kCudaDriver};
  if (include_python) kinds.push_back(EventKind::kPythonFunction);
  std::size_t count = 0;
  for (EventKind k : kinds) count += index.rows_of_kind(k).size();
  std::vector<std::pair<double, Row>> order;
  order.reserve(count);  // grown by doubling, it would peak at twice this
  for (EventKind k : kinds)
    for (Row r : index.rows_of_kind(k))
      if (r < end) order.emplace_back(index.ts_us(r), r);
  std::sort(order.begin(), order.end());
  return order;
}

// What the stack walk decided for one row.
struct Placement {
  Row row;
  bool dropped;
  std::int32_t parent;  // kNoParent for a root (and for a dropped row)
  bool cpu_op_root;     // a cpu_op with no cpu_op below it on its stack
};

// The reference's stack walk over rows in processing order: a stack per thread, siblings when a
// start equals the top's end, and the bleed rule. Calls `decided(Placement)` per row.
template <class Decided>
void walk_stacks(const index::EventIndex& index, const std::vector<std::pair<double, Row>>& order,
                 Decided decided) {
  auto thread_key = [&](Row r) { return (std::uint64_t(index.pid(r)) << 32) | index.tid(r); };
  std::unordered_map<std::uint64_t, ThreadStack> stacks;
  for (const auto& [ts, r] : order) {
    ThreadStack& stack = stacks[thread_key(r)];
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
        decided(Placement{r, true, kNoParent, false});
        continue;
      }
    }
    const std::int32_t parent =
        stack.entries.empty() ? kNoParent : static_cast<std::int32_t>(stack.entries.back().row);
    const bool cpu_op = index.kind(r) == EventKind::kCpuOp;
    decided(Placement{r, false, parent, cpu_op && stack.cpu_ops == 0});
    stack.entries.push_back({r, end});
    if (cpu_op) ++stack.cpu_ops;
  }
}

// Places the grafted rows under the parents the merge gave them, in row order (a parent before
// its children). Without python frames in the tree, a grafted frame is skipped and its children
// go to its nearest kept ancestor.
template <class Decided>
void place_grafts(const index::EventIndex& index, const CallTreeOptions& options,
                  const std::vector<std::int32_t>& base_parent, Decided decided) {
  if (!options.grafts) return;
  const Grafts& g = *options.grafts;
  auto kept = [&](Row r) {
    return options.include_python || index.kind(r) != EventKind::kPythonFunction;
  };
  auto grafted_parent = [&](Row r) { return g.parent[r - g.first_row]; };
  // cpu_op_root needs "a cpu_op above": known per grafted row, walked up once for base rows.
  std::vector<bool> cpu_op_above(g.parent.size(), false);
  auto has_cpu_op_above = [&](std::int32_t p) {
    while (p != kNoParent) {
      const Row row = static_cast<Row>(p);
      if (index.kind(row) == EventKind::kCpuOp) return true;
      if (row >= g.first_row) return static_cast<bool>(cpu_op_above[row - g.first_row]);
      p = base_parent[row];
    }
    return false;
  };
  for (Row r = g.first_row; r < index.size(); ++r) {
    std::int32_t parent = grafted_parent(r);
    while (parent != kNoParent && static_cast<Row>(parent) >= g.first_row &&
           !kept(static_cast<Row>(parent)))
      parent = grafted_parent(static_cast<Row>(parent));
    cpu_op_above[r - g.first_row] = has_cpu_op_above(parent);
    if (!kept(r) || grafted_parent(r) == kNoParent) continue;
    const bool cpu_op = index.kind(r) == EventKind::kCpuOp;
    decided(Placement{r, false, parent, cpu_op && !cpu_op_above[r - g.first_row]});
  }
}

// Moves each adopted launch's edge from its parent to its pseudo op, which the edges list
// has last among that parent's children (the reference appends it there).
void adopt_launches(std::span<const std::pair<Row, Row>> adoptions,
                    const std::vector<std::int32_t>& parent,
                    std::vector<std::pair<Row, Row>>& edges) {
  if (adoptions.empty()) return;
  std::unordered_map<Row, Row> adopter;
  for (const auto& [pseudo_op, launch] : adoptions) adopter.emplace(launch, pseudo_op);
  std::erase_if(edges, [&](const std::pair<Row, Row>& e) {
    auto it = adopter.find(e.second);
    return it != adopter.end() && e.first != it->second &&
           static_cast<std::int32_t>(e.first) == parent[e.second];
  });
  for (const auto& [pseudo_op, launch] : adoptions) edges.emplace_back(pseudo_op, launch);
}

// Places each adopting pseudo op under its launch's parent (Grafts::adoptions).
template <class Decided>
void place_adoptions(const index::EventIndex& index, const CallTreeOptions& options,
                     const std::vector<std::int32_t>& parent, Decided decided) {
  if (!options.grafts) return;
  auto has_cpu_op_above = [&](std::int32_t p) {
    for (; p != kNoParent; p = parent[static_cast<Row>(p)])
      if (index.kind(static_cast<Row>(p)) == EventKind::kCpuOp) return true;
    return false;
  };
  for (const auto& [pseudo_op, launch] : options.grafts->adoptions) {
    const std::int32_t above = parent[launch];
    decided(Placement{pseudo_op, false, above, !has_cpu_op_above(above)});
  }
}

}  // namespace

CallTree CallTree::build(const index::EventIndex& index, const CallTreeOptions& options) {
  CallTree tree;
  tree.grafts_ = options.grafts;
  const std::size_t n = index.size();
  tree.parent_.assign(n, kNoParent);
  tree.state_.assign(n, State::kNotInTree);

  std::vector<std::pair<double, Row>> order = processing_order(index, options);
  std::vector<std::pair<Row, Row>> edges;  // (parent, child) in processing order
  edges.reserve(order.size());
  auto place = [&](const Placement& p) {
    ++tree.node_count_;
    if (p.dropped) {
      tree.state_[p.row] = State::kDropped;
      ++tree.dropped_count_;
      return;
    }
    tree.state_[p.row] = State::kPlaced;
    tree.parent_[p.row] = p.parent;
    if (p.parent != kNoParent) edges.emplace_back(static_cast<Row>(p.parent), p.row);
    if (p.cpu_op_root) tree.cpu_op_roots_.push_back(p.row);
  };
  walk_stacks(index, order, place);
  std::vector<std::pair<double, Row>>().swap(order);
  place_grafts(index, options, tree.parent_, place);
  place_adoptions(index, options, tree.parent_, place);
  adopt_launches(tree.adoptions(), tree.parent_, edges);

  // Children lists in processing order (counting sort by parent keeps that order).
  auto& c = tree.children_;
  c.offsets.assign(n + 1, 0);
  for (auto& [p, child] : edges) ++c.offsets[p + 1];
  for (std::size_t i = 0; i < n; ++i) c.offsets[i + 1] += c.offsets[i];
  c.rows.resize(edges.size());
  std::vector<std::uint32_t> fill(c.offsets.begin(), c.offsets.end() - 1);
  for (auto& [p, child] : edges) c.rows[fill[p]++] = child;
  return tree;
}

std::vector<std::int32_t> CallTree::parents(const index::EventIndex& index,
                                            const CallTreeOptions& options) {
  std::vector<std::int32_t> parent(index.size(), kNoParent);
  auto place = [&](const Placement& p) { parent[p.row] = p.parent; };
  walk_stacks(index, processing_order(index, options), place);
  place_grafts(index, options, parent, place);
  place_adoptions(index, options, parent, place);
  return parent;
}

}  // namespace traceprism::model
