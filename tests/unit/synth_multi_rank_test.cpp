// synth --ranks (multi-rank.md §11): one trace per rank, coupled at every all-reduce, problems
// injected into chosen ranks, synth_truth.json. Read back through the collective-instance pass
// (model/collective_instances), which is what multi-rank analysis matches on.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "ingest/trace_reader.hpp"
#include "model/collective_instances.hpp"
#include "model/launch_links.hpp"
#include "support/temp_dir.hpp"
#include "synth/multi_rank.hpp"

namespace fs = std::filesystem;
namespace json = boost::json;
namespace model = traceprism::model;
namespace synth = traceprism::synth;

namespace {

synth::SynthOptions small_job() {
  synth::SynthOptions o;
  o.layers = 2;
  o.steps = 2;
  o.seed = 7;
  o.batch = 2;
  o.sequence = 128;
  o.hidden = 256;
  return o;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

model::RankCollectives instances_of(const fs::path& file) {
  const auto trace = traceprism::ingest::read_trace(file.string());
  return model::collective_instances(trace.index, model::LaunchLinks::build(trace.index));
}

json::object truth_of(const fs::path& dir) {
  return json::parse(read_file(dir / "synth_truth.json")).as_object();
}

TEST(SynthMultiRank, SameOptionsGiveIdenticalFilesWhateverTheThreadsDo) {
  traceprism::testing::TempDir a, b;
  synth::MultiRankOptions o;
  o.ranks = 4;
  o.skew_ns = 20'000;
  o.drop = 0.2;
  o.straggler_permille[1] = 1250;
  synth::write_multi_rank_traces(small_job(), o, a.path());
  synth::write_multi_rank_traces(small_job(), o, b.path());
  for (const char* name :
       {"rank0.json.gz", "rank1.json.gz", "rank2.json.gz", "rank3.json.gz", "synth_truth.json"})
    EXPECT_EQ(read_file(a.path() / name), read_file(b.path() / name)) << name;
}

// Full metadata: every rank's file holds the same collectives with Seq 1, 2, ... on process
// group "0" of the whole world, its own rank, and one Comms Id per Seq on all ranks.
TEST(SynthMultiRank, FullMetadataGivesEveryRankTheSameSequence) {
  traceprism::testing::TempDir dir;
  synth::MultiRankOptions o;
  o.ranks = 4;
  const synth::MultiRankSummary summary =
      synth::write_multi_rank_traces(small_job(), o, dir.path());
  EXPECT_EQ(summary.files, 4);
  // Two steps, each with one bucket per two layers (1) and the embedding bucket: 2 per step.
  EXPECT_EQ(summary.collectives, 4u);
  std::vector<std::uint64_t> comms_ids;
  for (int r = 0; r < 4; ++r) {
    const model::RankCollectives rc = instances_of(dir.path() / synth::rank_file_name(r));
    ASSERT_EQ(rc.instances.size(), 4u) << "rank " << r;
    for (std::size_t i = 0; i < 4; ++i) {
      const model::CollectiveInstance& c = rc.instances[i];
      EXPECT_EQ(c.seq, static_cast<std::int64_t>(i + 1));
      EXPECT_EQ(c.kind, model::CollectiveKind::kAllReduce);
      EXPECT_EQ(c.pg_name, "0");
      EXPECT_EQ(c.group_size, 4);
      EXPECT_EQ(c.group_rank, r);
      EXPECT_EQ(c.pg_ranks, "[0, 1, 2, 3]");
      EXPECT_EQ(c.metadata, model::MetadataSource::kKernel);
      EXPECT_NE(c.comms_id, 0u);
      if (r == 0)
        comms_ids.push_back(c.comms_id);
      else
        EXPECT_EQ(c.comms_id, comms_ids[i]);
    }
  }
}

// A rank whose computation is 25% slower reaches the gradient all-reduces last; the others wait
// for it, so every member of an instance ends together (within the 2 µs of each rank's own).
TEST(SynthMultiRank, AStragglerArrivesLastAndTheOthersWaitForIt) {
  traceprism::testing::TempDir dir;
  synth::MultiRankOptions o;
  o.ranks = 4;
  o.straggler_permille[2] = 1250;
  synth::SynthOptions job;  // the default shapes: GPU-bound, so slower kernels arrive later
  job.layers = 4;
  job.steps = 2;
  synth::write_multi_rank_traces(job, o, dir.path());
  const json::object truth = truth_of(dir.path());
  const json::array& instances = truth.at("instances").as_array();
  int last_is_straggler = 0;
  for (const json::value& v : instances) {
    const json::array& starts = v.at("start_ns").as_array();
    const json::array& ends = v.at("end_ns").as_array();
    std::int64_t latest = 0, lo_end = INT64_MAX, hi_end = 0;
    std::size_t latest_rank = 0;
    for (std::size_t r = 0; r < starts.size(); ++r) {
      if (starts[r].as_int64() > latest) latest = starts[r].as_int64(), latest_rank = r;
      lo_end = std::min(lo_end, ends[r].as_int64());
      hi_end = std::max(hi_end, ends[r].as_int64());
    }
    if (latest_rank == 2) ++last_is_straggler;
    EXPECT_LE(hi_end - lo_end, 2000);
    EXPECT_GT(lo_end, latest);  // nobody ends before the last member arrived
  }
  // Per step, the two layer buckets follow the straggler's slower backward kernels; the
  // embedding bucket right after the second one may start anywhere. At least 2 of the 3.
  EXPECT_EQ(instances.size(), 6u);
  EXPECT_GE(last_is_straggler * 3, static_cast<int>(instances.size()) * 2);
}

// Dropped collectives are missing from one rank's file but still timed: the file holds exactly
// the instances the truth marks written, with their Seq.
TEST(SynthMultiRank, DroppedCollectivesAreMissingFromThatRanksFileOnly) {
  traceprism::testing::TempDir dir;
  synth::MultiRankOptions o;
  o.ranks = 3;
  o.drop = 0.3;
  synth::SynthOptions job = small_job();
  job.steps = 4;
  synth::write_multi_rank_traces(job, o, dir.path());
  const json::object truth = truth_of(dir.path());
  const json::array& instances = truth.at("instances").as_array();
  int dropped = 0;
  for (int r = 0; r < 3; ++r) {
    std::vector<std::int64_t> expected_seqs;
    for (const json::value& v : instances) {
      if (v.at("written").as_array()[static_cast<std::size_t>(r)].as_int64() == 1)
        expected_seqs.push_back(v.at("seq").as_int64());
      else
        ++dropped;
    }
    std::vector<std::int64_t> seqs;
    for (const model::CollectiveInstance& c :
         instances_of(dir.path() / synth::rank_file_name(r)).instances)
      seqs.push_back(c.seq);
    EXPECT_EQ(seqs, expected_seqs) << "rank " << r;
  }
  EXPECT_GT(dropped, 0);  // 24 chances at 30%: none dropped has odds 0.7^24 = 0.02%
}

// --nccl-meta none: the 2023 vocabulary; the kind comes from the c10d op, nothing else.
TEST(SynthMultiRank, NoMetadataLeavesOnlyTheOpNames) {
  traceprism::testing::TempDir dir;
  synth::MultiRankOptions o;
  o.ranks = 2;
  o.meta = synth::NcclMeta::kNone;
  synth::write_multi_rank_traces(small_job(), o, dir.path());
  const model::RankCollectives rc = instances_of(dir.path() / synth::rank_file_name(1));
  ASSERT_EQ(rc.instances.size(), 4u);
  for (const model::CollectiveInstance& c : rc.instances) {
    EXPECT_EQ(c.kind, model::CollectiveKind::kAllReduce);
    EXPECT_EQ(c.metadata, model::MetadataSource::kNone);
    EXPECT_TRUE(c.pg_name.empty());
    EXPECT_EQ(c.seq, -1);
  }
  const std::string text = read_file(dir.path() / synth::rank_file_name(1));
  EXPECT_EQ(text.find("Process Group Name"), std::string::npos);
}

TEST(SynthMultiRank, AMissingRankRunsButItsFileIsNotWritten) {
  traceprism::testing::TempDir dir;
  synth::MultiRankOptions o;
  o.ranks = 3;
  o.missing = {1};
  const synth::MultiRankSummary summary =
      synth::write_multi_rank_traces(small_job(), o, dir.path());
  EXPECT_EQ(summary.files, 2);
  EXPECT_TRUE(fs::exists(dir.path() / "rank0.json.gz"));
  EXPECT_FALSE(fs::exists(dir.path() / "rank1.json.gz"));
  EXPECT_TRUE(fs::exists(dir.path() / "rank2.json.gz"));
  const json::object truth = truth_of(dir.path());
  EXPECT_TRUE(truth.at("ranks").as_array()[1].at("file").is_null());
  // Nothing but the finished files is left in the folder (no temporary files).
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path())) ++entries;
  EXPECT_EQ(entries, 3u);
}

TEST(SynthMultiRank, OptionsNamingRanksOutsideTheJobAreRefused) {
  traceprism::testing::TempDir dir;
  synth::MultiRankOptions o;
  o.ranks = 4;
  o.straggler_permille[4] = 1250;
  try {
    synth::write_multi_rank_traces(small_job(), o, dir.path());
    FAIL() << "expected a refusal";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "--straggler names rank 4, but the job has ranks 0 to 3.");
  }
}

}  // namespace
