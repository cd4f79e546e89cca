// Cross-rank figures on synthetic jobs with the problem injected (multi-rank.md §12's
// end-to-end table, the rows the cross-rank stages can answer so far): each injection yields
// exactly its straggler, with its cause; a clean job none. The chain is the real one: synth
// --ranks, the reader, the rank summary, matching, the §7 figures.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "ingest/trace_reader.hpp"
#include "model/launch_links.hpp"
#include "multirank/collective_matching.hpp"
#include "multirank/cross_rank_figures.hpp"
#include "multirank/rank_summary_builder.hpp"
#include "support/temp_dir.hpp"
#include "synth/multi_rank.hpp"

namespace fs = std::filesystem;
namespace json = boost::json;
namespace model = traceprism::model;
namespace multirank = traceprism::multirank;
namespace synth = traceprism::synth;

namespace {

struct Job {
  std::vector<multirank::RankSummary> summaries;
  std::vector<std::vector<model::CollectiveInstance>> instances;
  std::vector<multirank::RankInput> inputs;
  multirank::MatchResult matches;
  multirank::CrossRankFigures figures;
};

// The spec's job: --ranks 8 --layers 4 --steps 3 --seed 7, plus the injection.
synth::MultiRankOptions eight_ranks() {
  synth::MultiRankOptions o;
  o.ranks = 8;
  return o;
}

Job analyze_job(const synth::MultiRankOptions& o, const fs::path& dir) {
  synth::SynthOptions base;
  base.layers = 4;
  base.steps = 3;
  base.seed = 7;
  synth::write_multi_rank_traces(base, o, dir);
  Job job;
  std::vector<std::int32_t> ranks;
  for (int r = 0; r < o.ranks; ++r) {
    if (o.missing.count(r)) continue;
    const auto trace = traceprism::ingest::read_trace((dir / synth::rank_file_name(r)).string());
    job.summaries.push_back(
        multirank::summarize_rank(trace.index, model::LaunchLinks::build(trace.index)));
    ranks.push_back(r);
  }
  for (const multirank::RankSummary& s : job.summaries) {
    std::vector<model::CollectiveInstance> list;
    for (const multirank::CollectiveRow& row : s.collectives) list.push_back(row.instance);
    job.instances.push_back(std::move(list));
  }
  std::vector<multirank::RankCollectives> for_matching;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    job.inputs.push_back({ranks[i], &job.summaries[i], job.instances[i]});
    for_matching.push_back({ranks[i], job.instances[i]});
  }
  job.matches = multirank::match_collectives(for_matching);
  job.figures = multirank::cross_rank_figures(job.inputs, job.matches);
  return job;
}

double max_last_share(const Job& job) {
  double top = 0;
  for (const multirank::RankFigures& r : job.figures.ranks) top = std::max(top, r.last_share);
  return top;
}

TEST(CrossRankFigures, ACleanJobHasNoStraggler) {
  traceprism::testing::TempDir dir;
  synth::MultiRankOptions o = eight_ranks();
  o.skew_ns = 20'000;
  const Job job = analyze_job(o, dir.path());
  // 3 steps x (2 layer buckets + the embedding bucket), every one matched on all 8 ranks.
  ASSERT_EQ(job.matches.collectives.size(), 9u);
  EXPECT_TRUE(job.matches.unmatched.empty());
  ASSERT_EQ(job.matches.groups.size(), 1u);
  EXPECT_EQ(job.matches.groups[0].tier, model::MatchTier::kSeq);
  EXPECT_EQ(job.figures.instances.size(), 9u);
  EXPECT_EQ(job.figures.partial_instances, 0u);
  EXPECT_FALSE(job.figures.stragglers.has_value());
  EXPECT_LE(max_last_share(job), 0.5);
}

TEST(CrossRankFigures, ASlowerGpuIsTheOneStragglerWithAComputeCause) {
  traceprism::testing::TempDir dir;
  synth::MultiRankOptions o = eight_ranks();
  o.skew_ns = 20'000;
  o.straggler_permille[5] = 1250;
  const Job job = analyze_job(o, dir.path());
  ASSERT_TRUE(job.figures.stragglers.has_value());
  EXPECT_EQ(job.figures.stragglers->ranks, std::vector<std::int32_t>{5});
  EXPECT_EQ(job.figures.stragglers->cause, multirank::LatenessCause::kCompute);
  EXPECT_EQ(job.figures.stragglers->hint, multirank::ComputeHint::kSlowerGpu);
  const multirank::RankFigures& five = job.figures.ranks[5];
  EXPECT_EQ(five.rank, 5);
  EXPECT_GE(five.last_share, 0.9);
  EXPECT_GT(job.figures.stragglers->impact_mid_ns, 0);
  EXPECT_LE(job.figures.stragglers->impact_low_ns, job.figures.stragglers->impact_mid_ns);
  EXPECT_LE(job.figures.stragglers->impact_mid_ns, job.figures.stragglers->impact_high_ns);
  // Everyone else waits for it: rank 5 waits least.
  for (const multirank::RankFigures& r : job.figures.ranks)
    if (r.rank != 5) {
      EXPECT_GT(r.wait_ns, five.wait_ns) << "rank " << r.rank;
    }
}

TEST(CrossRankFigures, AStalledHostIsAStragglerWithAHostCause) {
  traceprism::testing::TempDir dir;
  synth::MultiRankOptions o = eight_ranks();
  o.host_stall_ns[2] = 3'000'000;
  const Job job = analyze_job(o, dir.path());
  ASSERT_TRUE(job.figures.stragglers.has_value());
  EXPECT_EQ(job.figures.stragglers->ranks, std::vector<std::int32_t>{2});
  EXPECT_EQ(job.figures.stragglers->cause, multirank::LatenessCause::kHost);
}

// Without Seq the ordinal tier, without any metadata the timeline tier: the same collectives.
TEST(CrossRankFigures, OlderMetadataMatchesTheSameCollectives) {
  for (synth::NcclMeta meta : {synth::NcclMeta::kNoSeq, synth::NcclMeta::kNone}) {
    traceprism::testing::TempDir dir;
    synth::MultiRankOptions o = eight_ranks();
    o.meta = meta;
    const Job job = analyze_job(o, dir.path());
    EXPECT_EQ(job.matches.collectives.size(), 9u);
    EXPECT_TRUE(job.matches.unmatched.empty());
    ASSERT_EQ(job.matches.groups.size(), 1u);
    EXPECT_EQ(job.matches.groups[0].tier, meta == synth::NcclMeta::kNoSeq
                                              ? model::MatchTier::kOrdinal
                                              : model::MatchTier::kTimeline);
    EXPECT_FALSE(job.figures.stragglers.has_value());
  }
}

// Collectives dropped from some files: every seq match pairs the instances the truth says are
// one collective (the members are exactly the ranks whose file kept it).
TEST(CrossRankFigures, DroppedCollectivesNeverMismatch) {
  traceprism::testing::TempDir dir;
  synth::MultiRankOptions o = eight_ranks();
  o.drop = 0.1;
  const Job job = analyze_job(o, dir.path());
  std::ifstream in(dir.path() / "synth_truth.json");
  std::stringstream text;
  text << in.rdbuf();
  const json::object truth = json::parse(text.str()).as_object();
  const json::array& instances = truth.at("instances").as_array();
  ASSERT_EQ(job.matches.collectives.size(), instances.size());
  for (const multirank::MatchedCollective& c : job.matches.collectives) {
    ASSERT_EQ(c.tier, model::MatchTier::kSeq);
    const json::array& written =
        instances.at(static_cast<std::size_t>(c.key - 1)).at("written").as_array();
    std::vector<std::int32_t> expected, got;
    for (std::size_t r = 0; r < written.size(); ++r)
      if (written[r].as_int64() == 1) expected.push_back(static_cast<std::int32_t>(r));
    for (const multirank::MemberRef& m : c.members) {
      got.push_back(m.rank);
      EXPECT_EQ(job.instances[static_cast<std::size_t>(m.rank)][m.index].seq, c.key);
    }
    EXPECT_EQ(got, expected) << "seq " << c.key;
  }
  // Instances missing a member are partial: they feed no skew figure.
  EXPECT_EQ(job.figures.instances.size() + job.figures.partial_instances,
            job.matches.collectives.size());
}

TEST(CrossRankFigures, AMissingRankLeavesTheStragglerFound) {
  traceprism::testing::TempDir dir;
  synth::MultiRankOptions o = eight_ranks();
  o.missing = {6};
  o.straggler_permille[5] = 1250;
  const Job job = analyze_job(o, dir.path());
  EXPECT_EQ(job.figures.ranks.size(), 7u);
  ASSERT_TRUE(job.figures.stragglers.has_value());
  EXPECT_EQ(job.figures.stragglers->ranks, std::vector<std::int32_t>{5});
}

}  // namespace
