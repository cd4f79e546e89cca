#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

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

// Sorts `rows` by `before` (a strict total order, so the result is the one std::sort gives).
// Rows gathered from the index mostly come in a few sorted runs (each kind in file order, the
// capture merge's copies appended as another): with few runs they are merged in linear passes
// instead of sorted, which matters at millions of rows compared through the index.
template <class Less>
void sort_in_runs(std::vector<Row>& rows, Less before) {
  constexpr std::size_t kMaxRuns = 16;
  std::vector<std::size_t> run_ends;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    if (!before(rows[i], rows[i - 1])) continue;
    run_ends.push_back(i);
    if (run_ends.size() >= kMaxRuns) {
      std::sort(rows.begin(), rows.end(), before);
      return;
    }
  }
  run_ends.push_back(rows.size());
  for (std::size_t k = 1; k < run_ends.size(); ++k)
    std::inplace_merge(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(run_ends[k - 1]),
                       rows.begin() + static_cast<std::ptrdiff_t>(run_ends[k]), before);
}

}  // namespace traceprism::index
