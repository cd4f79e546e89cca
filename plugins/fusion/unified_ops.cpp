#include "unified_ops.hpp"

#include "row_groups.hpp"

#include <algorithm>
#include <numeric>

namespace traceprism::fusion {
namespace {

constexpr int kLeafSearchDepth = 10;  // how deep the reference looks for a leaf op's launches

class Collector {
 public:
  Collector(const TraceRows& rows, const GpuEventsBelow& gpu,
            const std::set<std::string, std::less<>>& modelled)
      : rows_(rows),
        gpu_(gpu),
        modelled_(modelled),
        visited_(rows.size(), false),
        below_known_(rows.size(), false),
        below_(rows.size(), false) {
    // Children in the order the reference's stack walk attached them: by start time (ties in
    // row order). Grouped by parent in row order first, then each small group sorted: cheaper
    // than sorting the whole tree by start time.
    for (std::size_t r = 0; r < rows.size(); ++r)
      // The reference's cpu_root_nodes: ops with no op (python frames aside) above them.
      if (rows.kind[r] == RowKind::kCpuOp && !under_cpu_op(static_cast<std::int32_t>(r)))
        roots_.push_back(static_cast<std::int32_t>(r));
    children_ = RowGroups::by_owner(rows.size(), [&](std::size_t r) { return rows.parent(r); });
    children_.sort_each([&](std::int32_t a, std::int32_t b) { return starts_before(a, b); });
    std::sort(roots_.begin(), roots_.end(),
              [&](std::int32_t a, std::int32_t b) { return starts_before(a, b); });
  }

  std::vector<std::int32_t> collect() {
    for (std::int32_t r : roots_) visit(r);
    return std::move(collected_);
  }

 private:
  bool under_cpu_op(std::int32_t r) const {
    for (std::int32_t p = rows_.parent(static_cast<std::size_t>(r)); p >= 0;
         p = rows_.parent(static_cast<std::size_t>(p)))
      if (rows_.kind[static_cast<std::size_t>(p)] == RowKind::kCpuOp) return true;
    return false;
  }

  bool starts_before(std::int32_t a, std::int32_t b) const {
    const std::int64_t ta = rows_.ts_ns(static_cast<std::size_t>(a));
    const std::int64_t tb = rows_.ts_ns(static_cast<std::size_t>(b));
    return ta < tb || (ta == tb && a < b);
  }

  bool has_model(std::size_t r) const { return modelled_.count(rows_.name(r)) > 0; }

  void visit(std::int32_t row) {
    const auto r = static_cast<std::size_t>(row);
    if (visited_[r]) return;
    visited_[r] = true;
    if (rows_.kind[r] == RowKind::kPythonFunction) return visit_children(r);
    if (rows_.kind[r] != RowKind::kCpuOp || gpu_.count(r) == 0) return;
    if (has_model(r)) {
      collected_.push_back(row);
      return;
    }
    if (model_below(r)) return visit_children(r);
    if (reaches_launch(r, 0)) {
      if (!gpu_.communication(r)) collected_.push_back(row);
      return;
    }
    visit_children(r);
  }

  void visit_children(std::size_t r) {
    for (std::int32_t c : children_.of(r)) visit(c);
  }

  // A cpu_op below (python frames transparent) has a model of its own and GPU work.
  bool model_below(std::size_t r) {
    if (below_known_[r]) return below_[r];
    bool found = false;
    for (std::int32_t child : children_.of(r)) {
      const auto c = static_cast<std::size_t>(child);
      if (rows_.kind[c] == RowKind::kCpuOp)
        found = (has_model(c) && gpu_.count(c) > 0) || model_below(c);
      else if (rows_.kind[c] == RowKind::kPythonFunction)
        found = model_below(c);
      if (found) break;
    }
    below_known_[r] = true;
    below_[r] = found;
    return found;
  }

  // A leaf op: a launching runtime call among its children, looking only through runtime
  // calls and python frames (an op launching through cuLaunchKernel is not a leaf).
  bool reaches_launch(std::size_t r, int depth) const {
    if (depth > kLeafSearchDepth) return false;
    if (rows_.kind[r] == RowKind::kRuntime && gpu_.launched_any(r)) return true;
    for (std::int32_t child : children_.of(r)) {
      const auto c = static_cast<std::size_t>(child);
      if ((rows_.kind[c] == RowKind::kRuntime || rows_.kind[c] == RowKind::kPythonFunction) &&
          reaches_launch(c, depth + 1))
        return true;
    }
    return false;
  }

  const TraceRows& rows_;
  const GpuEventsBelow& gpu_;
  const std::set<std::string, std::less<>>& modelled_;
  RowGroups children_;  // by start time
  std::vector<std::int32_t> roots_;
  std::vector<bool> visited_, below_known_, below_;
  std::vector<std::int32_t> collected_;
};

}  // namespace

std::vector<std::int32_t> collect_unified_ops(const TraceRows& rows, const GpuEventsBelow& gpu,
                                              const std::set<std::string, std::less<>>& modelled) {
  return Collector(rows, gpu, modelled).collect();
}

}  // namespace traceprism::fusion
