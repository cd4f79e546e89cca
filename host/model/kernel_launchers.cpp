#include "model/kernel_launchers.hpp"

#include <algorithm>
#include <unordered_map>

#include <traceprism/intervals.hpp>
#include "index/sort_by_row.hpp"
#include "model/gpu_timeline.hpp"

namespace traceprism::model {

using index::EventKind;

double busy_time_us(const index::EventIndex& index, std::span<const Row> rows) {
  // Most ops launch one kernel or none: the merge's result without its two allocations.
  if (rows.empty()) return 0;
  if (rows.size() == 1) return index.end_us(rows[0]) - index.ts_us(rows[0]);
  std::vector<Interval<double>> spans;
  spans.reserve(rows.size());
  for (Row r : rows) spans.push_back({index.ts_us(r), index.end_us(r)});
  return total_length(merge_intervals(std::move(spans)));
}

namespace {

// Rows grouped by slot in one flat array (counting sort): offsets[s]..offsets[s + 1] are slot
// s's rows, in the order they were added. Two passes over the pairs, no per-slot vectors.
struct Grouped {
  std::vector<std::uint32_t> offsets;
  std::vector<Row> rows;
  std::span<const Row> group(std::size_t s) const {
    return {rows.data() + offsets[s], offsets[s + 1] - offsets[s]};
  }
};

template <class ForEachPair>
Grouped group_by_slot(std::size_t slots, ForEachPair for_each_pair) {
  Grouped g;
  g.offsets.assign(slots + 1, 0);
  for_each_pair([&](std::size_t slot, Row) { ++g.offsets[slot + 1]; });
  for (std::size_t s = 0; s < slots; ++s) g.offsets[s + 1] += g.offsets[s];
  g.rows.resize(g.offsets[slots]);
  std::vector<std::uint32_t> next(g.offsets.begin(), g.offsets.end() - 1);
  for_each_pair([&](std::size_t slot, Row r) { g.rows[next[slot]++] = r; });
  return g;
}

// The launcher of a GPU event launched by `runtime` (spec §6 step 2).
Row find_launcher(const index::EventIndex& index, const CallTree& tree, Row runtime) {
  std::int32_t cur = tree.parent(runtime);
  while (cur >= 0) {
    const auto row = static_cast<Row>(cur);
    const EventKind kind = index.kind(row);
    if (kind == EventKind::kCpuOp) {
      if (index.name(row) != "execute") return row;
    } else if (kind != EventKind::kPythonFunction) {
      break;
    }
    cur = tree.parent(row);
  }
  return runtime;
}

// Stable by start time. Sorting (start, position) keys and moving the launchers once is much
// faster than comparing launchers through the index (millions on a graph-replay trace).
void sort_by_start(std::vector<KernelLauncher>& launchers, const index::EventIndex& index) {
  std::vector<std::pair<double, std::uint32_t>> keys(launchers.size());
  for (std::size_t i = 0; i < launchers.size(); ++i)
    keys[i] = {index.ts_us(launchers[i].row), static_cast<std::uint32_t>(i)};
  if (std::is_sorted(keys.begin(), keys.end())) return;
  std::sort(keys.begin(), keys.end());
  std::vector<KernelLauncher> sorted;
  sorted.reserve(launchers.size());
  for (const auto& key : keys) sorted.push_back(launchers[key.second]);
  launchers = std::move(sorted);
}

}  // namespace

KernelLaunchers KernelLaunchers::build(const index::EventIndex& index, const CallTree& tree,
                                       const LaunchLinks& links) {
  const std::vector<Row> gpu_rows = index::gpu_rows_in_file_order(index);

  KernelLaunchers result;
  // launcher row -> index in launchers_ (-1: not a launcher); a flat column beats a hash map
  // at millions of GPU events.
  std::vector<std::int32_t> slot(index.size(), -1);
  // Names repeat millions of times: classify each (kind, name) once. 0 unknown, 1 comm, 2 other.
  std::vector<std::uint8_t> comm_by_name[index::kEventKindCount];
  auto is_communication = [&](Row g) {
    auto& known = comm_by_name[static_cast<int>(index.kind(g))];
    if (known.empty()) known.assign(index.strings().size(), 0);
    std::uint8_t& c = known[index.name_id(g)];
    if (c == 0)
      c = classify_gpu_event(index.kind(g), index.name(g)) == GpuActivity::kCommunication ? 1 : 2;
    return c == 1;
  };
  // Direct GPU events: launcher of each non-communication linked event (-1: none).
  std::vector<std::int32_t> launcher_of(gpu_rows.size(), -1);
  for (std::size_t i = 0; i < gpu_rows.size(); ++i) {
    const Row g = gpu_rows[i];
    if (!links.linked(g) || is_communication(g)) continue;
    const Row launcher = find_launcher(index, tree, static_cast<Row>(links.launcher(g)));
    if (slot[launcher] < 0) {
      slot[launcher] = static_cast<std::int32_t>(result.launchers_.size());
      result.launchers_.push_back({launcher, {}, 0, 0});
    }
    launcher_of[i] = slot[launcher];
  }
  const std::size_t n = result.launchers_.size();
  Grouped direct = group_by_slot(n, [&](auto add) {
    for (std::size_t i = 0; i < gpu_rows.size(); ++i)
      if (launcher_of[i] >= 0) add(static_cast<std::size_t>(launcher_of[i]), gpu_rows[i]);
  });
  launcher_of = {};

  // Subtree GPU events: every linked GPU event (collectives too) counts for each launcher on
  // the host path above its runtime call, the call itself included.
  {
    const Grouped subtree = group_by_slot(n, [&](auto add) {
      for (Row g : gpu_rows) {
        if (!links.linked(g)) continue;
        for (std::int32_t cur = links.launcher(g); cur >= 0;
             cur = tree.parent(static_cast<Row>(cur)))
          if (slot[cur] >= 0) add(static_cast<std::size_t>(slot[cur]), g);
      }
    });
    for (std::size_t i = 0; i < n; ++i) {
      KernelLauncher& l = result.launchers_[i];
      l.kernels = direct.group(i);
      l.direct_busy_us = busy_time_us(index, l.kernels);
      l.subtree_busy_us = busy_time_us(index, subtree.group(i));
    }
  }
  result.kernel_rows_ = std::move(direct.rows);  // the spans stay valid: the buffer moves
  sort_by_start(result.launchers_, index);
  return result;
}

}  // namespace traceprism::model
