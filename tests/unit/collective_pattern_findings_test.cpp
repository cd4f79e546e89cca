// The cross-rank items about the shape of the collectives (multi-rank.md §9.2
// `small-collectives`, `alltoall-imbalance`, `pipeline-wait`) on hand-made jobs: each pattern is
// injected into the instances, every expected figure is worked out by hand in the comments, and
// the chain in between is the real one (match_collectives, cross_rank_figures, the analyzer).
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "multirank/collective_matching.hpp"
#include "multirank/collective_pattern_findings.hpp"
#include "multirank/cross_rank_figures.hpp"

namespace traceprism::multirank {
namespace {

using model::CollectiveDtype;
using model::CollectiveInstance;
using model::CollectiveKind;

constexpr std::int64_t kUs = 1'000;

struct Group {
  std::string name, ranks;
  std::int64_t size;
};

CollectiveInstance instance(CollectiveKind kind, const Group& g, std::int64_t seq,
                            std::int64_t start_us, std::int64_t duration_us,
                            std::int64_t exposed_us) {
  CollectiveInstance c;
  c.kind = kind;
  c.pg_name = g.name;
  c.pg_ranks = g.ranks;
  c.group_size = g.size;
  c.seq = seq;
  c.step = 1;
  c.start_ns = start_us * kUs;
  c.duration_ns = duration_us * kUs;
  c.exposed_ns = exposed_us * kUs;
  return c;
}

CollectiveInstance allreduce(const Group& g, std::int64_t seq, std::int64_t floats,
                             std::int64_t start_us, std::int64_t duration_us,
                             std::int64_t exposed_us) {
  CollectiveInstance c =
      instance(CollectiveKind::kAllReduce, g, seq, start_us, duration_us, exposed_us);
  c.dtype = CollectiveDtype::kFloat;
  c.in_nelems = c.out_nelems = floats;
  return c;
}

struct Job {
  std::vector<RankSummary> summaries;
  std::vector<std::vector<CollectiveInstance>> instances;
  std::map<std::int32_t, std::int64_t> offsets;
  std::vector<RankInput> inputs;
  MatchResult matches;
  CrossRankFigures figures;
  CrossRankContext context;

  explicit Job(std::size_t ranks, std::size_t steps = 1) : summaries(ranks), instances(ranks) {
    for (RankSummary& s : summaries)
      for (std::size_t i = 0; i < steps; ++i) {
        StepSummary step;
        step.step = static_cast<std::int64_t>(i + 1);
        s.steps.push_back(step);
      }
    context.loaded_ranks = ranks;
    context.world_size = static_cast<std::int64_t>(ranks);
  }

  void analyze() {
    std::vector<RankCollectives> for_matching;
    inputs.clear();
    for (std::size_t r = 0; r < instances.size(); ++r) {
      const auto rank = static_cast<std::int32_t>(r);
      inputs.push_back({rank, &summaries[r], instances[r]});
      for_matching.push_back({rank, instances[r]});
    }
    MatchOptions match_options;
    match_options.clock_offset_ns = offsets;
    matches = match_collectives(for_matching, match_options);
    CrossRankOptions options;
    options.clock_offset_ns = offsets;
    figures = cross_rank_figures(inputs, matches, options);
  }
};

// ---- small-collectives ----------------------------------------------------------------------

const Group kPair{"0", "[0, 1]", 2};

// Two ranks, `count` all-reduces of 1000 floats (4000 B < 1 MiB) spread over the ranks' steps,
// each 100 µs long on both ranks, starting together every millisecond: rank 0 fully exposed,
// rank 1 half. Equal starts: the last arriver is rank 0 (the lowest), so x_c = rank 1's 500‰
// and each collective's exposed transfer is T × x_c = 100 × 0.5 = 50 µs. One 8 MB all-reduce
// (2 000 000 floats) per rank, fully exposed for 5 ms, is not small and must not count.
Job small_job(int count, std::size_t steps, std::int64_t floats = 1000) {
  Job job(2, steps);
  for (int i = 0; i < count; ++i) {
    const std::int64_t start = 1000 * i;
    for (std::size_t r = 0; r < 2; ++r) {
      CollectiveInstance c = allreduce(kPair, i + 1, floats, start, 100, r == 0 ? 100 : 50);
      c.step = static_cast<std::int32_t>(1 + static_cast<std::size_t>(i) * steps /
                                                 static_cast<std::size_t>(count));
      job.instances[r].push_back(c);
    }
  }
  for (std::size_t r = 0; r < 2; ++r)
    job.instances[r].push_back(allreduce(kPair, count + 1, 2'000'000, 100'000, 5'000, 5'000));
  job.context.e2e_ns = 25'000 * kUs;
  job.analyze();
  return job;
}

TEST(SmallCollectives, TwentySmallAllReducesPerStepFire) {
  const Job job = small_job(20, 1);
  ASSERT_EQ(job.figures.instances.size(), 21u);
  const findings::AnalyzerOutcome out =
      small_collectives_outcome(job.inputs, job.matches, job.figures, job.context);
  EXPECT_EQ(out.name, "xrank-small-collectives");
  EXPECT_EQ(out.plugin, "host");
  EXPECT_EQ(out.status, findings::AnalyzerStatus::kOk);
  ASSERT_EQ(out.findings.size(), 1u);
  const findings::Finding& f = out.findings[0];
  // 20 per step; Σ exposed = 20 × 50 µs = 1 ms = 4% of 25 ms.
  EXPECT_EQ(f.title, "20 small allreduces per step spend 4.0% of the step in latency");
  EXPECT_EQ(f.key, "small-collectives");
  EXPECT_EQ(f.category, "multi_rank");
  EXPECT_EQ(f.tier, findings::Tier::kSystem);
  EXPECT_EQ(f.impact_kind, findings::ImpactKind::kHeuristic);
  EXPECT_DOUBLE_EQ(f.impact_low, 1.0);  // 4% × 0.25
  EXPECT_DOUBLE_EQ(f.impact_mid, 2.0);
  EXPECT_DOUBLE_EQ(f.impact_high, 3.0);
  EXPECT_DOUBLE_EQ(f.share_percent, 4.0);
  EXPECT_EQ(f.severity, findings::Severity::kWarning);  // mid 2 ≥ 2
  ASSERT_EQ(f.tables.size(), 1u);
  ASSERT_EQ(f.tables[0].rows.size(), 1u);
  EXPECT_EQ(f.tables[0].rows[0],
            (std::vector<std::string>{"allreduce", "20.0", "20", "3.9", "100.0", "1.000", "4.00"}));
  EXPECT_FALSE(f.action.empty());
  EXPECT_NE(f.action.find("bucket_cap_mb"), std::string::npos);
}

TEST(SmallCollectives, TwentyOverTwoStepsIsTenPerStepAndSilent) {
  const Job job = small_job(20, 2);  // 10 per step on each rank
  const findings::AnalyzerOutcome out =
      small_collectives_outcome(job.inputs, job.matches, job.figures, job.context);
  EXPECT_EQ(out.status, findings::AnalyzerStatus::kOk);
  EXPECT_TRUE(out.findings.empty());
  EXPECT_EQ(out.summary, "10.0 small collectives per step, 4.00% of the step exposed");
}

TEST(SmallCollectives, NineteenPerStepIsSilent) {
  const Job job = small_job(19, 1);  // 3.8% exposed, but 19 < 20 per step
  const findings::AnalyzerOutcome out =
      small_collectives_outcome(job.inputs, job.matches, job.figures, job.context);
  EXPECT_TRUE(out.findings.empty());
  EXPECT_EQ(out.summary, "19.0 small collectives per step, 3.80% of the step exposed");
}

TEST(SmallCollectives, OneMebibyteIsNotSmall) {
  const Job job = small_job(20, 1, 262'144);  // 262 144 floats = 1 048 576 B
  const findings::AnalyzerOutcome out =
      small_collectives_outcome(job.inputs, job.matches, job.figures, job.context);
  EXPECT_TRUE(out.findings.empty());
  EXPECT_EQ(out.summary, "0.0 small collectives per step, 0.00% of the step exposed");
}

TEST(SmallCollectives, BelowTwoPercentExposedIsSilent) {
  Job job = small_job(20, 1);
  job.context.e2e_ns = 100'000 * kUs;  // 1 ms of 100 ms = 1%
  const findings::AnalyzerOutcome out =
      small_collectives_outcome(job.inputs, job.matches, job.figures, job.context);
  EXPECT_TRUE(out.findings.empty());
  EXPECT_EQ(out.summary, "20.0 small collectives per step, 1.00% of the step exposed");
}

TEST(SmallCollectives, SkippedBelowHalfTheRanks) {
  Job job = small_job(20, 1);
  job.context.world_size = 5;  // 2 of 5
  const findings::AnalyzerOutcome out =
      small_collectives_outcome(job.inputs, job.matches, job.figures, job.context);
  EXPECT_EQ(out.status, findings::AnalyzerStatus::kSkipped);
  EXPECT_TRUE(out.findings.empty());
  EXPECT_FALSE(out.error.empty());
  job.context.allow_partial = true;
  EXPECT_EQ(
      small_collectives_outcome(job.inputs, job.matches, job.figures, job.context).findings.size(),
      1u);
}

// ---- alltoall-imbalance ---------------------------------------------------------------------

const Group kFour{"0", "[0, 1, 2, 3]", 4};

// Three alltoallv collectives on 4 ranks, 1 ms apart... each starts at 0, 10, 20, 40 µs on ranks
// 0..3 and ends at 1000 µs on all (durations 1000, 990, 980, 960), every member fully exposed:
// x_c = 1000‰, wall = 1000 µs. In bytes per rank:
//   #1, #2: 100, 100, 100, 500: mean 200, max 500 (rank 3), imbalance 2.5, saving 1000 × 0.6
//   #3:     100, 300, 100, 300: mean 200, max 300 (ranks 1 and 3: rank 1), imbalance 1.5,
//           saving 1000 × (1 − 2/3) = 333.33 µs
// `shift_us` moves ranks 2 and 3 (another node) on their written clock.
Job alltoall_job(bool balanced, std::int64_t shift_us = 0) {
  Job job(4);
  const std::vector<std::vector<std::int64_t>> bytes = {
      {100, 100, 100, 500}, {100, 100, 100, 500}, {100, 300, 100, 300}};
  const std::int64_t starts[] = {0, 10, 20, 40};
  for (std::size_t k = 0; k < bytes.size(); ++k)
    for (std::size_t r = 0; r < 4; ++r) {
      const std::int64_t start = 10'000 * static_cast<std::int64_t>(k) + starts[r];
      CollectiveInstance c =
          instance(CollectiveKind::kAllToAllV, kFour, static_cast<std::int64_t>(k + 1), start,
                   1000 - starts[r], 1000 - starts[r]);
      c.dtype = CollectiveDtype::kByte;
      c.in_bytes = balanced ? 200 : bytes[k][r];
      c.out_bytes = 200;
      if (r >= 2) c.start_ns += shift_us * kUs;
      job.instances[r].push_back(c);
    }
  if (shift_us != 0) job.offsets = {{2, shift_us * kUs}, {3, shift_us * kUs}};
  job.context.e2e_ns = 10'000 * kUs;
  job.analyze();
  return job;
}

void expect_alltoall_card(const findings::AnalyzerOutcome& out) {
  EXPECT_EQ(out.name, "xrank-alltoall-imbalance");
  ASSERT_EQ(out.findings.size(), 1u);
  const findings::Finding& f = out.findings[0];
  // Median of 2.5, 2.5, 1.5; rank 3 holds the largest volume twice, rank 1 once.
  EXPECT_EQ(f.title, "All-to-all volume reaches 2.50× the mean on rank 3");
  EXPECT_EQ(f.key, "alltoall-imbalance");
  EXPECT_EQ(f.impact_kind, findings::ImpactKind::kQuantified);
  // Σ saving = 600 + 600 + 333.33 = 1533.33 µs of 10 ms = 15.33%: × 0.5, 0.75, 1.
  const double saving = 100.0 * (600.0 + 600.0 + 1000.0 / 3.0) / 10'000.0;
  EXPECT_NEAR(f.impact_low, 0.5 * saving, 1e-9);
  EXPECT_NEAR(f.impact_mid, 0.75 * saving, 1e-9);
  EXPECT_NEAR(f.impact_high, saving, 1e-9);
  EXPECT_EQ(f.severity, findings::Severity::kCritical);  // mid 11.5 ≥ 10
  ASSERT_EQ(f.tables.size(), 1u);
  const findings::DataTable& t = f.tables[0];
  ASSERT_EQ(t.rows.size(), 4u);
  // Rank 3: 500, 500, 300 B (mean 433.33 B = 0.000413 MiB), ratios 2.5, 2.5, 1.5 → 2.17.
  EXPECT_EQ(t.rows[0], (std::vector<std::string>{"3", "0.000", "2.17", "2", "3"}));
  // Rank 1: ratios 0.5, 0.5, 1.5 → 0.83, largest once.
  EXPECT_EQ(t.rows[1], (std::vector<std::string>{"1", "0.000", "0.83", "1", "3"}));
  EXPECT_EQ(t.rows[2][0], "0");
  EXPECT_EQ(t.rows[2][2], "0.50");
  EXPECT_NE(f.action.find("capacity factor"), std::string::npos);
}

TEST(AlltoallImbalance, UnevenSplitsFire) {
  const Job job = alltoall_job(false);
  ASSERT_EQ(job.figures.instances.size(), 3u);
  expect_alltoall_card(
      alltoall_imbalance_outcome(job.inputs, job.matches, job.figures, job.offsets, job.context));
}

TEST(AlltoallImbalance, WallTimeIsOnTheAlignedClock) {
  // Ranks 2 and 3 write their times 5 ms ahead; with the offsets the card is unchanged.
  const Job job = alltoall_job(false, 5'000);
  ASSERT_EQ(job.figures.instances.size(), 3u);
  expect_alltoall_card(
      alltoall_imbalance_outcome(job.inputs, job.matches, job.figures, job.offsets, job.context));
  // Without them the wall spans the 5 ms shift: 6000 µs per collective, a larger impact.
  const findings::AnalyzerOutcome raw =
      alltoall_imbalance_outcome(job.inputs, job.matches, job.figures, {}, job.context);
  ASSERT_EQ(raw.findings.size(), 1u);
  EXPECT_GT(raw.findings[0].impact_high, 6 * 15.0);
}

TEST(AlltoallImbalance, BalancedSplitsAreSilent) {
  const Job job = alltoall_job(true);
  const findings::AnalyzerOutcome out =
      alltoall_imbalance_outcome(job.inputs, job.matches, job.figures, job.offsets, job.context);
  EXPECT_TRUE(out.findings.empty());
  EXPECT_EQ(out.summary, "all-to-all imbalance 1.00x, 30.00% of the step exposed");
}

TEST(AlltoallImbalance, BelowOnePercentExposedIsSilent) {
  Job job = alltoall_job(false);
  job.context.e2e_ns = 400'000 * kUs;  // 3 ms exposed of 400 ms = 0.75%
  const findings::AnalyzerOutcome out =
      alltoall_imbalance_outcome(job.inputs, job.matches, job.figures, job.offsets, job.context);
  EXPECT_TRUE(out.findings.empty());
  EXPECT_EQ(out.summary, "all-to-all imbalance 2.50x, 0.75% of the step exposed");
}

TEST(AlltoallImbalance, SkippedBelowHalfTheRanks) {
  Job job = alltoall_job(false);
  job.context.world_size = 9;  // 4 of 9
  const findings::AnalyzerOutcome out =
      alltoall_imbalance_outcome(job.inputs, job.matches, job.figures, job.offsets, job.context);
  EXPECT_EQ(out.status, findings::AnalyzerStatus::kSkipped);
  EXPECT_TRUE(out.findings.empty());
}

// ---- pipeline-wait --------------------------------------------------------------------------

const Group kTp0{"tp0", "[0, 1]", 2};
const Group kTp1{"tp1", "[2, 3]", 2};
const Group kPp0{"pp0", "[0, 2]", 2};
const Group kPp1{"pp1", "[1, 3]", 2};

CollectiveInstance p2p(CollectiveKind kind, const Group& g, std::int32_t peer,
                       std::int64_t start_us, std::int64_t duration_us, std::int64_t exposed_us) {
  CollectiveInstance c = instance(kind, g, -1, start_us, duration_us, exposed_us);
  c.p2p = true;
  c.peer_rank = peer;
  c.dtype = CollectiveDtype::kBFloat16;
  c.in_nelems = c.out_nelems = 1024;
  return c;
}

// Two stages of two ranks: stage {0, 1} sends to stage {2, 3} (0 → 2 in pp0, 1 → 3 in pp1), and
// rank 2 sends one gradient back to rank 0. Each stage has a tensor-parallel all-reduce (tp0,
// tp1); a world all-reduce spans both stages and must not merge them. Times in µs:
//   rank 2 receives from 0: recv 100 (500 long, 1000‰ exposed), send 400: wait 300, exposed 300
//                           recv 2000 (300 long, 500‰),      send 2100: wait 100, exposed 50
//   rank 3 receives from 1: recv 100 (500, 1000‰),           send 350:  wait 250, exposed 250
//                           recv 2000 (300, 1000‰),          send 1900: late receiver, 0
//   rank 0 receives from 2: recv 5000 (100, 1000‰),          send 4900: 0
// Stage {2, 3}: exposed waits 350 and 250, mean 300 µs per rank; waits 400, 250: mean 325.
// `late` = false: every send starts with its receive (no wait).
Job pipeline_job(bool late, bool stage_groups = true, std::int64_t shift_us = 0) {
  Job job(4);
  const std::int64_t d = late ? 1 : 0;
  auto& r0 = job.instances[0];
  auto& r1 = job.instances[1];
  auto& r2 = job.instances[2];
  auto& r3 = job.instances[3];
  r0.push_back(p2p(CollectiveKind::kSend, kPp0, 2, 100 + d * 300, 200, 200));
  r0.push_back(p2p(CollectiveKind::kSend, kPp0, 2, 2000 + d * 100, 200, 200));
  r2.push_back(p2p(CollectiveKind::kRecv, kPp0, 0, 100, 500, 500));
  r2.push_back(p2p(CollectiveKind::kRecv, kPp0, 0, 2000, 300, 150));
  r1.push_back(p2p(CollectiveKind::kSend, kPp1, 3, 100 + d * 250, 200, 200));
  r1.push_back(p2p(CollectiveKind::kSend, kPp1, 3, 1900, 200, 200));
  r3.push_back(p2p(CollectiveKind::kRecv, kPp1, 1, 100, 500, 500));
  r3.push_back(p2p(CollectiveKind::kRecv, kPp1, 1, 2000, 300, 300));
  r2.push_back(p2p(CollectiveKind::kSend, kPp0, 0, 4900, 100, 100));
  r0.push_back(p2p(CollectiveKind::kRecv, kPp0, 2, 5000, 100, 100));
  if (stage_groups) {
    for (std::size_t r = 0; r < 2; ++r)
      job.instances[r].push_back(allreduce(kTp0, 1, 1000, 3000, 50, 50));
    for (std::size_t r = 2; r < 4; ++r)
      job.instances[r].push_back(allreduce(kTp1, 1, 1000, 3000, 50, 50));
  }
  for (std::size_t r = 0; r < 4; ++r)
    job.instances[r].push_back(allreduce(kFour, 1, 1000, 8000, 50, 50));
  for (std::size_t r = 2; r < 4; ++r)
    for (CollectiveInstance& c : job.instances[r]) c.start_ns += shift_us * kUs;
  if (shift_us != 0) job.offsets = {{2, shift_us * kUs}, {3, shift_us * kUs}};
  job.context.e2e_ns = 5'000 * kUs;
  job.analyze();
  return job;
}

void expect_stage_card(const findings::AnalyzerOutcome& out) {
  EXPECT_EQ(out.name, "xrank-pipeline-wait");
  ASSERT_EQ(out.findings.size(), 1u);
  const findings::Finding& f = out.findings[0];
  // 300 µs of 5 ms = 6%.
  EXPECT_EQ(f.title, "Stage of ranks 2 and 3 waits 6.0% of the step for its upstream stage");
  EXPECT_EQ(f.key, "pipeline-wait");
  EXPECT_EQ(f.impact_kind, findings::ImpactKind::kQuantified);
  EXPECT_DOUBLE_EQ(f.impact_low, 3.0);
  EXPECT_DOUBLE_EQ(f.impact_mid, 4.5);
  EXPECT_DOUBLE_EQ(f.impact_high, 6.0);
  EXPECT_EQ(f.severity, findings::Severity::kWarning);
  ASSERT_EQ(f.tables.size(), 1u);
  ASSERT_EQ(f.tables[0].rows.size(), 2u);
  EXPECT_EQ(f.tables[0].rows[0],
            (std::vector<std::string>{"2 and 3", "0 and 1", "4", "3", "0.325", "0.300", "6.00"}));
  // Stage {0, 1}: only rank 0 receives, with no wait.
  EXPECT_EQ(f.tables[0].rows[1],
            (std::vector<std::string>{"0", "—", "1", "0", "0.000", "0.000", "0.00"}));
  EXPECT_NE(f.action.find("micro-batches"), std::string::npos);
}

TEST(PipelineWait, LateSendersIntoAStageFire) {
  const Job job = pipeline_job(true);
  expect_stage_card(pipeline_wait_outcome(job.inputs, job.matches, job.offsets, job.context));
}

TEST(PipelineWait, WaitsAreOnTheAlignedClock) {
  const Job job = pipeline_job(true, true, 7'000);
  expect_stage_card(pipeline_wait_outcome(job.inputs, job.matches, job.offsets, job.context));
}

TEST(PipelineWait, WithoutStageGroupsEachRankIsItsOwnStage) {
  // Only the world all-reduce, which holds send/receive pairs: rank 2 alone, 350 µs = 7%.
  const Job job = pipeline_job(true, false);
  const findings::AnalyzerOutcome out =
      pipeline_wait_outcome(job.inputs, job.matches, job.offsets, job.context);
  ASSERT_EQ(out.findings.size(), 1u);
  EXPECT_EQ(out.findings[0].title, "Stage of rank 2 waits 7.0% of the step for its upstream stage");
  EXPECT_DOUBLE_EQ(out.findings[0].impact_high, 7.0);
}

TEST(PipelineWait, SendersOnTimeAreSilent) {
  const Job job = pipeline_job(false);
  const findings::AnalyzerOutcome out =
      pipeline_wait_outcome(job.inputs, job.matches, job.offsets, job.context);
  EXPECT_EQ(out.status, findings::AnalyzerStatus::kOk);
  EXPECT_TRUE(out.findings.empty());
  EXPECT_EQ(out.summary, "pipeline wait 0.00% of the step at most");
}

TEST(PipelineWait, BelowThreePercentIsSilent) {
  Job job = pipeline_job(true);
  job.context.e2e_ns = 20'000 * kUs;  // 300 µs of 20 ms = 1.5%
  const findings::AnalyzerOutcome out =
      pipeline_wait_outcome(job.inputs, job.matches, job.offsets, job.context);
  EXPECT_TRUE(out.findings.empty());
  EXPECT_EQ(out.summary, "pipeline wait 1.50% of the step at most");
}

TEST(PipelineWait, SkippedBelowHalfTheRanks) {
  Job job = pipeline_job(true);
  job.context.world_size = 9;
  const findings::AnalyzerOutcome out =
      pipeline_wait_outcome(job.inputs, job.matches, job.offsets, job.context);
  EXPECT_EQ(out.status, findings::AnalyzerStatus::kSkipped);
  EXPECT_TRUE(out.findings.empty());
}

}  // namespace
}  // namespace traceprism::multirank
