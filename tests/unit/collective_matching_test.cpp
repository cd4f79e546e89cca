// Cross-rank matching (multi-rank.md §5.2, §5.3, §7.4): seq matching through dropped
// collectives, ordinal matching and its fallback to timeline alignment, the order-preserving
// alignment on hand-made sequences and on the §1.2 situation, point-to-point FIFO pairing,
// partition keys, and output that does not depend on the input order of ranks.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <string>

#include "multirank/collective_matching.hpp"

namespace traceprism::multirank {
namespace {

using model::CollectiveDtype;
using model::CollectiveInstance;
using model::CollectiveKind;
using model::MatchTier;

constexpr std::int64_t kUs = 1'000;
constexpr std::int64_t kMs = 1'000'000;

CollectiveInstance ends_at(CollectiveKind kind, std::int64_t end_ns, std::int32_t step = 0,
                           std::uint16_t channel = 0) {
  CollectiveInstance c;
  c.kind = kind;
  c.step = step;
  c.channel = channel;
  c.duration_ns = 2 * kMs;
  c.start_ns = end_ns - c.duration_ns;
  return c;
}

// An all-reduce of 1000 floats in a 3-rank group `pg` (seq −1: none).
CollectiveInstance allreduce(const std::string& pg, std::int64_t seq, std::int64_t end_ns,
                             std::int32_t step = 0) {
  CollectiveInstance c = ends_at(CollectiveKind::kAllReduce, end_ns, step);
  c.pg_name = pg;
  c.seq = seq;
  c.group_size = 3;
  c.dtype = CollectiveDtype::kFloat;
  c.in_nelems = c.out_nelems = 1000;
  return c;
}

const char* tier_text(MatchTier tier) {
  switch (tier) {
    case MatchTier::kSeq:
      return "seq";
    case MatchTier::kOrdinal:
      return "ordinal";
    case MatchTier::kTimeline:
      return "timeline";
  }
  return "?";
}

// "<partition text> <tier> #<key>[@<key rank>]: rank/index ...", for readable expectations.
std::string text(const MatchedCollective& c) {
  std::string out =
      c.partition_key.canonical_text() + " " + tier_text(c.tier) + " #" + std::to_string(c.key);
  if (c.key_rank >= 0) out += "@" + std::to_string(c.key_rank);
  out += ":";
  for (const MemberRef& m : c.members)
    out += " " + std::to_string(m.rank) + "/" + std::to_string(m.index);
  return out;
}

std::vector<std::string> texts(const MatchResult& result) {
  std::vector<std::string> out;
  for (const MatchedCollective& c : result.collectives) out.push_back(text(c));
  return out;
}

using Texts = std::vector<std::string>;
using Refs = std::vector<MemberRef>;
using Pairs = std::vector<std::pair<std::size_t, std::size_t>>;

TEST(CollectiveMatching, SeqTierMatchesThroughDroppedCollectives) {
  // Seq 0..5 on rank 0; rank 1 dropped Seq 2, rank 2 dropped Seq 0 and 4. The lists are out of
  // order and the clocks differ by milliseconds: neither matters to Seq.
  const std::vector<CollectiveInstance> rank0 = {
      allreduce("g", 3, 13 * kMs),   allreduce("g", 0, 10 * kMs), allreduce("g", 5, 15 * kMs),
      allreduce("g", 1, 11 * kMs),   allreduce("g", 4, 14 * kMs), allreduce("g", 2, 12 * kMs),
      allreduce("g", 1030, 40 * kMs)};
  const std::vector<CollectiveInstance> rank1 = {
      allreduce("g", 0, 17 * kMs), allreduce("g", 1, 18 * kMs), allreduce("g", 3, 20 * kMs),
      allreduce("g", 4, 21 * kMs), allreduce("g", 5, 22 * kMs)};
  const std::vector<CollectiveInstance> rank2 = {
      allreduce("g", 5, 12 * kMs), allreduce("g", 3, 10 * kMs), allreduce("g", 2, 9 * kMs),
      allreduce("g", 1, 8 * kMs), allreduce("g", 1030, 37 * kMs)};
  const std::vector<RankCollectives> ranks = {{0, rank0}, {1, rank1}, {2, rank2}};
  const MatchResult result = match_collectives(ranks);
  EXPECT_EQ(texts(result), (Texts{"seq|0|g seq #0: 0/1 1/0", "seq|0|g seq #1: 0/3 1/1 2/3",
                                  "seq|0|g seq #2: 0/5 2/2", "seq|0|g seq #3: 0/0 1/2 2/1",
                                  "seq|0|g seq #4: 0/4 1/3", "seq|0|g seq #5: 0/2 1/4 2/0",
                                  "seq|1|g seq #1030: 0/6 2/4"}));
  EXPECT_TRUE(result.unmatched.empty());
  EXPECT_TRUE(result.mismatches.empty());
  ASSERT_EQ(result.groups.size(), 1u);
  EXPECT_EQ(result.groups[0].pg_name, "g");
  EXPECT_EQ(result.groups[0].tier, MatchTier::kSeq);
  EXPECT_EQ(result.groups[0].instances, 17u);
  EXPECT_EQ(result.groups[0].matched_instances, 17u);
  EXPECT_EQ(result.groups[0].collectives, 7u);
}

TEST(CollectiveMatching, SeqMismatchKeepsTheMatchAndWarns) {
  std::vector<CollectiveInstance> rank0 = {allreduce("g", 0, 1 * kMs), allreduce("g", 1, 2 * kMs),
                                           allreduce("g", 2, 3 * kMs)};
  std::vector<CollectiveInstance> rank1 = {allreduce("g", 0, 1 * kMs), allreduce("g", 1, 2 * kMs),
                                           allreduce("g", 2, 3 * kMs), allreduce("g", 2, 4 * kMs)};
  rank1[0].in_nelems = 2000;
  rank0[1].comms_id = 11;
  rank1[1].comms_id = 12;
  const std::vector<RankCollectives> ranks = {{1, rank1}, {0, rank0}};
  const MatchResult result = match_collectives(ranks);
  EXPECT_EQ(texts(result), (Texts{"seq|0|g seq #0: 0/0 1/0", "seq|0|g seq #1: 0/1 1/1",
                                  "seq|0|g seq #2: 0/2 1/2"}));
  EXPECT_TRUE(result.collectives[0].mismatch);
  EXPECT_TRUE(result.collectives[1].mismatch);
  EXPECT_FALSE(result.collectives[2].mismatch);
  ASSERT_EQ(result.mismatches.size(), 3u);
  EXPECT_EQ(result.mismatches[0].detail,
            "ranks 0 and 1 disagree on in nelems 1000 vs 2000 under Seq 0 of process group g "
            "(1 of 1 ranks differ from the lowest)");
  EXPECT_EQ(result.mismatches[1].detail,
            "ranks 0 and 1 disagree on Comms Id 11 vs 12 under Seq 1 of process group g "
            "(1 of 1 ranks differ from the lowest)");
  EXPECT_EQ(result.mismatches[2].detail,
            "Seq 2 of process group g appears more than once on rank 1; the later instance is "
            "left unmatched");
  EXPECT_EQ(result.unmatched, (Refs{{1, 3}}));
}

TEST(CollectiveMatching, OneInstanceWithoutSeqMakesTheGroupOrdinal) {
  std::vector<CollectiveInstance> rank1 = {allreduce("g", 0, 1 * kMs), allreduce("g", -1, 2 * kMs)};
  const std::vector<CollectiveInstance> rank0 = {allreduce("g", 0, 1 * kMs),
                                                 allreduce("g", 1, 2 * kMs)};
  const std::vector<RankCollectives> ranks = {{0, rank0}, {1, rank1}};
  const MatchResult result = match_collectives(ranks);
  ASSERT_EQ(result.groups.size(), 1u);
  EXPECT_EQ(result.groups[0].tier, MatchTier::kOrdinal);
  EXPECT_EQ(texts(result),
            (Texts{"ordinal|0|g ordinal #0: 0/0 1/0", "ordinal|0|g ordinal #1: 0/1 1/1"}));
}

// nccl_data's per-step signature (§1.1): broadcast 53120 Float, broadcast 53 Long, all-reduce
// 2049000 Float, launched 1 ms apart.
std::vector<CollectiveInstance> nccl_data_step(std::int32_t step, std::int64_t first_launch_ns) {
  std::vector<CollectiveInstance> out;
  const std::pair<CollectiveKind, CollectiveDtype> kinds[] = {
      {CollectiveKind::kBroadcast, CollectiveDtype::kFloat},
      {CollectiveKind::kBroadcast, CollectiveDtype::kLong},
      {CollectiveKind::kAllReduce, CollectiveDtype::kFloat}};
  const std::int64_t nelems[] = {53120, 53, 2049000};
  for (std::size_t k = 0; k < 3; ++k) {
    CollectiveInstance c =
        ends_at(kinds[k].first, first_launch_ns + static_cast<std::int64_t>(k + 1) * kMs, step);
    c.dtype = kinds[k].second;
    c.in_nelems = c.out_nelems = nelems[k];
    c.pg_name = "0";
    c.group_size = 2;
    c.launch_ns = first_launch_ns + static_cast<std::int64_t>(k) * kMs;
    out.push_back(c);
  }
  return out;
}

TEST(CollectiveMatching, OrdinalTierPairsTheKthOfEachStepByLaunchTime) {
  std::vector<CollectiveInstance> rank0 = nccl_data_step(4, 100 * kMs);
  for (const auto& c : nccl_data_step(5, 200 * kMs)) rank0.push_back(c);
  std::vector<CollectiveInstance> rank1 = nccl_data_step(4, 150 * kMs);
  for (const auto& c : nccl_data_step(5, 250 * kMs)) rank1.push_back(c);
  // Rank 1's second broadcast of step 5 reached the GPU before its first (another stream):
  // launch order, not GPU start, gives the ordinal.
  rank1[4].start_ns = rank1[3].start_ns - 1 * kMs;
  std::reverse(rank1.begin(), rank1.end());
  const std::vector<RankCollectives> ranks = {{0, rank0}, {1, rank1}};
  const MatchResult result = match_collectives(ranks);
  EXPECT_EQ(texts(result),
            (Texts{"ordinal|4|0 ordinal #0: 0/0 1/5", "ordinal|4|0 ordinal #1: 0/1 1/4",
                   "ordinal|4|0 ordinal #2: 0/2 1/3", "ordinal|5|0 ordinal #0: 0/3 1/2",
                   "ordinal|5|0 ordinal #1: 0/4 1/1", "ordinal|5|0 ordinal #2: 0/5 1/0"}));
  EXPECT_TRUE(result.timeline_fallbacks.empty());
  ASSERT_EQ(result.groups.size(), 1u);
  EXPECT_EQ(result.groups[0].tier, MatchTier::kOrdinal);
  EXPECT_EQ(result.groups[0].unmatched_instances, 0u);
}

TEST(CollectiveMatching, OrdinalPartitionWithUnequalCountsFallsBackToTimeline) {
  // Rank 1 dropped the first all-reduce of step 7: k-th with k-th would pair A with B'.
  const std::vector<CollectiveInstance> rank0 = {allreduce("2", -1, 100 * kMs, 7),
                                                 allreduce("2", -1, 200 * kMs, 7),
                                                 allreduce("2", -1, 300 * kMs, 7)};
  const std::vector<CollectiveInstance> rank1 = {allreduce("2", -1, 200 * kMs + 200 * kUs, 7),
                                                 allreduce("2", -1, 300 * kMs + 100 * kUs, 7)};
  const std::vector<RankCollectives> ranks = {{0, rank0}, {1, rank1}};
  const MatchResult result = match_collectives(ranks);
  EXPECT_EQ(texts(result),
            (Texts{"ordinal|7|2 timeline #1@0: 0/1 1/0", "ordinal|7|2 timeline #2@0: 0/2 1/1"}));
  ASSERT_EQ(result.timeline_fallbacks.size(), 1u);
  EXPECT_EQ(result.timeline_fallbacks[0].canonical_text(), "ordinal|7|2");
  EXPECT_EQ(result.unmatched, (Refs{{0, 0}}));
  ASSERT_EQ(result.groups.size(), 1u);
  EXPECT_EQ(result.groups[0].tier, MatchTier::kOrdinal);
  EXPECT_EQ(result.groups[0].timeline_fallbacks, 1u);
  EXPECT_EQ(result.groups[0].matched_instances, 4u);
  EXPECT_EQ(result.groups[0].unmatched_instances, 1u);
  EXPECT_EQ(result.groups[0].collectives, 2u);
}

std::vector<const CollectiveInstance*> pointers(const std::vector<CollectiveInstance>& list) {
  std::vector<const CollectiveInstance*> out;
  for (const CollectiveInstance& c : list) out.push_back(&c);
  return out;
}

Pairs align(const std::vector<CollectiveInstance>& reference,
            const std::vector<CollectiveInstance>& other, std::int64_t other_offset_ns = 0,
            std::int64_t tolerance_ns = kMs) {
  return align_to_reference(pointers(reference), 0, pointers(other), other_offset_ns, tolerance_ns);
}

TEST(TimelineAlignment, PairsEndsWithinTheToleranceInOrder) {
  const auto ar = CollectiveKind::kAllReduce;
  const std::vector<CollectiveInstance> reference = {ends_at(ar, 10 * kMs), ends_at(ar, 20 * kMs),
                                                     ends_at(ar, 30 * kMs)};
  const std::vector<CollectiveInstance> other = {ends_at(ar, 20 * kMs + 50 * kUs),
                                                 ends_at(ar, 30 * kMs + 200 * kUs)};
  EXPECT_EQ(align(reference, other), (Pairs{{1, 0}, {2, 1}}));
  EXPECT_EQ(align(reference, {}), Pairs{});
  EXPECT_EQ(align({}, other), Pairs{});
}

TEST(TimelineAlignment, KindsMustAgree) {
  const std::vector<CollectiveInstance> reference = {ends_at(CollectiveKind::kAllReduce, 10 * kMs)};
  const std::vector<CollectiveInstance> other = {
      ends_at(CollectiveKind::kAllGather, 10 * kMs),
      ends_at(CollectiveKind::kAllReduce, 10 * kMs + 500 * kUs)};
  EXPECT_EQ(align(reference, other), (Pairs{{0, 1}}));
}

TEST(TimelineAlignment, SymmetricSizesMustAgreeWhenBothAreKnown) {
  std::vector<CollectiveInstance> reference = {ends_at(CollectiveKind::kAllReduce, 10 * kMs)};
  std::vector<CollectiveInstance> other = {ends_at(CollectiveKind::kAllReduce, 10 * kMs)};
  reference[0].in_nelems = 100;
  other[0].in_nelems = 200;
  EXPECT_EQ(align(reference, other), Pairs{});
  other[0].in_nelems = -1;  // unknown on one side: allowed
  EXPECT_EQ(align(reference, other), (Pairs{{0, 0}}));
}

TEST(TimelineAlignment, PrefersTheCheaperOfTwoPartners) {
  // Ref ends 0 and 1000 µs, other ends 600 µs. Pairing ref 0 costs 600 + 1000 (gap of ref 1);
  // pairing ref 1 costs 400 + 1000.
  const auto ar = CollectiveKind::kAllReduce;
  const std::vector<CollectiveInstance> reference = {ends_at(ar, 100 * kMs),
                                                     ends_at(ar, 100 * kMs + 1000 * kUs)};
  const std::vector<CollectiveInstance> other = {ends_at(ar, 100 * kMs + 600 * kUs)};
  EXPECT_EQ(align(reference, other), (Pairs{{1, 0}}));
}

TEST(TimelineAlignment, TwoLooserPairsBeatOneTightPairAndTwoGaps) {
  // Ref ends 1000, 1900 µs; other 1850, 2800 µs; T = 1000 µs. Nearest-first would pair
  // (1, 0) at 50 µs and leave two gaps: 50 + 2 × 1000 = 2050. The order-preserving optimum pairs
  // (0, 0) at 850 and (1, 1) at 900: 1750.
  const auto ag = CollectiveKind::kAllGather;
  const std::vector<CollectiveInstance> reference = {ends_at(ag, 1000 * kUs),
                                                     ends_at(ag, 1900 * kUs)};
  const std::vector<CollectiveInstance> other = {ends_at(ag, 1850 * kUs), ends_at(ag, 2800 * kUs)};
  EXPECT_EQ(align(reference, other), (Pairs{{0, 0}, {1, 1}}));
}

TEST(TimelineAlignment, NeverCrossesPairs) {
  // Other's first ends near ref's second and vice versa, both within T: only one can pair.
  // (0, 1) at 300 µs + 2 gaps = 2300 vs (1, 0) at 200 µs + 2 gaps = 2200.
  const auto ar = CollectiveKind::kAllReduce;
  std::vector<CollectiveInstance> reference = {ends_at(ar, 10 * kMs),
                                               ends_at(ar, 10 * kMs + 100 * kUs)};
  std::vector<CollectiveInstance> other = {ends_at(ar, 10 * kMs + 300 * kUs),
                                           ends_at(ar, 10 * kMs + 300 * kUs)};
  other[0].in_nelems = reference[1].in_nelems = 8;  // other 0 can pair only with ref 1
  other[1].in_nelems = reference[0].in_nelems = 4;  // other 1 only with ref 0
  EXPECT_EQ(align(reference, other), (Pairs{{1, 0}}));
}

TEST(TimelineAlignment, SubtractsClockOffsets) {
  const auto ar = CollectiveKind::kAllReduce;
  const std::vector<CollectiveInstance> reference = {ends_at(ar, 100 * kMs)};
  const std::vector<CollectiveInstance> other = {ends_at(ar, 105 * kMs + 100 * kUs)};
  EXPECT_EQ(align(reference, other), Pairs{});
  EXPECT_EQ(align(reference, other, 5 * kMs), (Pairs{{0, 0}}));  // other's clock 5 ms ahead
}

TEST(TimelineAlignment, ZeroToleranceStillPairsExactEnds) {
  const auto ar = CollectiveKind::kAllReduce;
  const std::vector<CollectiveInstance> reference = {ends_at(ar, 7 * kMs)};
  const std::vector<CollectiveInstance> other = {ends_at(ar, 7 * kMs), ends_at(ar, 7 * kMs + 1)};
  EXPECT_EQ(align(reference, other, 0, 0), (Pairs{{0, 0}}));
}

TEST(TimelineAlignment, ExtremeTimesAndOffsetsDoNotOverflow) {
  const std::int64_t max = std::numeric_limits<std::int64_t>::max();
  CollectiveInstance late;
  late.kind = CollectiveKind::kAllReduce;
  late.start_ns = max;
  CollectiveInstance early = late;
  early.start_ns = -max;
  const std::vector<CollectiveInstance> reference = {late};
  const std::vector<CollectiveInstance> other = {early};
  // Corrected ends saturate at the int64 limits instead of wrapping, and are far apart.
  EXPECT_EQ(align_to_reference(pointers(reference), -max, pointers(other), max, max), Pairs{});
  EXPECT_EQ(align_to_reference(pointers(reference), 0, pointers(reference), 0, max),
            (Pairs{{0, 0}}));
}

// The two sampled ranks of §1.2, rebuilt from its numbers: five true pairs with end differences
// 0, −55, +332, +8, −189 µs; each rank's five other collectives have no same-kind partner on
// their stream within 39 ms. Times in ms from the trace start; rank 0 indices in comments.
struct SampledRanks {
  std::vector<CollectiveInstance> rank0, rank1;
};

SampledRanks sampled_ranks() {
  const auto a2a = CollectiveKind::kAllToAll;
  const auto ar = CollectiveKind::kAllReduce;
  const auto ag = CollectiveKind::kAllGather;
  SampledRanks s;
  s.rank0 = {
      ends_at(a2a, 50 * kMs, 551, 84),   // 0: dropped on rank 1
      ends_at(ar, 400 * kMs, 552, 84),   // 1: pair 4
      ends_at(a2a, 120 * kMs, 551, 84),  // 2: pair 1
      ends_at(ag, 150 * kMs, 551, 203),  // 3: pair 3
      ends_at(ar, 200 * kMs, 551, 84),   // 4: pair 2
      ends_at(ar, 300 * kMs, 551, 84),   // 5: no partner (rank 1's 260 is 40 ms away)
      ends_at(a2a, 470 * kMs, 552, 84),  // 6: no partner (rank 1's 350: 120 ms)
      ends_at(ag, 500 * kMs, 552, 203),  // 7: pair 5
      ends_at(a2a, 600 * kMs, 552, 84),  // 8: no partner (250 ms)
      ends_at(ar, 700 * kMs, 552, 84),   // 9: no partner (rank 1's 760: 60 ms)
  };
  s.rank1 = {
      ends_at(ag, 110 * kMs, 551, 203),              // 0: no partner (rank 0's 150: 40 ms)
      ends_at(a2a, 120 * kMs, 551, 84),              // 1: pair 1, +0
      ends_at(ar, 200 * kMs - 55 * kUs, 551, 84),    // 2: pair 2, −55 µs
      ends_at(ag, 150 * kMs + 332 * kUs, 551, 203),  // 3: pair 3, +332 µs
      ends_at(ar, 260 * kMs, 551, 84),               // 4: no partner
      ends_at(a2a, 350 * kMs, 552, 84),              // 5: no partner
      ends_at(ar, 400 * kMs + 8 * kUs, 552, 84),     // 6: pair 4, +8 µs
      ends_at(ar, 450 * kMs, 552, 84),               // 7: no partner (rank 0's 400: 50 ms)
      ends_at(ag, 500 * kMs - 189 * kUs, 552, 203),  // 8: pair 5, −189 µs
      ends_at(ar, 760 * kMs, 552, 84),               // 9: no partner
  };
  return s;
}

TEST(CollectiveMatching, TimelineTierFindsTheFiveTruePairsOfTheSampledRanks) {
  const SampledRanks s = sampled_ranks();
  const std::vector<RankCollectives> ranks = {{1, s.rank1}, {0, s.rank0}};
  const MatchResult result = match_collectives(ranks);
  // Partition (551, 84): rank 0 has 4 instances, rank 1 3 → rank 0 is the reference, its
  // end-ordered sequence is 50, 120, 200, 300 ms. (551, 203): rank 1 has 2 (110, 150.332) and is
  // the reference. (552, 84): 4 each, the lower rank 0 is the reference (400, 470, 600, 700).
  EXPECT_EQ(
      texts(result),
      (Texts{"timeline|551|84 timeline #1@0: 0/2 1/1", "timeline|551|84 timeline #2@0: 0/4 1/2",
             "timeline|551|203 timeline #1@1: 0/3 1/3", "timeline|552|84 timeline #0@0: 0/1 1/6",
             "timeline|552|203 timeline #0@0: 0/7 1/8"}));
  EXPECT_EQ(result.unmatched,
            (Refs{{0, 0}, {0, 5}, {0, 6}, {0, 8}, {0, 9}, {1, 0}, {1, 4}, {1, 5}, {1, 7}, {1, 9}}));
  ASSERT_EQ(result.groups.size(), 1u);
  EXPECT_EQ(result.groups[0].pg_name, "");
  EXPECT_EQ(result.groups[0].tier, MatchTier::kTimeline);
  EXPECT_EQ(result.groups[0].matched_instances, 10u);
  EXPECT_EQ(result.groups[0].unmatched_instances, 10u);
}

TEST(CollectiveMatching, DriftedOrdinalStepsOfTheSampledRanksFallBackToTheTruePairs) {
  // With a pg name but no Seq the partitions are (pg, step) and both ranks hold 5 per step, but
  // the k-th instances disagree on kind (rank 0 starts with all-to-all at 50 ms, rank 1 with
  // all-gather at 110 ms): both steps fall back to alignment, which finds the same five pairs.
  SampledRanks s = sampled_ranks();
  for (auto* list : {&s.rank0, &s.rank1})
    for (CollectiveInstance& c : *list) {
      c.pg_name = "0";
      c.launch_ns = c.start_ns;
    }
  const std::vector<RankCollectives> ranks = {{0, s.rank0}, {1, s.rank1}};
  const MatchResult result = match_collectives(ranks);
  // Step 551, both ranks 5 → rank 0 is the reference: 50, 120, 150, 200, 300 ms.
  // Step 552: 400, 470, 500, 600, 700 ms.
  EXPECT_EQ(texts(result),
            (Texts{"ordinal|551|0 timeline #1@0: 0/2 1/1", "ordinal|551|0 timeline #2@0: 0/3 1/3",
                   "ordinal|551|0 timeline #3@0: 0/4 1/2", "ordinal|552|0 timeline #0@0: 0/1 1/6",
                   "ordinal|552|0 timeline #2@0: 0/7 1/8"}));
  EXPECT_EQ(result.timeline_fallbacks.size(), 2u);
  EXPECT_EQ(result.groups[0].tier, MatchTier::kOrdinal);
  EXPECT_EQ(result.groups[0].timeline_fallbacks, 2u);
}

TEST(CollectiveMatching, TimelineTierUsesTheGivenClockOffsets) {
  const std::vector<CollectiveInstance> rank0 = {ends_at(CollectiveKind::kAllReduce, 100 * kMs)};
  const std::vector<CollectiveInstance> rank1 = {
      ends_at(CollectiveKind::kAllReduce, 105 * kMs + 100 * kUs)};
  const std::vector<RankCollectives> ranks = {{0, rank0}, {1, rank1}};
  EXPECT_TRUE(match_collectives(ranks).collectives.empty());
  MatchOptions options;
  options.clock_offset_ns[1] = 5 * kMs;
  EXPECT_EQ(texts(match_collectives(ranks, options)),
            (Texts{"timeline|0|0 timeline #0@0: 0/0 1/0"}));
}

TEST(CollectiveMatching, FirstPassWithoutTimelineLeavesTimelinePartitionsUnmatched) {
  const SampledRanks s = sampled_ranks();
  std::vector<CollectiveInstance> rank0 = s.rank0;
  std::vector<CollectiveInstance> rank1 = s.rank1;
  rank0.push_back(allreduce("g", 0, 900 * kMs));
  rank1.push_back(allreduce("g", 0, 903 * kMs));
  const std::vector<RankCollectives> ranks = {{0, rank0}, {1, rank1}};
  MatchOptions options;
  options.align_timeline = false;
  const MatchResult result = match_collectives(ranks, options);
  EXPECT_EQ(texts(result), (Texts{"seq|0|g seq #0: 0/10 1/10"}));
  EXPECT_EQ(result.unmatched.size(), 20u);
}

CollectiveInstance p2p(CollectiveKind kind, std::int32_t peer, std::int64_t launch_ns,
                       std::int32_t step = 3) {
  CollectiveInstance c = ends_at(kind, launch_ns + 1 * kMs, step);
  c.pg_name = "pp";
  c.p2p = true;
  c.peer_rank = peer;
  c.launch_ns = launch_ns;
  return c;
}

TEST(CollectiveMatching, PointToPointPairsTheKthSendWithTheKthRecvPerDirection) {
  const auto send = CollectiveKind::kSend;
  const auto recv = CollectiveKind::kRecv;
  const std::vector<CollectiveInstance> rank0 = {
      p2p(recv, 1, 5 * kMs),      // 0: the only recv from 1
      p2p(send, 1, 2 * kMs),      // 1: second send to 1 by launch
      p2p(send, 1, 1 * kMs),      // 2: first send to 1
      p2p(send, -1, 3 * kMs),     // 3: no peer: counted only
      p2p(send, 1, 9 * kMs, 4)};  // 4: step 4, rank 1 never receives it
  const std::vector<CollectiveInstance> rank1 = {
      p2p(recv, 0, 1 * kMs),  // 0: first recv from 0
      p2p(send, 0, 4 * kMs),  // 1: send to 0
      p2p(recv, 0, 3 * kMs),  // 2: second recv from 0
  };
  const std::vector<RankCollectives> ranks = {{0, rank0}, {1, rank1}};
  const MatchResult result = match_collectives(ranks);
  // Without Seq the group is ordinal; p2p key text names the unordered pair.
  EXPECT_EQ(texts(result),
            (Texts{"p2p|3|0|1|pp ordinal #0@0: 0/2 1/0", "p2p|3|0|1|pp ordinal #0@1: 0/0 1/1",
                   "p2p|3|0|1|pp ordinal #1@0: 0/1 1/2"}));
  EXPECT_EQ(result.unmatched, (Refs{{0, 3}, {0, 4}}));
  ASSERT_EQ(result.groups.size(), 1u);
  EXPECT_EQ(result.groups[0].p2p_without_peer, 1u);
  EXPECT_EQ(result.groups[0].unmatched_instances, 2u);
}

TEST(CollectiveMatching, PartitionKeysHaveOneCanonicalText) {
  PartitionKey seq{"0", PartitionKind::kSeq, 2050 / 1024};
  EXPECT_EQ(seq.canonical_text(), "seq|2|0");
  PartitionKey ordinal{"default_pg", PartitionKind::kOrdinal, -1, 4};
  EXPECT_EQ(ordinal.canonical_text(), "ordinal|4|default_pg");
  PartitionKey timeline{"", PartitionKind::kTimeline, -1, 551, 84};
  EXPECT_EQ(timeline.canonical_text(), "timeline|551|84");
  PartitionKey pair{"pp", PartitionKind::kPointToPoint, -1, 3, -1, 0, 1};
  EXPECT_EQ(pair.canonical_text(), "p2p|3|0|1|pp");
  // FNV-1a 64 reference vectors.
  EXPECT_EQ(fnv1a64(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(fnv1a64("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(fnv1a64("foobar"), 0x85944171f73967e8ULL);
  EXPECT_EQ(partition_of(seq, 0), 0u);
  EXPECT_EQ(partition_of(seq, 1), 0u);
  EXPECT_EQ(partition_of(seq, 1000), fnv1a64("seq|2|0") % 1000);
}

// Every tier at once on three ranks.
std::vector<std::vector<CollectiveInstance>> mixed_ranks() {
  std::vector<std::vector<CollectiveInstance>> out(3);
  const SampledRanks s = sampled_ranks();
  for (std::int32_t r = 0; r < 3; ++r) {
    auto& list = out[static_cast<std::size_t>(r)];
    for (std::int64_t seq = 0; seq < 6; ++seq)
      if ((seq + r) % 4 != 0) list.push_back(allreduce("seqpg", seq, (10 + seq) * kMs));
    for (std::int64_t k = 0; k < 3; ++k)
      if (r == 2 || k != r)
        list.push_back(allreduce("ordpg", -1, (20 + k) * kMs + r * 100 * kUs, 2));
    for (const auto& c : r == 1 ? s.rank1 : s.rank0) list.push_back(c);
    list.push_back(p2p(CollectiveKind::kSend, (r + 1) % 3, 30 * kMs));
    list.push_back(p2p(CollectiveKind::kRecv, (r + 2) % 3, 31 * kMs));
  }
  return out;
}

std::string dump(const MatchResult& result) {
  std::string out;
  for (const MatchedCollective& c : result.collectives)
    out += text(c) + " p" + std::to_string(c.partition) + (c.mismatch ? " !" : "") + "\n";
  for (const GroupMatchSummary& g : result.groups)
    out += g.pg_name + " " + tier_text(g.tier) + " " + std::to_string(g.instances) + " " +
           std::to_string(g.matched_instances) + " " + std::to_string(g.collectives) + " " +
           std::to_string(g.timeline_fallbacks) + "\n";
  for (const MismatchWarning& w : result.mismatches) out += w.detail + "\n";
  for (const PartitionKey& k : result.timeline_fallbacks) out += k.canonical_text() + "\n";
  for (const MemberRef& m : result.unmatched)
    out += std::to_string(m.rank) + "/" + std::to_string(m.index) + " ";
  return out;
}

TEST(CollectiveMatching, OutputDoesNotDependOnTheOrderOfRanks) {
  const auto lists = mixed_ranks();
  MatchOptions options;
  options.partition_count = 8;
  std::vector<std::int32_t> order = {0, 1, 2};
  std::string first;
  do {
    std::vector<RankCollectives> ranks;
    for (const std::int32_t r : order) ranks.push_back({r, lists[static_cast<std::size_t>(r)]});
    const std::string out = dump(match_collectives(ranks, options));
    if (first.empty()) first = out;
    EXPECT_EQ(out, first) << "order " << order[0] << order[1] << order[2];
  } while (std::next_permutation(order.begin(), order.end()));
  // Seq k is on ranks r with (k + r) % 4 ≠ 0, so every Seq is on two or three ranks; ranks 0
  // and 1 lack one instance of the ordinal step (2, 2, 3 instances: it falls back); every p2p
  // send r → r+1 meets its recv.
  const MatchResult result = match_collectives(
      std::vector<RankCollectives>{{0, lists[0]}, {1, lists[1]}, {2, lists[2]}}, options);
  std::size_t seq = 0, p2p_pairs = 0;
  for (const MatchedCollective& c : result.collectives) {
    seq += c.partition_key.kind == PartitionKind::kSeq;
    p2p_pairs += c.partition_key.kind == PartitionKind::kPointToPoint;
    EXPECT_EQ(c.partition, partition_of(c.partition_key, 8));
  }
  EXPECT_EQ(seq, 6u);
  EXPECT_EQ(p2p_pairs, 3u);
  EXPECT_EQ(result.timeline_fallbacks.size(), 1u);
}

TEST(CollectiveMatching, ARankGivenTwiceKeepsItsFirstEntry) {
  const std::vector<CollectiveInstance> a = {allreduce("g", 0, kMs)};
  const std::vector<CollectiveInstance> b = {allreduce("g", 1, kMs), allreduce("g", 0, kMs)};
  const std::vector<RankCollectives> ranks = {{0, a}, {1, a}, {1, b}};
  EXPECT_EQ(texts(match_collectives(ranks)), (Texts{"seq|0|g seq #0: 0/0 1/0"}));
}

}  // namespace
}  // namespace traceprism::multirank
