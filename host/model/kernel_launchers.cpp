#include "model/kernel_launchers.hpp"

#include <algorithm>
#include <unordered_map>

#include "model/gpu_timeline.hpp"
#include "model/interval_algebra.hpp"

namespace traceprism::model {

using index::EventKind;

double busy_time_us(const index::EventIndex& index, const std::vector<Row>& rows) {
  std::vector<Interval<double>> spans;
  spans.reserve(rows.size());
  for (Row r : rows) spans.push_back({index.ts_us(r), index.end_us(r)});
  return total_length(merge_intervals(std::move(spans)));
}

namespace {

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

}  // namespace

KernelLaunchers KernelLaunchers::build(const index::EventIndex& index, const CallTree& tree,
                                       const LaunchLinks& links) {
  std::vector<Row> gpu_rows;
  for (EventKind k : {EventKind::kKernel, EventKind::kGpuMemcpy, EventKind::kGpuMemset}) {
    auto rows = index.rows_of_kind(k);
    gpu_rows.insert(gpu_rows.end(), rows.begin(), rows.end());
  }
  std::sort(gpu_rows.begin(), gpu_rows.end());

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
  for (Row g : gpu_rows) {
    if (!links.linked(g) || is_communication(g)) continue;
    const Row launcher = find_launcher(index, tree, static_cast<Row>(links.launcher(g)));
    if (slot[launcher] < 0) {
      slot[launcher] = static_cast<std::int32_t>(result.launchers_.size());
      result.launchers_.push_back({launcher, {}, 0, 0});
    }
    result.launchers_[slot[launcher]].kernels.push_back(g);
  }

  // Subtree GPU events: every linked GPU event (collectives too) counts for each launcher on
  // the host path above its runtime call, the call itself included.
  std::vector<std::vector<Row>> subtree(result.launchers_.size());
  for (Row g : gpu_rows) {
    if (!links.linked(g)) continue;
    for (std::int32_t cur = links.launcher(g); cur >= 0; cur = tree.parent(static_cast<Row>(cur)))
      if (slot[cur] >= 0) subtree[slot[cur]].push_back(g);
  }
  for (std::size_t i = 0; i < result.launchers_.size(); ++i) {
    KernelLauncher& l = result.launchers_[i];
    l.direct_busy_us = busy_time_us(index, l.kernels);
    l.subtree_busy_us = busy_time_us(index, subtree[i]);
  }
  std::stable_sort(result.launchers_.begin(), result.launchers_.end(),
                   [&](const KernelLauncher& a, const KernelLauncher& b) {
                     return index.ts_us(a.row) < index.ts_us(b.row);
                   });
  return result;
}

}  // namespace traceprism::model
