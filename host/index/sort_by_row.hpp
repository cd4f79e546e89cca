#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <traceprism/sorted_runs.hpp>

#include "index/event_index.hpp"

namespace traceprism::index {

// Sorts items by their row, stably, in two counting passes of 16 bits: per-launcher tables hold
// millions of items on a graph-replay trace, where a comparison sort was a visible part of the
// perf report. `row_of(item)` gives the row.
template <class T, class RowOf>
void sort_by_row(std::vector<T>& items, RowOf row_of) {
  constexpr std::size_t kSmall = 4096;  // below this a comparison sort is as fast
  if (items.size() < kSmall) {
    std::stable_sort(items.begin(), items.end(),
                     [&](const T& a, const T& b) { return row_of(a) < row_of(b); });
    return;
  }
  std::vector<T> buffer(items.size());
  std::vector<std::size_t> start;  // on the heap: 512 KB is much for a worker thread's stack
  for (unsigned shift : {0U, 16U}) {
    start.assign((1U << 16) + 1, 0);
    for (const T& item : items)
      ++start[((static_cast<std::uint32_t>(row_of(item)) >> shift) & 0xffffU) + 1];
    for (std::size_t i = 1; i < start.size(); ++i) start[i] += start[i - 1];
    for (T& item : items)
      buffer[start[(static_cast<std::uint32_t>(row_of(item)) >> shift) & 0xffffU]++] =
          std::move(item);
    items.swap(buffer);
  }
}

// Lists in a few sorted runs are merged rather than sorted (the SDK's, shared with plugins).
using traceprism::sort_in_runs;

// How many GPU events (kernels, memcpy, memset) the index holds, malformed ones left out.
inline std::size_t gpu_event_count(const EventIndex& index) {
  std::size_t count = 0;
  for (EventKind k : {EventKind::kKernel, EventKind::kGpuMemcpy, EventKind::kGpuMemset})
    count += index.rows_of_kind(k).size();
  return count;
}

// Every GPU event (kernels, memcpy, memset) in file order: each kind's rows are in file order,
// so the three lists are merged, not sorted.
inline std::vector<Row> gpu_rows_in_file_order(const EventIndex& index) {
  std::vector<Row> rows;
  rows.reserve(gpu_event_count(index));
  for (EventKind k : {EventKind::kKernel, EventKind::kGpuMemcpy, EventKind::kGpuMemset}) {
    const auto of_kind = index.rows_of_kind(k);
    rows.insert(rows.end(), of_kind.begin(), of_kind.end());
  }
  sort_in_runs(rows, [](Row a, Row b) { return a < b; });
  return rows;
}

}  // namespace traceprism::index
