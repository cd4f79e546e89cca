// Cross-rank figures on synthetic jobs with the problem injected (multi-rank.md §12's
// end-to-end table, the rows the cross-rank stages can answer so far): each injection yields
// exactly its straggler, with its cause; a clean job none. The chain is the real one: synth
// --ranks, the reader, the rank summary, matching, the §7 figures.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
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

json::object truth_of(const fs::path& dir) {
  std::ifstream in(dir / "synth_truth.json");
  std::stringstream text;
  text << in.rdbuf();
  return json::parse(text.str()).as_object();
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
  // §12: impact mid within ±15% of the truth file's (computed by the generator from its own
  // arrival times and kernels, not from the trace files).
  const json::object truth = truth_of(dir.path());
  const double truth_mid =
      truth.at("late_arrival_ns").as_array().at(5).at("mid").to_number<double>();
  ASSERT_GT(truth_mid, 0);
  EXPECT_NEAR(static_cast<double>(job.figures.stragglers->impact_mid_ns), truth_mid,
              0.15 * truth_mid);
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
  const json::object truth = truth_of(dir.path());
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

// The truth instance (index into "instances") of each rank's instance, by its start: the file's
// times are the generator's plus the file's base, the same for every instance of the rank.
std::vector<std::vector<std::size_t>> truth_instance_of(const Job& job, const json::array& truth) {
  std::vector<std::vector<std::size_t>> result;
  for (std::size_t r = 0; r < job.instances.size(); ++r) {
    std::map<std::int64_t, std::size_t> by_start;
    for (std::size_t i = 0; i < truth.size(); ++i) {
      const json::object& c = truth[i].as_object();
      if (c.at("written").as_array()[r].as_int64() == 1)
        by_start[c.at("start_ns").as_array()[r].as_int64()] = i;
    }
    std::vector<std::size_t> of;
    if (by_start.empty() || job.instances[r].empty()) {
      result.push_back(of);
      continue;
    }
    const std::int64_t base = job.instances[r].front().start_ns - by_start.begin()->first;
    for (const model::CollectiveInstance& c : job.instances[r]) {
      const auto it = by_start.find(c.start_ns - base);
      of.push_back(it == by_start.end() ? SIZE_MAX : it->second);
    }
    result.push_back(of);
  }
  return result;
}

// §12: with collectives dropped and no Seq (ordinal, then timeline tier) or no metadata at all
// (timeline tier), at least 95% of the truth's collectives are matched exactly: one matched
// collective holding every rank whose file kept it, and nothing else.
TEST(CrossRankFigures, DroppedCollectivesWithoutSeqStillMatchAgainstTheTruth) {
  for (synth::NcclMeta meta : {synth::NcclMeta::kNoSeq, synth::NcclMeta::kNone}) {
    traceprism::testing::TempDir dir;
    synth::MultiRankOptions o = eight_ranks();
    o.drop = 0.1;
    o.meta = meta;
    const Job job = analyze_job(o, dir.path());
    const json::object truth_file = truth_of(dir.path());
    const json::array& truth = truth_file.at("instances").as_array();
    const std::vector<std::vector<std::size_t>> truth_of_instance = truth_instance_of(job, truth);
    std::size_t expected = 0, correct = 0, partial = 0;
    for (const json::value& v : truth) {
      std::size_t kept = 0;
      for (const json::value& w : v.at("written").as_array()) kept += w.as_int64() == 1;
      expected += kept >= 2;  // one rank alone has nobody to be matched with
      partial += kept < 8;
    }
    EXPECT_GT(partial, 0u);  // the seed does drop some
    for (const multirank::MatchedCollective& c : job.matches.collectives) {
      std::set<std::size_t> origins;
      std::vector<std::int32_t> members;
      for (const multirank::MemberRef& m : c.members) {
        origins.insert(truth_of_instance[static_cast<std::size_t>(m.rank)][m.index]);
        members.push_back(m.rank);
      }
      if (origins.size() != 1 || *origins.begin() == SIZE_MAX) continue;
      const json::array& written = truth[*origins.begin()].at("written").as_array();
      std::vector<std::int32_t> kept;
      for (std::size_t r = 0; r < written.size(); ++r)
        if (written[r].as_int64() == 1) kept.push_back(static_cast<std::int32_t>(r));
      std::sort(members.begin(), members.end());
      correct += members == kept;
    }
    ASSERT_GT(expected, 0u);
    EXPECT_GE(correct * 100, expected * 95)
        << correct << " of " << expected << " matched exactly, meta " << static_cast<int>(meta);
  }
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
