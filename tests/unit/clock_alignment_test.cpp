// Per-node clock offsets (multi-rank.md §6): the median end-time difference against the
// reference node, its clamp into the rendezvous bound, the significance test, chaining through
// other nodes, sampling, and the warnings after correction.
#include <gtest/gtest.h>

#include "multirank/clock_alignment.hpp"

namespace traceprism::multirank {
namespace {

constexpr std::int64_t kUs = 1'000;
constexpr std::int64_t kMs = 1'000'000;

using NodeMap = std::map<std::int32_t, std::int32_t>;

const NodeClockOffset& node(const ClockAlignment& a, std::int32_t n) {
  for (const NodeClockOffset& o : a.nodes)
    if (o.node == n) return o;
  ADD_FAILURE() << "no node " << n;
  return a.nodes.front();
}

std::vector<ClockWarningKind> warning_kinds(const ClockAlignment& a) {
  std::vector<ClockWarningKind> out;
  for (const ClockWarning& w : a.warnings) out.push_back(w.kind);
  return out;
}

// Ranks 0, 1 on node 0 and 2, 3 on node 1, whose clock runs 2 ms ahead. Instance i starts at
// B = i × 10 ms (true): rank 0 at B, 1 at B + 100 µs, 2 at B + 300 µs, 3 at B + 200 µs; ends
// at B + 1 ms + {0, 2, 1, 3} µs, node 1's ends moved by a jitter j_i.
std::vector<CompleteInstance> two_nodes_two_ms_apart() {
  const std::int64_t jitter_ns[] = {0, 100, -100, 200, -200, 300, -300, 400, -400, 500, -500, 0};
  std::vector<CompleteInstance> out;
  for (std::int64_t i = 0; i < 12; ++i) {
    const std::int64_t b = i * 10 * kMs;
    const std::int64_t e = b + 1 * kMs;
    const std::int64_t j = jitter_ns[i];
    const std::int64_t ahead = 2 * kMs;
    out.push_back({static_cast<std::uint64_t>(i),
                   {{0, b, e},
                    {1, b + 100 * kUs, e + 2 * kUs},
                    {2, b + 300 * kUs + ahead, e + 1 * kUs + j + ahead},
                    {3, b + 200 * kUs + ahead, e + 3 * kUs + j + ahead}}});
  }
  return out;
}

TEST(ClockAlignment, OffsetIsTheMedianEndDifferenceAgainstTheReferenceNode) {
  const NodeMap nodes = {{0, 0}, {1, 0}, {2, 1}, {3, 1}};
  const ClockAlignment a = estimate_clock_offsets(two_nodes_two_ms_apart(), nodes);
  EXPECT_EQ(a.reference_node, 0);
  ASSERT_EQ(a.nodes.size(), 2u);
  // Node medians: node 0 ends e + 1 µs (mean of e, e + 2 µs); node 1 e + 2 µs + j + 2 ms.
  // δ_i = 2 ms + 1 µs + j_i; the sorted j run from −500 to 500, 0 twice in the middle:
  // 2001 µs.
  const NodeClockOffset& n1 = node(a, 1);
  EXPECT_EQ(n1.offset_ns, 2'001'000);
  // |j| sorted: 0 0 100 100 200 200 300 300 400 400 500 500 → (200 + 300) / 2 = 250 ns.
  EXPECT_EQ(n1.mad_ns, 250);
  EXPECT_EQ(n1.samples, 12u);
  EXPECT_EQ(n1.shared_instances, 12u);
  EXPECT_EQ(n1.via_node, 0);
  EXPECT_TRUE(n1.reachable);
  EXPECT_TRUE(n1.bound_consistent);
  // Bound: [2 ms + 300 µs − 1 ms, 2 ms + 1 ms + 1 µs − 100 µs − 500 ns] holds it.
  EXPECT_FALSE(n1.clamped);
  EXPECT_TRUE(n1.applied);
  EXPECT_EQ(n1.applied_offset_ns(), 2'001'000);
  EXPECT_EQ(node(a, 0).offset_ns, 0);
  EXPECT_TRUE(node(a, 0).reachable);
  EXPECT_FALSE(node(a, 0).applied);
  // After correction no rank ends before the last start; start skew 299 µs, end skew ≤ 2.5 µs.
  EXPECT_EQ(a.checked_instances, 12u);
  EXPECT_EQ(a.bound_violations, 0u);
  EXPECT_EQ(a.end_skew_exceeds_start_skew, 0u);
  EXPECT_EQ(warning_kinds(a), (std::vector{ClockWarningKind::kLargeOffset}));
  EXPECT_EQ(a.warnings[0].node, 1);
  EXPECT_EQ(a.warnings[0].detail, "node 1 clock runs 2001.0 µs ahead of node 0");
  EXPECT_EQ(rank_clock_offsets(a, nodes),
            (std::map<std::int32_t, std::int64_t>{{0, 0}, {1, 0}, {2, 2'001'000}, {3, 2'001'000}}));
}

TEST(ClockAlignment, SamplesEveryMthInstanceByKeyHash) {
  ClockOptions options;
  options.max_samples_per_pair = 4;  // 12 shared → M = 3: hashes 0, 3, 6, 9
  const ClockAlignment a =
      estimate_clock_offsets(two_nodes_two_ms_apart(), {{0, 0}, {1, 0}, {2, 1}, {3, 1}}, options);
  const NodeClockOffset& n1 = node(a, 1);
  EXPECT_EQ(n1.samples, 4u);
  EXPECT_EQ(n1.shared_instances, 12u);
  // j of instances 0, 3, 6, 9: 0, 200, −300, 500; middles 0 and 200: δ = 2001 µs + 100 ns.
  EXPECT_EQ(n1.offset_ns, 2'001'100);
  EXPECT_FALSE(n1.applied);  // 4 < 10 samples
}

TEST(ClockAlignment, ClampsIntoTheRendezvousBound) {
  // One rank per node. Written ends say node 1 runs 500 µs ahead, but in instance 9 rank 0
  // started 300 µs before rank 1's written end: the offset cannot exceed 300 µs.
  std::vector<CompleteInstance> instances;
  for (std::int64_t i = 0; i < 10; ++i) {
    const std::int64_t b = i * 10 * kMs;
    const bool late = i == 9;
    instances.push_back({static_cast<std::uint64_t>(i),
                         {{0, late ? b + 1200 * kUs : b, late ? b + 1250 * kUs : b + 1000 * kUs},
                          {1, b + 100 * kUs, b + 1500 * kUs}}});
  }
  const ClockAlignment a = estimate_clock_offsets(instances, {{0, 0}, {1, 1}});
  const NodeClockOffset& n1 = node(a, 1);
  // δ: nine × 500 µs and one 250 µs → median 500 µs, MAD 0; bound [−900 µs, 300 µs].
  EXPECT_EQ(n1.mad_ns, 0);
  EXPECT_TRUE(n1.clamped);
  EXPECT_EQ(n1.offset_ns, 300 * kUs);
  EXPECT_TRUE(n1.applied);  // 10 samples, 300 µs > max(20 µs, 0)
  EXPECT_EQ(a.bound_violations, 0u);
  EXPECT_TRUE(a.warnings.empty());
}

TEST(ClockAlignment, SmallOrNoisyOffsetsAreNotApplied) {
  // Node 1 ahead by 15 µs: below the 20 µs floor.
  std::vector<CompleteInstance> small;
  for (std::int64_t i = 0; i < 12; ++i) {
    const std::int64_t b = i * 10 * kMs;
    small.push_back({static_cast<std::uint64_t>(i),
                     {{0, b, b + 1 * kMs}, {1, b + 15 * kUs, b + 1 * kMs + 15 * kUs}}});
  }
  const ClockAlignment a = estimate_clock_offsets(small, {{0, 0}, {1, 1}});
  EXPECT_EQ(node(a, 1).offset_ns, 15 * kUs);
  EXPECT_FALSE(node(a, 1).applied);

  // Node 1's δ alternates 0 and 100 µs (median 50, MAD 50): 50 µs ≤ 3 × 50 µs.
  std::vector<CompleteInstance> noisy;
  for (std::int64_t i = 0; i < 12; ++i) {
    const std::int64_t b = i * 10 * kMs;
    const std::int64_t d = i % 2 == 0 ? 0 : 100 * kUs;
    noisy.push_back(
        {static_cast<std::uint64_t>(i), {{0, b, b + 1 * kMs}, {1, b + d, b + 1 * kMs + d}}});
  }
  const ClockAlignment b = estimate_clock_offsets(noisy, {{0, 0}, {1, 1}});
  EXPECT_EQ(node(b, 1).offset_ns, 50 * kUs);
  EXPECT_EQ(node(b, 1).mad_ns, 50 * kUs);
  EXPECT_FALSE(node(b, 1).applied);
}

TEST(ClockAlignment, ChainsNodesThatShareNothingWithTheReference) {
  // Node 1 runs 500 µs ahead of node 0; node 2 300 µs ahead of node 1 and shares instances only
  // with node 1; node 3 (rank 3) has no instance at all.
  std::vector<CompleteInstance> instances;
  for (std::int64_t i = 0; i < 12; ++i) {
    const std::int64_t b = i * 10 * kMs;
    instances.push_back({static_cast<std::uint64_t>(i),
                         {{0, b, b + 1000 * kUs}, {1, b + 500 * kUs, b + 1500 * kUs}}});
    instances.push_back(
        {static_cast<std::uint64_t>(i + 100),
         {{1, b + 5500 * kUs, b + 6500 * kUs}, {2, b + 5800 * kUs, b + 6800 * kUs}}});
  }
  const NodeMap nodes = {{0, 0}, {1, 1}, {2, 2}, {3, 3}};
  const ClockAlignment a = estimate_clock_offsets(instances, nodes);
  EXPECT_EQ(node(a, 1).offset_ns, 500 * kUs);
  EXPECT_EQ(node(a, 1).via_node, 0);
  EXPECT_TRUE(node(a, 1).applied);
  EXPECT_EQ(node(a, 2).via_node, 1);
  EXPECT_EQ(node(a, 2).offset_ns, 800 * kUs);  // 500 + 300
  EXPECT_EQ(node(a, 2).samples, 12u);
  EXPECT_TRUE(node(a, 2).applied);
  EXPECT_FALSE(node(a, 3).reachable);
  EXPECT_EQ(node(a, 3).offset_ns, 0);
  EXPECT_EQ(warning_kinds(a), (std::vector{ClockWarningKind::kUnknownClock}));
  EXPECT_EQ(a.warnings[0].node, 3);
  EXPECT_EQ(rank_clock_offsets(a, nodes),
            (std::map<std::int32_t, std::int64_t>{{0, 0}, {1, 500 * kUs}, {2, 800 * kUs}, {3, 0}}));
  EXPECT_EQ(a.bound_violations, 0u);
}

TEST(ClockAlignment, WarnsWhenTheUncorrectedClocksBreakRendezvous) {
  // Five instances only (not applied): node 1 is 3 ms ahead, so uncorrected it "starts" 1.5 ms
  // after node 0 ended, and its end skew (3 ms) exceeds its start skew (2.5 ms).
  std::vector<CompleteInstance> instances;
  for (std::int64_t i = 0; i < 5; ++i) {
    const std::int64_t b = i * 10 * kMs;
    instances.push_back(
        {static_cast<std::uint64_t>(i),
         {{0, b, b + 1 * kMs}, {1, b - 500 * kUs + 3 * kMs, b + 1 * kMs + 3 * kMs}}});
  }
  const ClockAlignment a = estimate_clock_offsets(instances, {{0, 0}, {1, 1}});
  EXPECT_EQ(node(a, 1).offset_ns, 3 * kMs);  // bound [1.5 ms, 4 ms] holds it
  EXPECT_FALSE(node(a, 1).clamped);
  EXPECT_FALSE(node(a, 1).applied);
  EXPECT_EQ(a.checked_instances, 5u);
  EXPECT_EQ(a.bound_violations, 5u);
  EXPECT_EQ(a.end_skew_exceeds_start_skew, 5u);
  EXPECT_EQ(warning_kinds(a),
            (std::vector{ClockWarningKind::kLargeOffset, ClockWarningKind::kBoundViolations,
                         ClockWarningKind::kEndSkew}));
}

TEST(ClockAlignment, WarnsWhenRanksOfOneNodeDisagree) {
  // Ranks 0 and 1 share node 0's clock, yet rank 1 always ends 100 µs later (it also starts
  // 200 µs later, so the end skew stays below the start skew).
  std::vector<CompleteInstance> instances;
  for (std::int64_t i = 0; i < 12; ++i) {
    const std::int64_t b = i * 10 * kMs;
    instances.push_back(
        {static_cast<std::uint64_t>(i), {{0, b, b + 1 * kMs}, {1, b + 200 * kUs, b + 1100 * kUs}}});
  }
  const ClockAlignment a = estimate_clock_offsets(instances, {{0, 0}, {1, 0}});
  ASSERT_EQ(warning_kinds(a), (std::vector{ClockWarningKind::kNodeMapping}));
  EXPECT_EQ(a.warnings[0].detail,
            "ranks 0 and 1 of node 0 end 100.0 µs apart (median): node mapping wrong?");
}

TEST(ClockAlignment, EmptyInputsGiveNothing) {
  const ClockAlignment none = estimate_clock_offsets({}, {});
  EXPECT_EQ(none.reference_node, -1);
  EXPECT_TRUE(none.nodes.empty());
  // Members outside the node map are ignored.
  const std::vector<CompleteInstance> instances = {{0, {{7, 0, 10}, {8, 0, 10}}}};
  const ClockAlignment a = estimate_clock_offsets(instances, {{0, 0}});
  EXPECT_EQ(a.reference_node, 0);
  EXPECT_EQ(a.checked_instances, 0u);
  EXPECT_TRUE(a.warnings.empty());
}

}  // namespace
}  // namespace traceprism::multirank
