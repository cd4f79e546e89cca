// The `bandwidth-outlier-group` cross-rank item (multi-rank.md §9.2) on hand-made jobs: every
// expected number below is worked out by hand from the instances' sizes and times (the comments
// show the arithmetic). The chain is the real one: match_collectives, cross_rank_figures, then
// the analyzer (and straggler_outcome for the card it absorbs).
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "multirank/bandwidth_outlier_findings.hpp"
#include "multirank/collective_matching.hpp"
#include "multirank/cross_rank_figures.hpp"
#include "multirank/cross_rank_findings.hpp"

namespace traceprism::multirank {
namespace {

using model::CollectiveDtype;
using model::CollectiveInstance;
using model::CollectiveKind;

constexpr std::int64_t kUs = 1'000;
constexpr std::int64_t kMs = 1'000'000;
constexpr std::int64_t kSixteenMiB = std::int64_t{16} << 20;  // 16 777 216 B

struct Group {
  std::string name, description;
  std::vector<std::int32_t> ranks;
};

// A BFloat16 all-reduce of 16 MiB in group g, half of it exposed (x = 500‰).
CollectiveInstance allreduce(const Group& g, std::int64_t seq, std::int64_t start_ns,
                             std::int64_t duration_ns) {
  CollectiveInstance c;
  c.kind = CollectiveKind::kAllReduce;
  c.dtype = CollectiveDtype::kBFloat16;
  c.pg_name = g.name;
  c.pg_description = g.description;
  c.pg_ranks = "[";
  for (std::size_t i = 0; i < g.ranks.size(); ++i)
    c.pg_ranks += (i ? ", " : "") + std::to_string(g.ranks[i]);
  c.pg_ranks += "]";
  c.group_size = static_cast<std::int64_t>(g.ranks.size());
  c.seq = seq;
  c.in_nelems = c.out_nelems = kSixteenMiB / 2;
  c.start_ns = start_ns;
  c.duration_ns = duration_ns;
  c.exposed_ns = duration_ns / 2;
  return c;
}

struct Job {
  std::vector<RankSummary> summaries;
  std::vector<std::vector<CollectiveInstance>> instances;
  std::vector<RankInput> inputs;
  MatchResult matches;
  CrossRankFigures figures;
  CrossRankContext context;

  explicit Job(int ranks) {
    summaries.resize(static_cast<std::size_t>(ranks));
    instances.resize(static_cast<std::size_t>(ranks));
    context.e2e_ns = 10 * kMs;
    context.loaded_ranks = static_cast<std::size_t>(ranks);
    context.world_size = ranks;
  }

  // Three all-reduces of g (Seq 1-3), the k-th at k × 2 ms + offset on every member, each
  // lasting `duration_ns`: every member starts together, so T = duration_ns.
  Job& add(const Group& g, std::int64_t duration_ns, std::int64_t offset_ns = 0) {
    for (std::int32_t r : g.ranks)
      for (int k = 0; k < 3; ++k)
        instances[static_cast<std::size_t>(r)].push_back(
            allreduce(g, k + 1, k * 2 * kMs + offset_ns, duration_ns));
    return *this;
  }

  Job& analyze() {
    std::vector<RankCollectives> for_matching;
    for (std::size_t r = 0; r < instances.size(); ++r) {
      inputs.push_back({static_cast<std::int32_t>(r), &summaries[r], instances[r]});
      for_matching.push_back({static_cast<std::int32_t>(r), instances[r]});
    }
    matches = match_collectives(for_matching);
    figures = cross_rank_figures(inputs, matches);
    return *this;
  }

  findings::AnalyzerOutcome outcome() const {
    return bandwidth_outlier_outcome(inputs, matches, figures, context);
  }
};

// Four tensor-parallel pairs {0,1}, {2,3}, {4,5}, {6,7} (description `description`), each running
// three 16 MiB all-reduces in 200 µs, but `slow_us` for the pair {2,3}.
Job tp_job(std::int64_t slow_us, const std::string& description = "tp") {
  Job job(8);
  job.add({"1", description, {0, 1}}, 200 * kUs)
      .add({"2", description, {2, 3}}, slow_us * kUs)
      .add({"3", description, {4, 5}}, 200 * kUs)
      .add({"4", description, {6, 7}}, 200 * kUs);
  return job;
}

// The world group "0" (all 8 ranks, default_pg): three all-reduces at k × 2 ms + 1 ms. Every
// rank but `late_rank` starts at that time, `late_rank` 300 µs later; all end together 100 µs
// after it, so T = 100 µs, the others run 400 µs, every member's collective is wholly exposed
// (x = 1000‰), and each instance is skewed (A = 300 µs ≥ max(10 µs, 5 µs)). Every rank's step
// starts at k × 2 ms (anchor); the late rank's 300 µs before it are exposed communication
// (cause `communication`) or, with `compute_cause`, computation.
void add_world_with_late_rank(Job& job, std::int32_t late_rank, bool compute_cause = false) {
  const Group world{"0", "default_pg", {0, 1, 2, 3, 4, 5, 6, 7}};
  for (std::int32_t r = 0; r < 8; ++r)
    for (int k = 0; k < 3; ++k) {
      const bool late = r == late_rank;
      const std::int64_t base = k * 2 * kMs;
      CollectiveInstance c = allreduce(world, k + 1, base + 1 * kMs + (late ? 300 * kUs : 0),
                                       late ? 100 * kUs : 400 * kUs);
      c.exposed_ns = c.duration_ns;
      c.anchor_ns = base;
      if (late) (compute_cause ? c.pre_compute_ns : c.pre_comm_ns) = 300 * kUs;
      job.instances[static_cast<std::size_t>(r)].push_back(c);
    }
}

std::map<std::string, double> metrics_of(const findings::Finding& f) {
  return {f.metrics.begin(), f.metrics.end()};
}

// S = 16 MiB = 16 777 216 B; f(2) = 2 × (2 − 1) / 2 = 1.
//   siblings: busbw = 16 777 216 / 200 000 ns = 83.88608 GB/s (each of {0,1}, {4,5}, {6,7})
//   {2,3}:    busbw = 16 777 216 / 400 000 ns = 41.94304 GB/s; siblings' median 83.88608
//             Q = 41.94304 / 83.88608 = 0.50 < 0.7: an outlier
//   time saved: ideal T = 16 777 216 / 83.88608 = 200 000 ns; per instance
//             (400 000 − 200 000) × 500 / 1000 = 100 000 ns; × 3 = 300 000 ns
//   impact (% of 10 ms): high 300 000 / 10^7 = 3%, mid × 0.75 = 2.25%, low × 0.5 = 1.5%
//   each sibling against the other three (83.89, 83.89, 41.94): median 83.89, Q = 1.00
TEST(BandwidthOutlierGroup, ATpPairAtHalfItsSiblingsBandwidthGetsACard) {
  Job job = tp_job(400);
  job.analyze();
  ASSERT_EQ(job.figures.instances.size(), 12u);
  ASSERT_FALSE(job.figures.stragglers);
  const findings::AnalyzerOutcome out = job.outcome();
  EXPECT_EQ(out.name, "xrank-bandwidth-outlier-group");
  EXPECT_EQ(out.plugin, "host");
  EXPECT_EQ(out.status, findings::AnalyzerStatus::kOk);
  ASSERT_EQ(out.findings.size(), 1u);
  const findings::Finding& f = out.findings[0];
  EXPECT_EQ(f.analyzer, "xrank-bandwidth-outlier-group");
  EXPECT_EQ(f.key, "bandwidth-outlier-group");
  EXPECT_EQ(f.category, "multi_rank");
  EXPECT_EQ(f.tier, findings::Tier::kSystem);
  EXPECT_EQ(f.impact_kind, findings::ImpactKind::kQuantified);
  EXPECT_EQ(f.title, "Group 2, 3 runs collectives at 0.50× its siblings' bandwidth");
  EXPECT_NEAR(f.impact_high, 3.0, 1e-9);
  EXPECT_NEAR(f.impact_mid, 2.25, 1e-9);
  EXPECT_NEAR(f.impact_low, 1.5, 1e-9);
  EXPECT_DOUBLE_EQ(f.share_percent, f.impact_mid);
  EXPECT_EQ(f.severity, findings::Severity::kWarning);  // mid ≥ 2, < 10
  const std::map<std::string, double> metrics = metrics_of(f);
  EXPECT_NEAR(metrics.at("bandwidth_ratio"), 0.5, 1e-12);
  EXPECT_NEAR(metrics.at("busbw_gbps"), 41.94304, 1e-9);
  EXPECT_NEAR(metrics.at("sibling_busbw_gbps"), 83.88608, 1e-9);
  EXPECT_EQ(metrics.at("siblings"), 3);
  EXPECT_EQ(metrics.at("slow_groups"), 1);
  EXPECT_NEAR(metrics.at("time_saved_ms"), 0.3, 1e-9);
  EXPECT_EQ(metrics.count("absorbed_stragglers"), 0u);
  EXPECT_NE(f.insight.find("Process group 2 (tp, ranks 2, 3) runs its 3 allreduce collectives of "
                           "16 MiB (BFloat16) at a median bus bandwidth of 41.9 GB/s, 0.50× the "
                           "83.9 GB/s median of its 3 sibling groups"),
            std::string::npos)
      << f.insight;
  EXPECT_NE(f.insight.find("0.300 ms (3.00% of the focus rank's end-to-end time)"),
            std::string::npos)
      << f.insight;
  EXPECT_NE(f.action.find("rank(s) 2, 3"), std::string::npos) << f.action;
  ASSERT_EQ(f.tables.size(), 1u);
  const findings::DataTable& t = f.tables[0];
  ASSERT_EQ(t.rows.size(), 4u);
  EXPECT_EQ(t.rows[0], (std::vector<std::string>{"2", "tp", "2, 3", "allreduce", "BFloat16", "16",
                                                 "3", "400.0", "41.9", "0.50×", "0.300"}));
  EXPECT_EQ(t.rows[1], (std::vector<std::string>{"1", "tp", "0, 1", "allreduce", "BFloat16", "16",
                                                 "3", "200.0", "83.9", "1.00×", ""}));
  EXPECT_EQ(t.rows[3][0], "4");
  EXPECT_EQ(out.summary, "bandwidth outlier: group 2, 3 at 0.50× of the siblings' bandwidth");
  EXPECT_TRUE(out.products.empty());
}

TEST(BandwidthOutlierGroup, EqualSiblingsAreNoFinding) {
  Job job = tp_job(200);
  job.analyze();
  const findings::AnalyzerOutcome out = job.outcome();
  EXPECT_EQ(out.status, findings::AnalyzerStatus::kOk);
  EXPECT_TRUE(out.findings.empty());
  EXPECT_EQ(out.summary,
            "no process group below 0.70× its siblings' bandwidth (1 family compared)");
}

TEST(BandwidthOutlierGroup, SeventyPercentIsNoOutlier) {
  // 200 / 0.7 = 285 714.3 ns: T = 285 714 ns gives Q = 200 000 / 285 714 = 0.7000001 ≥ 0.7.
  Job job(8);
  job.add({"1", "tp", {0, 1}}, 200 * kUs)
      .add({"2", "tp", {2, 3}}, 285'714)
      .add({"3", "tp", {4, 5}}, 200 * kUs)
      .add({"4", "tp", {6, 7}}, 200 * kUs);
  job.analyze();
  EXPECT_TRUE(job.outcome().findings.empty());
}

TEST(BandwidthOutlierGroup, TwoSiblingsAreNotEnough) {
  // Pairs {0,1} and {2,3} only: {2,3} at half the bandwidth, but fewer than 3 groups.
  Job job(4);
  job.add({"1", "tp", {0, 1}}, 200 * kUs).add({"2", "tp", {2, 3}}, 400 * kUs);
  job.analyze();
  const findings::AnalyzerOutcome out = job.outcome();
  EXPECT_EQ(out.status, findings::AnalyzerStatus::kOk);
  EXPECT_TRUE(out.findings.empty());
  EXPECT_EQ(out.summary, "no collective family shared by 3 or more sibling process groups");
}

TEST(BandwidthOutlierGroup, GroupsWithoutDescriptionAreSiblingsBySizeAndCollective) {
  // PyTorch's default description: the four pairs are siblings by size and signature.
  Job job = tp_job(400, "undefined");
  job.analyze();
  const findings::AnalyzerOutcome out = job.outcome();
  ASSERT_EQ(out.findings.size(), 1u);
  EXPECT_EQ(out.findings[0].title, "Group 2, 3 runs collectives at 0.50× its siblings' bandwidth");
  EXPECT_NEAR(out.findings[0].impact_mid, 2.25, 1e-9);
  EXPECT_NE(out.findings[0].insight.find("Process group 2 (ranks 2, 3)"), std::string::npos)
      << out.findings[0].insight;
}

TEST(BandwidthOutlierGroup, GroupsOfAnotherDescriptionAreNotSiblings) {
  // {2,3} is "tp-b": two "tp" pairs and one "tp-b" pair, no set of 3 siblings.
  Job job(8);
  job.add({"1", "tp", {0, 1}}, 200 * kUs)
      .add({"2", "tp-b", {2, 3}}, 400 * kUs)
      .add({"3", "tp", {4, 5}}, 200 * kUs);
  job.analyze();
  EXPECT_TRUE(job.outcome().findings.empty());
}

TEST(BandwidthOutlierGroup, BelowHalfTheRanksItIsSkipped) {
  Job job = tp_job(400);
  job.context.world_size = 20;  // 8 of 20 loaded
  job.analyze();
  const findings::AnalyzerOutcome out = job.outcome();
  EXPECT_EQ(out.status, findings::AnalyzerStatus::kSkipped);
  EXPECT_TRUE(out.findings.empty());
  EXPECT_NE(out.error.find("8 of 20 ranks analysed"), std::string::npos) << out.error;
  job.context.allow_partial = true;
  EXPECT_EQ(job.outcome().findings.size(), 1u);
}

// The world all-reduces make rank 3 a straggler: last at all 3 skewed instances (100%, ≥ 3/8),
// mean lateness over its 6 complete instances (300 µs at the 3 world ones, 0 at its 3 pair ones)
// = 150 µs ≥ 50 µs, z = 150 / 10 (every other rank 0: MAD 0, floor 10 µs) = 15 ≥ 3.5; its
// lateness is all exposed communication: cause `communication`. Its impact mid = Σ (max s −
// median s) × x_c = 3 × 300 µs × 1000‰ = 0.900 ms. Its ranks {3} lie in the slow pair {2,3}.
TEST(BandwidthOutlierGroup, ACommunicationStragglerInsideTheSlowGroupIsAbsorbed) {
  Job job = tp_job(400);
  add_world_with_late_rank(job, 3);
  job.analyze();
  ASSERT_TRUE(job.figures.stragglers);
  EXPECT_EQ(job.figures.stragglers->ranks, std::vector<std::int32_t>{3});
  EXPECT_EQ(job.figures.stragglers->cause, LatenessCause::kCommunication);
  EXPECT_EQ(job.figures.stragglers->impact_mid_ns, 900 * kUs);
  const findings::AnalyzerOutcome out = job.outcome();
  ASSERT_EQ(out.findings.size(), 1u);
  const findings::Finding& f = out.findings[0];
  EXPECT_EQ(f.title, "Group 2, 3 runs collectives at 0.50× its siblings' bandwidth");
  EXPECT_NEAR(f.impact_mid, 2.25, 1e-9);  // the late arrivals are not counted twice
  EXPECT_NE(f.insight.find("Rank 3 arrives last at 100% of the skewed collectives it joins, late "
                           "because of its communication: its late arrivals are this card's "
                           "(0.900 ms of exposed waiting past the median arrival)"),
            std::string::npos)
      << f.insight;
  EXPECT_EQ(metrics_of(f).at("absorbed_stragglers"), 1);
  EXPECT_EQ(absorbed_straggler_ranks(out), std::vector<std::int32_t>{3});
  EXPECT_TRUE(absorbs_straggler(out, *job.figures.stragglers));

  // The caller's side: the straggler card goes, the summary says where it is reported.
  findings::AnalyzerOutcome straggler = straggler_outcome(job.figures, job.inputs, job.context);
  ASSERT_EQ(straggler.findings.size(), 1u);
  EXPECT_TRUE(drop_absorbed_straggler(straggler, out, job.figures));
  EXPECT_TRUE(straggler.findings.empty());
  EXPECT_EQ(straggler.status, findings::AnalyzerStatus::kOk);
  EXPECT_EQ(straggler.summary,
            "straggler: rank(s) 3, late because of communication: reported in "
            "xrank-bandwidth-outlier-group");
  EXPECT_FALSE(drop_absorbed_straggler(straggler, out, job.figures));  // nothing left to drop
}

TEST(BandwidthOutlierGroup, AComputeStragglerKeepsItsOwnCard) {
  Job job = tp_job(400);
  add_world_with_late_rank(job, 3, /*compute_cause=*/true);
  job.analyze();
  ASSERT_TRUE(job.figures.stragglers);
  EXPECT_EQ(job.figures.stragglers->cause, LatenessCause::kCompute);
  const findings::AnalyzerOutcome out = job.outcome();
  ASSERT_EQ(out.findings.size(), 1u);
  EXPECT_EQ(out.findings[0].insight.find("late arrivals"), std::string::npos);
  EXPECT_TRUE(out.products.empty());
  EXPECT_FALSE(absorbs_straggler(out, *job.figures.stragglers));
  findings::AnalyzerOutcome straggler = straggler_outcome(job.figures, job.inputs, job.context);
  EXPECT_FALSE(drop_absorbed_straggler(straggler, out, job.figures));
  EXPECT_EQ(straggler.findings.size(), 1u);
}

TEST(BandwidthOutlierGroup, ACommunicationStragglerOutsideTheSlowGroupKeepsItsOwnCard) {
  Job job = tp_job(400);
  add_world_with_late_rank(job, 5);
  job.analyze();
  ASSERT_TRUE(job.figures.stragglers);
  EXPECT_EQ(job.figures.stragglers->ranks, std::vector<std::int32_t>{5});
  EXPECT_EQ(job.figures.stragglers->cause, LatenessCause::kCommunication);
  const findings::AnalyzerOutcome out = job.outcome();
  ASSERT_EQ(out.findings.size(), 1u);
  EXPECT_FALSE(absorbs_straggler(out, *job.figures.stragglers));
  EXPECT_TRUE(absorbed_straggler_ranks(out).empty());
}

// Rank 3's link is slow in both of its groups: the pair {2,3} ("tp", 400 µs: Q 0.50, saves
// 300 000 ns as above) and the pair {1,3} of the "dp" pairs {0,2}, {1,3}, {4,6}, {5,7} (500 µs
// against 200 µs: Q = 200 / 500 = 0.40; saves 3 × (500 000 − 200 000) × 0.5 = 450 000 ns).
// One card (the groups share rank 3) naming rank 3, in both; Q of the pair that saves more (dp);
// impact high = 750 000 / 10^7 = 7.5%, mid 5.625%, low 3.75%.
TEST(BandwidthOutlierGroup, SlowGroupsSharingARankNameTheCommonRank) {
  Job job = tp_job(400);
  job.add({"5", "dp", {0, 2}}, 200 * kUs, 1 * kMs)
      .add({"6", "dp", {1, 3}}, 500 * kUs, 1 * kMs)
      .add({"7", "dp", {4, 6}}, 200 * kUs, 1 * kMs)
      .add({"8", "dp", {5, 7}}, 200 * kUs, 1 * kMs);
  job.analyze();
  const findings::AnalyzerOutcome out = job.outcome();
  ASSERT_EQ(out.findings.size(), 1u);
  const findings::Finding& f = out.findings[0];
  EXPECT_EQ(f.title, "Group 3 runs collectives at 0.40× its siblings' bandwidth");
  EXPECT_NEAR(f.impact_high, 7.5, 1e-9);
  EXPECT_NEAR(f.impact_mid, 5.625, 1e-9);
  EXPECT_NEAR(f.impact_low, 3.75, 1e-9);
  EXPECT_EQ(f.severity, findings::Severity::kWarning);
  EXPECT_EQ(metrics_of(f).at("slow_groups"), 2);
  EXPECT_NE(f.insight.find("Process group 6 (dp, ranks 1, 3)"), std::string::npos) << f.insight;
  EXPECT_NE(f.insight.find("; process group 2 (tp, ranks 2, 3)"), std::string::npos) << f.insight;
  ASSERT_EQ(f.tables.size(), 1u);
  ASSERT_EQ(f.tables[0].rows.size(), 8u);  // the dp family first (key order), then tp
  EXPECT_EQ(f.tables[0].rows[0][0], "6");
  EXPECT_EQ(f.tables[0].rows[0][9], "0.40×");
  EXPECT_EQ(f.tables[0].rows[4][0], "2");
}

TEST(BandwidthOutlierGroup, RanksAreWrittenWithRangesFromThreeUp) {
  // Three groups of 5 ("ep"): {0-3, 8}, {4-7, 9}, {10-14}; the first at 400 µs, the others 200.
  Job job(15);
  job.add({"1", "ep", {0, 1, 2, 3, 8}}, 400 * kUs)
      .add({"2", "ep", {4, 5, 6, 7, 9}}, 200 * kUs)
      .add({"3", "ep", {10, 11, 12, 13, 14}}, 200 * kUs);
  job.analyze();
  const findings::AnalyzerOutcome out = job.outcome();
  ASSERT_EQ(out.findings.size(), 1u);
  EXPECT_EQ(out.findings[0].title,
            "Group 0-3, 8 runs collectives at 0.50× its siblings' bandwidth");
  EXPECT_EQ(out.findings[0].tables[0].rows[1][2], "4-7, 9");
}

}  // namespace
}  // namespace traceprism::multirank
