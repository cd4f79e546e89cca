// traceprism SDK: sorting a list that comes as a few sorted runs, shared by the host (thread
// stacks, idle attribution) and plugins (cpu-idle), so both order events the same way.
// Header-only C++17.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace traceprism {

// Sorts `items` by `before` (a strict total order, so the result is the one std::sort gives).
// Lists gathered from a trace mostly come as a few sorted runs (each event kind in start or file
// order, a capture merge's copies appended as another): with few runs they are merged in linear
// passes instead of sorted, which matters at millions of items compared through the events.
template <class T, class Less>
void sort_in_runs(std::vector<T>& items, Less before) {
  constexpr std::size_t kMaxRuns = 16;
  std::vector<std::size_t> run_ends;
  for (std::size_t i = 1; i < items.size(); ++i) {
    if (!before(items[i], items[i - 1])) continue;
    run_ends.push_back(i);
    if (run_ends.size() >= kMaxRuns) {
      std::sort(items.begin(), items.end(), before);
      return;
    }
  }
  run_ends.push_back(items.size());
  for (std::size_t k = 1; k < run_ends.size(); ++k)
    std::inplace_merge(items.begin(), items.begin() + static_cast<std::ptrdiff_t>(run_ends[k - 1]),
                       items.begin() + static_cast<std::ptrdiff_t>(run_ends[k]), before);
}

}  // namespace traceprism
