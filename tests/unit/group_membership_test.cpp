// Expected members of a process group (multi-rank.md §5.4): the profiler's rank lists (complete,
// truncated after 29 ranks, older truncated-after-30), start/stride, pg_config, loaded ranks,
// and malformed text that must fall through without crashing.
#include <gtest/gtest.h>

#include <numeric>
#include <string>

#include "multirank/group_membership.hpp"

namespace traceprism::multirank {
namespace {

using Ranks = std::vector<std::int32_t>;

// What the profiler writes for a group of `size` ranks start, start + stride, ...: the first 29,
// "...", then the last (PyTorch saveNcclMeta, lists longer than 30).
std::string truncated_text(std::int32_t start, std::int32_t stride, std::int32_t size) {
  std::string text = "[";
  for (std::int32_t i = 0; i < 29; ++i) text += std::to_string(start + i * stride) + ", ";
  return text + "..., " + std::to_string(start + (size - 1) * stride) + "]";
}

Ranks iota_ranks(std::int32_t start, std::int32_t stride, std::int32_t size) {
  Ranks out;
  for (std::int32_t i = 0; i < size; ++i) out.push_back(start + i * stride);
  return out;
}

model::CollectiveInstance with_metadata(std::string ranks, std::int64_t start = -1,
                                        std::int64_t stride = -1, std::int64_t size = -1) {
  model::CollectiveInstance c;
  c.pg_ranks = std::move(ranks);
  c.global_rank_start = start;
  c.global_rank_stride = stride;
  c.group_size = size;
  return c;
}

TEST(RankList, ParsesCompleteLists) {
  const auto list = parse_rank_list("[0, 1]");
  ASSERT_TRUE(list);
  EXPECT_EQ(list->ranks, (Ranks{0, 1}));
  EXPECT_FALSE(list->truncated);
  EXPECT_EQ(parse_rank_list(" \"[3,1, 2]\" ")->ranks, (Ranks{3, 1, 2}));  // quoted, unspaced
  EXPECT_TRUE(parse_rank_list("[]")->ranks.empty());
}

TEST(RankList, DetectsTheProfilersTruncation) {
  const std::string text = truncated_text(0, 1, 128);
  EXPECT_TRUE(text.starts_with("[0, 1, 2, 3,"));
  EXPECT_TRUE(text.ends_with(", 27, 28, ..., 127]"));
  const auto list = parse_rank_list(text);
  ASSERT_TRUE(list);
  EXPECT_TRUE(list->truncated);
  EXPECT_TRUE(list->ends_with_last_rank);
  ASSERT_EQ(list->ranks.size(), 30u);  // 29 visible + the last
  EXPECT_EQ(list->ranks[28], 28);
  EXPECT_EQ(list->ranks[29], 127);

  // Older profilers: the first 30 ranks, then "...".
  const auto older = parse_rank_list(
      "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, "
      "24, 25, 26, 27, 28, 29, ...]");
  ASSERT_TRUE(older);
  EXPECT_TRUE(older->truncated);
  EXPECT_FALSE(older->ends_with_last_rank);
  EXPECT_EQ(older->ranks.size(), 30u);
  EXPECT_TRUE(parse_rank_list("[0, 1, \xE2\x80\xA6, 7]")->truncated);  // "…"
}

TEST(RankList, RejectsMalformedText) {
  for (const char* bad : {"", "[", "]", "0, 1", "[0, x]", "[0,,1]", "[0, 1,]", "[-1]", "[0, 0]",
                          "[99999999999]", "[0 1]", "[1.5]", "[0, 1", "\"[0]", "[[0]]", "[..]"})
    EXPECT_FALSE(parse_rank_list(bad)) << bad;
}

TEST(GroupMembership, CompleteRankListComesFirst) {
  const GroupMembership m = expected_members(with_metadata("[3, 1]", 0, 1, 2), {}, {});
  EXPECT_EQ(m.members, (Ranks{1, 3}));
  EXPECT_EQ(m.source, MembershipSource::kRankList);
  EXPECT_FALSE(m.rank_list_truncated);
  EXPECT_STREQ(membership_source_name(m.source), "rank_list");
}

TEST(GroupMembership, TruncatedListUsesStartAndStride) {
  // 128 ranks 1, 3, ..., 255: the text shows 1..57, "...", 255.
  const GroupMembership m =
      expected_members(with_metadata(truncated_text(1, 2, 128), 1, 2, 128), {}, {});
  EXPECT_EQ(m.source, MembershipSource::kStartStride);
  EXPECT_TRUE(m.rank_list_truncated);
  EXPECT_EQ(m.members, iota_ranks(1, 2, 128));
  EXPECT_EQ(m.members.back(), 255);
}

TEST(GroupMembership, ThenPgConfigThenTheTruncatedListsProgression) {
  const std::string text = truncated_text(0, 1, 128);
  const Ranks config = {4, 2, 0, 2};
  const GroupMembership from_config = expected_members(with_metadata(text), config, {});
  EXPECT_EQ(from_config.source, MembershipSource::kPgConfig);
  EXPECT_EQ(from_config.members, (Ranks{0, 2, 4}));

  const GroupMembership from_text = expected_members(with_metadata(text, -1, -1, 128), {}, {});
  EXPECT_EQ(from_text.source, MembershipSource::kTruncatedRanks);
  EXPECT_EQ(from_text.members, iota_ranks(0, 1, 128));

  // The last rank is not where the visible step lands after 127 steps: no guess.
  const GroupMembership wrong_size = expected_members(with_metadata(text, -1, -1, 100), {}, {});
  EXPECT_EQ(wrong_size.source, MembershipSource::kUnknown);
  EXPECT_TRUE(wrong_size.members.empty());
  EXPECT_TRUE(wrong_size.rank_list_truncated);
}

TEST(GroupMembership, TimelineTierFallsBackToLoadedRanks) {
  const Ranks loaded = {2, 0, 1};
  const GroupMembership m = expected_members(model::CollectiveInstance{}, {}, loaded);
  EXPECT_EQ(m.source, MembershipSource::kLoadedRanks);
  EXPECT_EQ(m.members, (Ranks{0, 1, 2}));
}

TEST(GroupMembership, MalformedMetadataIsUnknown) {
  EXPECT_EQ(expected_members(with_metadata("[0, 1"), {}, {}).source, MembershipSource::kUnknown);
  // absurd group size, negative stride, a last rank past INT32_MAX
  EXPECT_EQ(expected_members(with_metadata("", 0, 1, 1'000'000'000'000), {}, {}).source,
            MembershipSource::kUnknown);
  EXPECT_EQ(expected_members(with_metadata("", 0, -1, 4), {}, {}).source,
            MembershipSource::kUnknown);
  // INT32_MAX = 2147483647: 2147483600 + 10 × 5 = 2147483650 does not fit, + 9 × 5 does.
  EXPECT_EQ(expected_members(with_metadata("", 2'147'483'600, 5, 11), {}, {}).source,
            MembershipSource::kUnknown);
  EXPECT_EQ(expected_members(with_metadata("", 2'147'483'600, 5, 11), {}, {}).members, Ranks{});
  EXPECT_EQ(expected_members(with_metadata("", 2'147'483'600, 5, 10), {}, {}).members.back(),
            2'147'483'645);
}

}  // namespace
}  // namespace traceprism::multirank
