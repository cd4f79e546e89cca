#include "gpu_events_below.hpp"

#include <algorithm>
#include <cctype>
#include <string>
#include <unordered_map>

namespace traceprism::fusion {
namespace {

bool is_collective(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower.find("nccl") != std::string::npos || lower.find("rccl") != std::string::npos;
}

}  // namespace

GpuEventsBelow::GpuEventsBelow(const TraceRows& rows)
    : rows_(rows),
      count_(rows.size(), 0),
      kernels_(rows.size(), 0),
      kernel_us_(rows.size(), 0.0),
      first_(rows.size(), -1),
      communication_(rows.size(), false) {
  std::vector<std::pair<std::int32_t, std::int32_t>> launches;
  for (std::size_t g = 0; g < rows.size(); ++g)
    if (is_gpu(rows.kind[g]) && rows.launcher(g) >= 0)
      launches.emplace_back(rows.launcher(g), static_cast<std::int32_t>(g));
  launched_ = RowGroups(rows.size(), launches);
  // Each launch is visited once per ancestor (~40 on a deep python tree): classify each kernel
  // name once.
  std::unordered_map<StringId, bool> collective_by_name;
  auto collective = [&](std::size_t g) {
    const StringId id = rows_.events.name_id(static_cast<Row>(g));
    auto it = collective_by_name.find(id);
    if (it == collective_by_name.end())
      it = collective_by_name.emplace(id, is_collective(rows_.name(g))).first;
    return it->second;
  };
  for_each_launch([&](std::size_t node, std::int32_t gpu) {
    const auto g = static_cast<std::size_t>(gpu);
    ++count_[node];
    if (first_[node] < 0) first_[node] = gpu;
    if (rows_.kind[g] == RowKind::kKernel) {
      ++kernels_[node];
      kernel_us_[node] += rows_.dur_us(g);
    }
    if (collective(g)) communication_[node] = true;
  });
}

// Calls visit(node, gpu_row) for every launching row and each of its ancestors, launches in
// row order: exactly the appends the reference makes to each node's gpu_events.
template <class Visit>
void GpuEventsBelow::for_each_launch(Visit visit) const {
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    for (std::int32_t gpu : launched_.of(r)) {
      for (std::int32_t node = static_cast<std::int32_t>(r); node >= 0;
           node = rows_.parent(static_cast<std::size_t>(node)))
        visit(static_cast<std::size_t>(node), gpu);
    }
  }
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

}  // namespace traceprism::fusion
