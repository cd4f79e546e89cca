// The `idle-outlier` and `step-imbalance` cross-rank items (multi-rank.md §9.2) on rank summaries
// built by hand; every expected number below is worked out from the inputs in the comments.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "multirank/rank_balance_findings.hpp"

namespace traceprism::multirank {
namespace {

constexpr std::int64_t kMs = 1'000'000;

// A rank with `steps` profiler steps of `step_ns` GPU span each, `idle_percent` of it idle.
RankSummary with_steps(double idle_percent, std::int64_t step_ns = 10 * kMs, int steps = 3) {
  RankSummary s;
  for (int k = 0; k < steps; ++k) {
    StepSummary step;
    step.step = k;
    step.totals.gpu_start_ns = k * 200 * kMs;
    step.totals.gpu_end_ns = step.totals.gpu_start_ns + step_ns;
    step.totals.idle_ns =
        static_cast<std::int64_t>(idle_percent * static_cast<double>(step_ns) / 100);
    step.totals.compute_ns = step_ns - step.totals.idle_ns;
    s.steps.push_back(step);
  }
  return s;
}

// A rank without profiler steps: only the whole-trace totals.
RankSummary without_steps(double idle_percent) {
  RankSummary s;
  s.profile.totals.gpu_start_ns = 0;
  s.profile.totals.gpu_end_ns = 50 * kMs;
  s.profile.totals.idle_ns = static_cast<std::int64_t>(idle_percent * 50 * kMs / 100);
  return s;
}

struct Job {
  std::vector<RankSummary> summaries;
  std::vector<RankInput> inputs;
  CrossRankFigures figures;  // no complete instance, no straggler unless a test sets them
  CrossRankContext context;

  explicit Job(std::vector<RankSummary> s) : summaries(std::move(s)) {
    for (std::size_t r = 0; r < summaries.size(); ++r)
      inputs.push_back({static_cast<std::int32_t>(r), &summaries[r], {}});
    context.e2e_ns = 100 * kMs;
    context.loaded_ranks = summaries.size();
    context.world_size = static_cast<std::int64_t>(summaries.size());
  }
};

std::vector<RankSummary> idle_ranks(const std::vector<double>& idle_percents) {
  std::vector<RankSummary> out;
  for (const double p : idle_percents) out.push_back(with_steps(p));
  return out;
}

std::vector<RankSummary> step_ranks(const std::vector<double>& step_ms) {
  std::vector<RankSummary> out;
  for (const double ms : step_ms)
    out.push_back(with_steps(5.0, static_cast<std::int64_t>(ms * static_cast<double>(kMs))));
  return out;
}

std::map<std::int32_t, std::int32_t> two_nodes_of_four() {
  std::map<std::int32_t, std::int32_t> nodes;
  for (std::int32_t r = 0; r < 8; ++r) nodes[r] = r / 4;
  return nodes;
}

// Rank 3 idles 20%; the others 4.5–5.5%. Sorted: 4.5 4.75 5 5 5 5.25 5.5 20 → median 5.
// Deviations 0.5 0.25 0 0 0 0.25 0.5 15 → MAD 0.25; 1.4826 × 0.25 < the 1 pp floor, so
// z(rank 3) = (20 − 5) / 1 = 15 and its excess is 15 pp.
const std::vector<double> kOneIdleRank = {4.5, 5.0, 5.5, 20.0, 4.75, 5.25, 5.0, 5.0};

TEST(IdleOutlier, OneRankThatIdlesMoreGetsACard) {
  Job job(idle_ranks(kOneIdleRank));
  const findings::AnalyzerOutcome out =
      idle_outlier_outcome(job.inputs, job.figures, {}, job.context);
  EXPECT_EQ(out.name, "xrank-idle-outlier");
  EXPECT_EQ(out.plugin, "host");
  EXPECT_EQ(out.status, findings::AnalyzerStatus::kOk);
  ASSERT_EQ(out.findings.size(), 1u);
  const findings::Finding& f = out.findings[0];
  EXPECT_EQ(f.analyzer, "xrank-idle-outlier");
  EXPECT_EQ(f.plugin, "host");
  EXPECT_EQ(f.key, "idle-outlier");
  EXPECT_EQ(f.category, "multi_rank");
  EXPECT_EQ(f.tier, findings::Tier::kSystem);
  EXPECT_EQ(f.impact_kind, findings::ImpactKind::kNotQuantifiable);
  EXPECT_EQ(f.impact_mid, 0);
  EXPECT_NEAR(f.share_percent, 15.0, 1e-9);
  EXPECT_EQ(f.severity, findings::Severity::kCritical);  // excess ≥ 10 pp
  EXPECT_EQ(f.title, "Rank 3 idles 15.0 pp more than its peers");
  EXPECT_NE(f.insight.find("rank 3 20.0% against 5.0% on its peers (+15.0 pp, robust z 15.0)"),
            std::string::npos)
      << f.insight;
  EXPECT_NE(f.action.find("DataLoader workers, pinned memory"), std::string::npos);
  ASSERT_EQ(f.tables.size(), 1u);
  const findings::DataTable& t = f.tables[0];
  // The outlier, then the five idlest others.
  ASSERT_EQ(t.rows.size(), 6u);
  EXPECT_EQ(t.rows[0][0], "3");
  EXPECT_EQ(t.rows[0][3], "20.00");  // idle %
  EXPECT_EQ(t.rows[0][4], "5.00");   // peer median
  EXPECT_EQ(t.rows[0][5], "15.00");  // excess
  EXPECT_EQ(t.rows[0][7], "outlier");
  EXPECT_EQ(t.rows[1][0], "2");  // 5.5%, the idlest of the others
  EXPECT_EQ(t.rows[1][7], "");
}

TEST(IdleOutlier, AHostCausedStragglerAbsorbsItsIdleOutlier) {
  Job job(idle_ranks(kOneIdleRank));
  job.figures.stragglers = Stragglers{{3}, LatenessCause::kHost, ComputeHint::kNone, 1, 2, 3};
  const findings::AnalyzerOutcome out =
      idle_outlier_outcome(job.inputs, job.figures, {}, job.context);
  EXPECT_EQ(out.status, findings::AnalyzerStatus::kOk);
  EXPECT_TRUE(out.findings.empty());
  EXPECT_NE(out.summary.find("3"), std::string::npos) << out.summary;

  // A straggler with another cause does not: the idle outlier stays its own card.
  job.figures.stragglers->cause = LatenessCause::kCompute;
  EXPECT_EQ(idle_outlier_outcome(job.inputs, job.figures, {}, job.context).findings.size(), 1u);
}

TEST(IdleOutlier, OnlyTheRanksNotAbsorbedAreReported) {
  // Ranks 3 and 6 at 20%: sorted 4.5 4.75 5 5 5.25 5.5 20 20 → median 5.125, MAD 0.375
  // (deviations 0.625 0.375 0.125 0.125 0.125 0.375 14.875 14.875), scale 1 pp: both z 14.875.
  Job job(idle_ranks({4.5, 5.0, 5.5, 20.0, 4.75, 5.25, 20.0, 5.0}));
  job.figures.stragglers = Stragglers{{3}, LatenessCause::kHost, ComputeHint::kNone, 1, 2, 3};
  const findings::AnalyzerOutcome out =
      idle_outlier_outcome(job.inputs, job.figures, {}, job.context);
  ASSERT_EQ(out.findings.size(), 1u);
  EXPECT_EQ(out.findings[0].title, "Rank 6 idles 14.9 pp more than its peers");
  EXPECT_NEAR(out.findings[0].share_percent, 14.875, 1e-9);
}

TEST(IdleOutlier, EqualRanksGetNoCard) {
  Job job(idle_ranks(std::vector<double>(8, 7.0)));
  const findings::AnalyzerOutcome out =
      idle_outlier_outcome(job.inputs, job.figures, two_nodes_of_four(), job.context);
  EXPECT_EQ(out.status, findings::AnalyzerStatus::kOk);
  EXPECT_TRUE(out.findings.empty());
}

TEST(IdleOutlier, BothThresholdsMustHold) {
  // Excess 4 pp (< 5) with z = 4 / 1 = 4: no card.
  Job small(idle_ranks({5, 5, 5, 9, 5, 5, 5, 5}));
  EXPECT_TRUE(
      idle_outlier_outcome(small.inputs, small.figures, {}, small.context).findings.empty());
  // Excess 10 pp, but wide spread: sorted 0 2 4 6 10 12 14 16 → median 8, deviations 8 6 4 2 2
  // 4 6 8 → MAD 5, scale 7.413; the rank at 16 (excess 8) has z 1.08: no card.
  Job spread(idle_ranks({0, 2, 4, 6, 10, 12, 14, 16}));
  EXPECT_TRUE(
      idle_outlier_outcome(spread.inputs, spread.figures, {}, spread.context).findings.empty());
}

TEST(IdleOutlier, FewerThanFourRanksNeverFire) {
  Job job(idle_ranks({5.0, 5.0, 40.0}));
  const findings::AnalyzerOutcome out =
      idle_outlier_outcome(job.inputs, job.figures, {}, job.context);
  EXPECT_EQ(out.status, findings::AnalyzerStatus::kOk);
  EXPECT_TRUE(out.findings.empty());
}

TEST(IdleOutlier, ANodeWhoseRanksAllIdleMore) {
  // Node 1 (ranks 4–7) at 20 21 19 20; node 0 at 5 5.5 4.5 5. Against all 8 ranks the median
  // is (5.5 + 19) / 2 = 12.25 and the MAD 7.5 (scale 11.12), so no single rank passes. Against
  // node 0's ranks (median 5, MAD 0.25 → scale 1 pp) all four pass; the node's median idle is
  // 20, 15 pp above its peers.
  Job job(idle_ranks({5.0, 5.5, 4.5, 5.0, 20.0, 21.0, 19.0, 20.0}));
  const findings::AnalyzerOutcome out =
      idle_outlier_outcome(job.inputs, job.figures, two_nodes_of_four(), job.context);
  ASSERT_EQ(out.findings.size(), 1u);
  const findings::Finding& f = out.findings[0];
  EXPECT_EQ(f.title, "Node 1 (ranks 4, 5, 6 and 7) idles 15.0 pp more than its peers");
  EXPECT_NEAR(f.share_percent, 15.0, 1e-9);
  const findings::DataTable& t = f.tables[0];
  ASSERT_GE(t.rows.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(t.rows[i][1], "1") << i;
    EXPECT_EQ(t.rows[i][4], "5.00") << i;  // the other node's median
    EXPECT_EQ(t.rows[i][7], "node 1") << i;
  }
  // Without the node map the same ranks are not outliers against all eight.
  EXPECT_TRUE(idle_outlier_outcome(job.inputs, job.figures, {}, job.context).findings.empty());
}

TEST(IdleOutlier, ThreeOfFourRanksMakeANodeTwoDoNot) {
  // 3 of 4 (75%) at 20%: the node.
  Job three(idle_ranks({4.5, 5.0, 5.0, 5.5, 20.0, 20.0, 20.0, 5.0}));
  const findings::AnalyzerOutcome node =
      idle_outlier_outcome(three.inputs, three.figures, two_nodes_of_four(), three.context);
  ASSERT_EQ(node.findings.size(), 1u);
  // Node 1's idle: median of 5 20 20 20 = 20, 15 pp above node 0's median 5.
  EXPECT_EQ(node.findings[0].title,
            "Node 1 (ranks 4, 5, 6 and 7) idles 15.0 pp more than its peers");

  // 2 of 4: not the node, but the two ranks against all eight (sorted 4.5 5 5 5 5 5.5 20 20 →
  // median 5, MAD 0.25 → scale 1 pp, z 15 each).
  Job two(idle_ranks({4.5, 5.0, 5.0, 5.5, 20.0, 20.0, 5.0, 5.0}));
  const findings::AnalyzerOutcome ranks =
      idle_outlier_outcome(two.inputs, two.figures, two_nodes_of_four(), two.context);
  ASSERT_EQ(ranks.findings.size(), 1u);
  EXPECT_EQ(ranks.findings[0].title, "Ranks 4 and 5 idle up to 15.0 pp more than their peers");
}

TEST(IdleOutlier, ARankElsewhereIsMeasuredWithoutTheIdleNode) {
  // Node 1 as above; rank 1 on node 0 idles 25%. Node 1 against node 0 (5 25 4.5 5 → median 5,
  // deviations 0 20 0.5 0 → MAD 0.25, scale 1 pp): 20 21 19 20 all pass, 4 of 4; the node's
  // median 20 is 15 pp above. Rank 1 against the ranks of no reported node (node 0 alone, 4
  // ranks): the same median 5 and scale 1 → excess 20 pp, z 20. Against all eight (median 19.5)
  // it would not pass.
  Job job(idle_ranks({5.0, 25.0, 4.5, 5.0, 20.0, 21.0, 19.0, 20.0}));
  const findings::AnalyzerOutcome out =
      idle_outlier_outcome(job.inputs, job.figures, two_nodes_of_four(), job.context);
  ASSERT_EQ(out.findings.size(), 1u);
  EXPECT_EQ(out.findings[0].title, "Node 1 and rank 1 idle up to 20.0 pp more than their peers");
  EXPECT_NEAR(out.findings[0].share_percent, 20.0, 1e-9);
}

TEST(IdleOutlier, WithoutStepsTheWholeTraceCounts) {
  // 5 5 5 25: median 5, MAD 0, scale 1 pp → z(rank 3) = 20, excess 20 pp.
  Job job({without_steps(5), without_steps(5), without_steps(5), without_steps(25)});
  const findings::AnalyzerOutcome out =
      idle_outlier_outcome(job.inputs, job.figures, {}, job.context);
  ASSERT_EQ(out.findings.size(), 1u);
  EXPECT_EQ(out.findings[0].title, "Rank 3 idles 20.0 pp more than its peers");
}

TEST(IdleOutlier, BelowHalfTheJobIsSkippedUnlessPartialIsAllowed) {
  Job job(idle_ranks(kOneIdleRank));
  job.context.world_size = 32;  // 8 of 32 loaded
  const findings::AnalyzerOutcome out =
      idle_outlier_outcome(job.inputs, job.figures, {}, job.context);
  EXPECT_EQ(out.status, findings::AnalyzerStatus::kSkipped);
  EXPECT_EQ(out.error,
            "8 of 32 ranks analysed, below half the job; --allow-partial reports cross-rank items "
            "anyway.");
  EXPECT_TRUE(out.findings.empty());
  job.context.allow_partial = true;
  EXPECT_EQ(idle_outlier_outcome(job.inputs, job.figures, {}, job.context).findings.size(), 1u);
  // Exactly half is covered.
  job.context.allow_partial = false;
  job.context.world_size = 16;
  EXPECT_EQ(idle_outlier_outcome(job.inputs, job.figures, {}, job.context).status,
            findings::AnalyzerStatus::kOk);
}

// Rank 6 steps 130 ms; the others 99–101. Sorted 99 99.5 100 100 100 100.5 101 130 → median
// 100 ms; deviations 1 0.5 0 0 0 0.5 1 30 → MAD 0.5 ms, 1.4826 × 0.5 = 0.74 ms < the floor of
// 1 ms (1% of the median) → z(rank 6) = 30; 130 / 100 = 1.30 → 30% slower.
const std::vector<double> kOneSlowRank = {99, 100, 101, 100, 100, 99.5, 130, 100.5};

TEST(StepImbalance, ASlowRankWithoutCollectivesGetsACard) {
  Job job(step_ranks(kOneSlowRank));
  const findings::AnalyzerOutcome out =
      step_imbalance_outcome(job.inputs, job.figures, job.context);
  EXPECT_EQ(out.name, "xrank-step-imbalance");
  EXPECT_EQ(out.plugin, "host");
  ASSERT_EQ(out.findings.size(), 1u);
  const findings::Finding& f = out.findings[0];
  EXPECT_EQ(f.analyzer, "xrank-step-imbalance");
  EXPECT_EQ(f.key, "step-imbalance");
  EXPECT_EQ(f.tier, findings::Tier::kSystem);
  EXPECT_EQ(f.impact_kind, findings::ImpactKind::kNotQuantifiable);
  EXPECT_EQ(f.title, "Rank 6 steps 30% slower than the median (ranks do not synchronise)");
  EXPECT_NEAR(f.share_percent, 30.0, 1e-9);
  EXPECT_EQ(f.severity, findings::Severity::kCritical);  // ≥ 25% slower
  EXPECT_NE(f.insight.find("rank 6 130.000 ms (1.30×, robust z 30.0)"), std::string::npos)
      << f.insight;
  EXPECT_NE(f.insight.find("median of 100.000 ms over 8 ranks"), std::string::npos) << f.insight;
  EXPECT_NE(f.action.find("sharding, MoE capacity"), std::string::npos);
  EXPECT_NE(f.action.find("clocks, thermals"), std::string::npos);
  const findings::DataTable& t = f.tables[0];
  ASSERT_EQ(t.rows.size(), 6u);  // the slow rank, then the five slowest others
  EXPECT_EQ(t.rows[0][0], "6");
  EXPECT_EQ(t.rows[0][2], "130.000");
  EXPECT_EQ(t.rows[0][3], "1.300");
  EXPECT_EQ(t.rows[0][7], "slow");
  EXPECT_EQ(t.rows[1][0], "2");  // 101 ms
}

TEST(StepImbalance, RanksThatMeetAtACompleteCollectiveDoNotFire) {
  Job job(step_ranks(kOneSlowRank));
  job.figures.instances.push_back(InstanceFigures{});
  const findings::AnalyzerOutcome out =
      step_imbalance_outcome(job.inputs, job.figures, job.context);
  EXPECT_EQ(out.status, findings::AnalyzerStatus::kOk);
  EXPECT_TRUE(out.findings.empty());
}

TEST(StepImbalance, BothThresholdsMustHold) {
  // 108 ms against 100: z = 8 / 1 = 8 but only 1.08×.
  Job near(step_ranks({100, 100, 100, 108, 100, 100, 100, 100}));
  EXPECT_TRUE(step_imbalance_outcome(near.inputs, near.figures, near.context).findings.empty());
  // 70 … 130: median 100, deviations 30 20 10 0 0 10 20 30 → MAD 15, scale 22.24 ms; the rank at
  // 130 is 1.30× but z = 1.35.
  Job wide(step_ranks({70, 80, 90, 100, 100, 110, 120, 130}));
  EXPECT_TRUE(step_imbalance_outcome(wide.inputs, wide.figures, wide.context).findings.empty());
  // With equal peers the MAD is 0 and the floor (1 ms) is the scale: 120 ms → z = 20, 1.20×.
  Job floor(step_ranks({100, 100, 100, 100, 120}));
  const findings::AnalyzerOutcome out =
      step_imbalance_outcome(floor.inputs, floor.figures, floor.context);
  ASSERT_EQ(out.findings.size(), 1u);
  EXPECT_EQ(out.findings[0].title,
            "Rank 4 steps 20% slower than the median (ranks do not synchronise)");
  EXPECT_EQ(out.findings[0].severity, findings::Severity::kWarning);
}

TEST(StepImbalance, FewerThanFourRanksOrNoStepsNeverFire) {
  Job three(step_ranks({100, 100, 150}));
  EXPECT_TRUE(step_imbalance_outcome(three.inputs, three.figures, three.context).findings.empty());
  Job stepless({without_steps(5), without_steps(5), without_steps(5), without_steps(5)});
  EXPECT_TRUE(
      step_imbalance_outcome(stepless.inputs, stepless.figures, stepless.context).findings.empty());
}

TEST(StepImbalance, BelowHalfTheJobIsSkipped) {
  Job job(step_ranks(kOneSlowRank));
  job.context.world_size = 17;  // 8 of 17
  const findings::AnalyzerOutcome out =
      step_imbalance_outcome(job.inputs, job.figures, job.context);
  EXPECT_EQ(out.status, findings::AnalyzerStatus::kSkipped);
  EXPECT_EQ(out.error,
            "8 of 17 ranks analysed, below half the job; --allow-partial reports cross-rank items "
            "anyway.");
  EXPECT_TRUE(out.findings.empty());
}

}  // namespace
}  // namespace traceprism::multirank
