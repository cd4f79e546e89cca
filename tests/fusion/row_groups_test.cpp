// RowGroups: the flat children index of the fusion extraction.
#include "fusion/row_groups.hpp"

#include <gtest/gtest.h>

#include <vector>

using traceprism::fusion::RowGroups;

namespace {

std::vector<std::int32_t> members(const RowGroups& g, std::size_t owner) {
  const RowGroups::Range r = g.of(owner);
  return {r.begin(), r.end()};
}

}  // namespace

TEST(RowGroups, GroupsRowsUnderTheirOwnerInRowOrder) {
  //                                     row: 0   1  2  3  4   5
  const std::vector<std::int32_t> owner_of = {-1, 0, 0, 1, 0, -1};
  const RowGroups g =
      RowGroups::by_owner(owner_of.size(), [&](std::size_t r) { return owner_of[r]; });
  EXPECT_EQ(members(g, 0), (std::vector<std::int32_t>{1, 2, 4}));
  EXPECT_EQ(members(g, 1), (std::vector<std::int32_t>{3}));
  EXPECT_TRUE(g.of(2).empty());
  EXPECT_TRUE(g.of(5).empty());
}

TEST(RowGroups, SortEachReordersWithinAnOwnerOnly) {
  const std::vector<std::int32_t> owner_of = {-1, 0, 0, 0, 1, 1};
  RowGroups g = RowGroups::by_owner(owner_of.size(), [&](std::size_t r) { return owner_of[r]; });
  g.sort_each([](std::int32_t a, std::int32_t b) { return a > b; });
  EXPECT_EQ(members(g, 0), (std::vector<std::int32_t>{3, 2, 1}));
  EXPECT_EQ(members(g, 1), (std::vector<std::int32_t>{5, 4}));
}
