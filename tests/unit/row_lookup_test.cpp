// The row look-up helpers of the index (index/row_buckets.hpp, index/sort_by_row.hpp) against
// the plain algorithms they replace, on lists big enough to take the fast paths.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "index/row_buckets.hpp"
#include "index/sort_by_row.hpp"

namespace {

using traceprism::index::Row;

// Rows sorted ascending with gaps and long empty stretches, as launch ranges are.
std::vector<Row> sparse_sorted_rows(std::size_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<Row> rows;
  Row r = 3;
  for (std::size_t i = 0; i < count; ++i) {
    r += 1 + (rng() % 7 == 0 ? rng() % 5000 : rng() % 3);
    rows.push_back(r);
  }
  return rows;
}

TEST(RowBuckets, CandidatesHoldExactlyTheRowsABinarySearchFinds) {
  const std::vector<Row> rows = sparse_sorted_rows(20000, 1);
  traceprism::index::RowBuckets buckets;
  buckets.build(rows.size(), [&](std::size_t i) { return rows[i]; });
  for (Row probe = 0; probe <= rows.back() + 200; ++probe) {
    const auto [first, last] = buckets.candidates(probe);
    const auto it = std::lower_bound(rows.begin() + static_cast<std::ptrdiff_t>(first),
                                     rows.begin() + static_cast<std::ptrdiff_t>(last), probe);
    const bool found_here = it != rows.begin() + static_cast<std::ptrdiff_t>(last) && *it == probe;
    const bool present = std::binary_search(rows.begin(), rows.end(), probe);
    ASSERT_EQ(found_here, present) << "row " << probe;
  }
}

TEST(RowBuckets, EmptyListHasNoCandidates) {
  traceprism::index::RowBuckets buckets;
  buckets.build(0, [](std::size_t) { return Row{0}; });
  EXPECT_EQ(buckets.candidates(0), (std::pair<std::size_t, std::size_t>{0, 0}));
  EXPECT_EQ(buckets.candidates(1u << 30), (std::pair<std::size_t, std::size_t>{0, 0}));
}

TEST(SortByRow, MatchesAStableSortOnLargeAndSmallLists) {
  std::mt19937 rng(7);
  for (std::size_t n : {10u, 4095u, 4096u, 100000u}) {
    std::vector<std::pair<Row, std::uint32_t>> items(n);
    for (std::size_t i = 0; i < n; ++i)
      items[i] = {static_cast<Row>(rng() % (n < 5000 ? 50 : 3000000)) + (i % 3 == 0 ? 70000 : 0),
                  static_cast<std::uint32_t>(i)};
    auto expected = items;
    std::stable_sort(expected.begin(), expected.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    traceprism::index::sort_by_row(items, [](const auto& e) { return e.first; });
    EXPECT_EQ(items, expected) << n << " items";
  }
}

// A few sorted runs (merged) and many (sorted) both give std::sort's order.
TEST(SortInRuns, MatchesAFullSortForFewAndManyRuns) {
  std::mt19937 rng(3);
  std::vector<std::int64_t> start(50000);
  for (auto& t : start) t = static_cast<std::int64_t>(rng() % 20000);  // many ties
  auto before = [&](Row a, Row b) { return start[a] != start[b] ? start[a] < start[b] : a < b; };
  for (std::size_t runs : {1u, 2u, 5u, 16u, 40u}) {
    std::vector<Row> rows;
    for (std::size_t k = 0; k < runs; ++k) {
      std::vector<Row> run;
      for (Row r = static_cast<Row>(k); r < start.size(); r += static_cast<Row>(runs))
        run.push_back(r);
      std::sort(run.begin(), run.end(), before);
      rows.insert(rows.end(), run.begin(), run.end());
    }
    auto expected = rows;
    std::sort(expected.begin(), expected.end(), before);
    traceprism::index::sort_in_runs(rows, before);
    EXPECT_EQ(rows, expected) << runs << " runs";
  }
}

}  // namespace
