#include "gpu_events_below.hpp"

#include <algorithm>

namespace traceprism::plugins::fusion {

GpuEventsBelow::GpuEventsBelow(const TraceRows& rows) : rows_(rows), slot_(rows.size(), kNoSlot) {
  for (std::size_t g = 0; g < rows.size(); ++g)
    if (is_gpu(rows.kind[g]) && rows.launcher(g) >= 0)
      launches_.emplace_back(rows.launcher(g), static_cast<std::int32_t>(g));
  // GPU rows are already in row order: a stable sort by launcher gives the reference's order.
  std::stable_sort(launches_.begin(), launches_.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  // Launch calls get no figures: only the nodes above them are asked.
  auto is_node = [&](std::size_t row) {
    return rows_.kind[row] != RowKind::kRuntime && rows_.kind[row] != RowKind::kDriver;
  };
  std::uint32_t nodes = 0;
  for_each_launch([&](std::size_t row, std::int32_t) {
    if (!has(row) && is_node(row)) slot_[row] = nodes++;
  });
  // Sized first: growing them would hold two copies at once.
  count_.assign(nodes, 0);
  kernels_.assign(nodes, 0);
  kernel_us_.assign(nodes, 0.0);
  first_.assign(nodes, -1);
  for_each_launch([&](std::size_t row, std::int32_t gpu) {
    if (!has(row)) return;
    const std::uint32_t node = slot_[row];
    const auto g = static_cast<std::size_t>(gpu);
    ++count_[node];
    if (first_[node] < 0) first_[node] = gpu;
    if (rows_.kind[g] == RowKind::kKernel) {
      ++kernels_[node];
      kernel_us_[node] += rows_.dur_us(g);
    }
  });
}

// Calls visit(node, gpu_row) for every launching row and each of its ancestors, launches in
// row order: exactly the appends the reference makes to each node's gpu_events.
template <class Visit>
void GpuEventsBelow::for_each_launch(Visit visit) const {
  for (const auto& [launcher, gpu] : launches_)
    for (std::int32_t node = launcher; node >= 0;
         node = rows_.parent(static_cast<std::size_t>(node)))
      visit(static_cast<std::size_t>(node), gpu);
}

std::map<std::int32_t, std::vector<std::int32_t>> GpuEventsBelow::lists(
    const std::vector<std::int32_t>& nodes) const {
  std::map<std::int32_t, std::vector<std::int32_t>> out;
  std::vector<bool> wanted(rows_.size(), false);
  for (std::int32_t n : nodes) {
    wanted[static_cast<std::size_t>(n)] = true;
    out[n];
  }
  for_each_launch([&](std::size_t node, std::int32_t gpu) {
    if (wanted[node]) out[static_cast<std::int32_t>(node)].push_back(gpu);
  });
  return out;
}

}  // namespace traceprism::plugins::fusion
