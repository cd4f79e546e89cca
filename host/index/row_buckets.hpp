#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "index/event_index.hpp"

namespace traceprism::index {

// Where to search for a row in a list of items sorted by row. The lists it serves (launch
// ranges, op-model answers) hold millions of items and are asked once per event in several
// stages, so a binary search over the whole list (20+ dependent cache misses) showed in
// profiles; a bucket per 64 rows narrows it to the few items of one bucket.
class RowBuckets {
 public:
  // `row_of(i)` is the row of item i; items are sorted by row.
  template <class RowOf>
  void build(std::size_t items, RowOf row_of) {
    const std::size_t rows = items == 0 ? 0 : static_cast<std::size_t>(row_of(items - 1)) + 1;
    starts_.assign((rows >> kShift) + 2, 0);
    std::size_t i = 0;
    for (std::size_t bucket = 0; bucket < starts_.size(); ++bucket) {
      const std::size_t first_row = bucket << kShift;
      while (i < items && static_cast<std::size_t>(row_of(i)) < first_row) ++i;
      starts_[bucket] = static_cast<std::uint32_t>(i);
    }
  }

  // The items [first, last) that may hold `row`; empty when no item can.
  std::pair<std::size_t, std::size_t> candidates(Row row) const {
    const std::size_t bucket = static_cast<std::size_t>(row) >> kShift;
    if (bucket + 1 >= starts_.size()) return {0, 0};
    return {starts_[bucket], starts_[bucket + 1]};
  }

 private:
  static constexpr unsigned kShift = 6;
  std::vector<std::uint32_t> starts_;  // first item of each bucket, plus one past the last
};

}  // namespace traceprism::index
