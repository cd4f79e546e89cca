// synth --ranks (multi-rank.md §11): one trace per rank, coupled at every collective, problems
// injected into chosen ranks, synth_truth.json. Read back through the collective-instance pass
// (model/collective_instances), which is what multi-rank analysis matches on.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "ingest/trace_reader.hpp"
#include "io/byte_source.hpp"
#include "model/collective_instances.hpp"
#include "model/launch_links.hpp"
#include "multirank/rank_discovery.hpp"
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

// The JSON text of a rank's .json.gz.
std::string decompressed(const fs::path& file) {
  const auto source = traceprism::io::open_byte_source(file.string());
  std::string text;
  std::vector<char> buffer(1 << 16);
  while (const std::size_t n = source->read(buffer.data(), buffer.size()))
    text.append(buffer.data(), n);
  return text;
}

// Eight ranks in tensor-parallel pairs: TP groups {0,1} {2,3} {4,5} {6,7} ("1" to "4"), DP
// groups {0,2,4,6} {1,3,5,7} ("5", "6").
synth::MultiRankOptions tp_pairs() {
  synth::MultiRankOptions o;
  o.ranks = 8;
  o.tp = 2;
  return o;
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
  // Exposures are shares of each member's window; the last bucket of a step has no backward
  // left to hide behind, so the members that wait there wait fully exposed.
  for (const json::value& v : instances)
    for (const json::value& x : v.at("exposure_permille").as_array()) {
      EXPECT_GE(x.as_int64(), 0);
      EXPECT_LE(x.as_int64(), 1000);
    }
  EXPECT_EQ(instances[1].at("exposure_permille").as_array()[0].as_int64(), 1000);
  // Only the ranks that arrived last caused late-arrival time; low <= mid <= high.
  const json::array& caused = truth.at("late_arrival_ns").as_array();
  const json::array& lasts = truth.at("last_arrivals").as_array();
  ASSERT_EQ(caused.size(), 4u);
  for (std::size_t r = 0; r < caused.size(); ++r) {
    const std::int64_t low = caused[r].at("low").as_int64(), mid = caused[r].at("mid").as_int64(),
                       high = caused[r].at("high").as_int64();
    EXPECT_LE(low, mid);
    EXPECT_LE(mid, high);
    if (lasts[r].as_int64() == 0) {
      EXPECT_EQ(high, 0) << "rank " << r;
    }
  }
  EXPECT_GT(caused[2].at("mid").as_int64(), 0);
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

// --tp 2: every rank's collectives run on its own TP group (2 all-reduces per layer forward and
// 2 backward) and its DP group (the gradient buckets), each group with its own name, members,
// size, the rank's position in it and its own Seq 1, 2, ... on every member; distributedInfo
// lists all seven groups.
TEST(SynthMultiRank, TensorParallelGroupsEachHaveTheirOwnMembersAndSequence) {
  traceprism::testing::TempDir dir;
  const synth::MultiRankSummary summary =
      synth::write_multi_rank_traces(small_job(), tp_pairs(), dir.path());
  // Per step: 2 layers x (2 forward + 2 backward) TP all-reduces and 2 gradient buckets.
  EXPECT_EQ(summary.collectives, 20u);
  std::map<std::pair<std::string, std::int64_t>, std::uint64_t> comms_ids;
  for (int r = 0; r < 8; ++r) {
    const model::RankCollectives rc = instances_of(dir.path() / synth::rank_file_name(r));
    ASSERT_EQ(rc.instances.size(), 20u) << "rank " << r;
    const int tp_first = r / 2 * 2, dp_first = r % 2;
    const std::string tp_name = std::to_string(1 + r / 2), dp_name = std::to_string(5 + r % 2);
    std::map<std::string, std::vector<std::int64_t>> seqs;
    for (const model::CollectiveInstance& c : rc.instances) {
      EXPECT_EQ(c.kind, model::CollectiveKind::kAllReduce);
      seqs[c.pg_name].push_back(c.seq);
      if (c.pg_description == "tp_group") {
        EXPECT_EQ(c.pg_name, tp_name) << "rank " << r;
        EXPECT_EQ(c.pg_ranks,
                  "[" + std::to_string(tp_first) + ", " + std::to_string(tp_first + 1) + "]");
        EXPECT_EQ(c.group_size, 2);
        EXPECT_EQ(c.group_rank, r % 2);
        EXPECT_EQ(c.global_rank_start, tp_first);
        EXPECT_EQ(c.global_rank_stride, 1);
        EXPECT_EQ(c.in_nelems, 2 * 128 * 256);  // the activations, B x S x H
      } else {
        EXPECT_EQ(c.pg_description, "dp_group") << "rank " << r;
        EXPECT_EQ(c.pg_name, dp_name);
        std::string ranks = "[";
        for (int m = dp_first; m < 8; m += 2)
          ranks += (m == dp_first ? "" : ", ") + std::to_string(m);
        EXPECT_EQ(c.pg_ranks, ranks + "]");
        EXPECT_EQ(c.group_size, 4);
        EXPECT_EQ(c.group_rank, r / 2);
        EXPECT_EQ(c.global_rank_start, dp_first);
        EXPECT_EQ(c.global_rank_stride, 2);
      }
      // One Comms Id per (group, Seq) on all its members, and sibling groups' differ.
      const auto [it, fresh] = comms_ids.try_emplace({c.pg_name, c.seq}, c.comms_id);
      if (!fresh) {
        EXPECT_EQ(c.comms_id, it->second) << c.pg_name << "/" << c.seq;
      }
    }
    ASSERT_EQ(seqs.size(), 2u) << "rank " << r;
    std::vector<std::int64_t> tp_expected(16), dp_expected(4);
    for (std::size_t i = 0; i < tp_expected.size(); ++i)
      tp_expected[i] = static_cast<std::int64_t>(i + 1);
    for (std::size_t i = 0; i < dp_expected.size(); ++i)
      dp_expected[i] = static_cast<std::int64_t>(i + 1);
    EXPECT_EQ(seqs[tp_name], tp_expected) << "rank " << r;
    EXPECT_EQ(seqs[dp_name], dp_expected) << "rank " << r;
  }
  EXPECT_NE(comms_ids.at({"1", 1}), comms_ids.at({"2", 1}));
  // distributedInfo.pg_config: the default group and the six others, on every rank.
  const json::object info = json::parse(decompressed(dir.path() / synth::rank_file_name(5)))
                                .as_object()
                                .at("distributedInfo")
                                .as_object();
  EXPECT_EQ(info.at("pg_count").as_int64(), 7);
  const json::array& config = info.at("pg_config").as_array();
  ASSERT_EQ(config.size(), 7u);
  const std::vector<std::pair<std::string, json::array>> expected = {
      {"default_pg", {0, 1, 2, 3, 4, 5, 6, 7}},
      {"tp_group", {0, 1}},
      {"tp_group", {2, 3}},
      {"tp_group", {4, 5}},
      {"tp_group", {6, 7}},
      {"dp_group", {0, 2, 4, 6}},
      {"dp_group", {1, 3, 5, 7}}};
  for (std::size_t g = 0; g < config.size(); ++g) {
    EXPECT_EQ(config[g].at("pg_name").as_string(), std::to_string(g));
    EXPECT_EQ(config[g].at("pg_desc").as_string(), expected[g].first);
    EXPECT_EQ(config[g].at("ranks").as_array(), expected[g].second) << "group " << g;
    EXPECT_EQ(config[g].at("pg_size").as_int64(),
              static_cast<std::int64_t>(expected[g].second.size()));
  }
  // The truth: one instance per group and Seq (4 x 16 + 2 x 4), each with its group's members.
  const json::object truth = truth_of(dir.path());
  EXPECT_EQ(truth.at("tp").as_int64(), 2);
  EXPECT_EQ(truth.at("process_groups").as_array().size(), 7u);
  const json::array& instances = truth.at("instances").as_array();
  ASSERT_EQ(instances.size(), 72u);
  for (const json::value& v : instances) {
    const std::size_t g = std::stoul(std::string(v.at("pg").as_string()));
    EXPECT_EQ(v.at("pg_desc").as_string(), expected.at(g).first);
    EXPECT_EQ(v.at("members").as_array(), expected.at(g).second);
    EXPECT_EQ(v.at("start_ns").as_array().size(), expected.at(g).second.size());
    EXPECT_EQ(v.at("link_factor_permille").as_int64(), 1000);
  }
}

// --slow-link 3:0.5: the groups holding rank 3 (TP {2,3}, DP {1,3,5,7}) move their bytes at
// half the bandwidth, so their transfers last twice as long as their siblings'; the others
// keep theirs.
TEST(SynthMultiRank, ASlowLinkDoublesTheTransfersOfTheGroupsHoldingItsRank) {
  traceprism::testing::TempDir dir;
  synth::MultiRankOptions o = tp_pairs();
  o.slow_link_permille[3] = 500;
  synth::SynthOptions job;  // the default shapes: 8 MB activations, transfers well above 8 µs
  job.layers = 2;
  job.steps = 2;
  synth::write_multi_rank_traces(job, o, dir.path());
  const json::object truth = truth_of(dir.path());
  EXPECT_EQ(truth.at("ranks").as_array()[3].at("slow_link_permille").as_int64(), 500);
  std::map<std::string, std::int64_t> transfer;  // per pg, summed over its instances
  for (const json::value& v : truth.at("instances").as_array()) {
    const std::string pg(v.at("pg").as_string());
    const bool slow = pg == "2" || pg == "6";
    EXPECT_EQ(v.at("link_factor_permille").as_int64(), slow ? 500 : 1000) << "pg " << pg;
    transfer[pg] += v.at("transfer_ns").as_int64();
    // Every member ends after the last arrival plus the transfer.
    std::int64_t last = 0;
    for (const json::value& start : v.at("start_ns").as_array())
      last = std::max(last, start.as_int64());
    for (const json::value& end : v.at("end_ns").as_array())
      EXPECT_GE(end.as_int64(), last + v.at("transfer_ns").as_int64());
  }
  ASSERT_EQ(transfer.size(), 6u);
  const auto ratio = [&](const char* a, const char* b) {
    return static_cast<double>(transfer[a]) / static_cast<double>(transfer[b]);
  };
  for (const char* sibling : {"1", "3", "4"})
    EXPECT_NEAR(ratio("2", sibling), 2.0, 0.05) << "TP group {2,3} vs pg " << sibling;
  EXPECT_NEAR(ratio("1", "3"), 1.0, 0.03);
  EXPECT_NEAR(ratio("6", "5"), 2.0, 0.05);
  // The traces agree: per instance, the transfer the analysis measures (the shortest member's
  // kernel, §7.1) of TP group {2,3} is twice that of {0,1}.
  std::map<std::pair<std::string, std::int64_t>, std::int64_t> shortest;
  for (int r = 0; r < 4; ++r)
    for (const model::CollectiveInstance& c :
         instances_of(dir.path() / synth::rank_file_name(r)).instances) {
      if (c.pg_description != "tp_group") continue;
      auto [it, fresh] = shortest.try_emplace({c.pg_name, c.seq}, c.duration_ns);
      if (!fresh) it->second = std::min(it->second, c.duration_ns);
    }
  std::map<std::string, std::int64_t> measured;
  for (const auto& [key, ns] : shortest) measured[key.first] += ns;
  ASSERT_EQ(measured.size(), 2u);
  EXPECT_NEAR(static_cast<double>(measured["2"]) / static_cast<double>(measured["1"]), 2.0, 0.1);
}

// Groups meet per instance whatever the threads do: --tp with a slow link, jitter and dropped
// collectives gives the same bytes twice.
TEST(SynthMultiRank, TensorParallelJobsAreDeterministic) {
  traceprism::testing::TempDir a, b;
  synth::MultiRankOptions o = tp_pairs();
  o.slow_link_permille[3] = 500;
  o.skew_ns = 20'000;
  o.drop = 0.1;
  o.straggler_permille[6] = 1250;
  synth::write_multi_rank_traces(small_job(), o, a.path());
  synth::write_multi_rank_traces(small_job(), o, b.path());
  for (int r = 0; r < 8; ++r)
    EXPECT_EQ(read_file(a.path() / synth::rank_file_name(r)),
              read_file(b.path() / synth::rank_file_name(r)))
        << "rank " << r;
  EXPECT_EQ(read_file(a.path() / "synth_truth.json"), read_file(b.path() / "synth_truth.json"));
}

// --collectives fsdp: per layer and step an all-gather of the layer's parameters before its
// forward and again before its backward and a reduce-scatter of its gradients after the
// backward, on the data-parallel group (the world here), with the group's one Seq counter;
// no gradient all-reduce. Small job: 2 layers of 12 x 256^2 parameters, 4 ranks: shards of
// 196608 BF16 elements, whole arrays of 786432.
TEST(SynthMultiRank, FsdpGathersEachLayerTwiceAndReduceScattersItOnce) {
  traceprism::testing::TempDir dir;
  synth::MultiRankOptions o;
  o.ranks = 4;
  o.collectives = synth::Collectives::kFsdp;
  const synth::MultiRankSummary summary =
      synth::write_multi_rank_traces(small_job(), o, dir.path());
  EXPECT_EQ(summary.collectives, 12u);  // 2 steps x 2 layers x 3
  constexpr std::int64_t kShard = 12 * 256 * 256 / 4, kWhole = 12 * 256 * 256;
  using Kind = model::CollectiveKind;
  // Per step: forward gathers of layers 0 and 1; backward of layer 1 (gather, reduce-scatter),
  // then of layer 0.
  const std::vector<Kind> step = {Kind::kAllGather,     Kind::kAllGather, Kind::kAllGather,
                                  Kind::kReduceScatter, Kind::kAllGather, Kind::kReduceScatter};
  std::vector<std::uint64_t> comms_ids;
  for (int r = 0; r < 4; ++r) {
    const model::RankCollectives rc = instances_of(dir.path() / synth::rank_file_name(r));
    ASSERT_EQ(rc.instances.size(), 12u) << "rank " << r;
    for (std::size_t i = 0; i < 12; ++i) {
      const model::CollectiveInstance& c = rc.instances[i];
      const bool gather = step[i % 6] == Kind::kAllGather;
      EXPECT_EQ(c.kind, step[i % 6]) << "rank " << r << " #" << i;
      EXPECT_EQ(c.seq, static_cast<std::int64_t>(i + 1));
      EXPECT_EQ(c.pg_name, "0");
      EXPECT_EQ(c.group_size, 4);
      EXPECT_EQ(c.group_rank, r);
      EXPECT_EQ(c.dtype, model::CollectiveDtype::kBFloat16);
      EXPECT_EQ(c.in_nelems, gather ? kShard : kWhole) << "rank " << r << " #" << i;
      EXPECT_EQ(c.out_nelems, gather ? kWhole : kShard) << "rank " << r << " #" << i;
      EXPECT_EQ(c.metadata, model::MetadataSource::kKernel);
      if (r == 0)
        comms_ids.push_back(c.comms_id);
      else
        EXPECT_EQ(c.comms_id, comms_ids[i]);
    }
  }
  // The ops and kernels PyTorch FSDP and NCCL write; no all-reduce of any kind.
  const std::string text = decompressed(dir.path() / synth::rank_file_name(2));
  for (const char* name :
       {"\"c10d::_allgather_base_\"", "\"c10d::_reduce_scatter_base_\"",
        "\"nccl:_all_gather_base\"", "\"nccl:_reduce_scatter_base\"",
        "\"Collective name\":\"_allgather_base\"", "\"Collective name\":\"_reduce_scatter_base\"",
        "\"ncclDevKernel_AllGather_RING_LL(ncclDevComm*, unsigned long, ncclWork*)\"",
        "\"ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)\""})
    EXPECT_NE(text.find(name), std::string::npos) << name;
  EXPECT_EQ(text.find("allreduce"), std::string::npos);
  EXPECT_EQ(text.find("AllReduce"), std::string::npos);
  // The compute that needs the gathered parameters waits: the first computation kernel launched
  // after each all-gather starts once the gather has ended.
  struct Kernel {
    std::int64_t correlation, start, end;
    bool gather, comm;
  };
  std::vector<Kernel> kernels;
  const json::value trace = json::parse(text);
  for (const json::value& v : trace.at("traceEvents").as_array()) {
    const json::object& e = v.as_object();
    if (!e.contains("cat") || e.at("cat").as_string() != "kernel") continue;
    const std::string_view name = e.at("name").as_string();
    const auto ns = [](const json::value& us) {
      return static_cast<std::int64_t>(std::llround(us.to_number<double>() * 1000));
    };
    const std::int64_t start = ns(e.at("ts"));
    kernels.push_back({e.at("args").at("correlation").as_int64(), start, start + ns(e.at("dur")),
                       name.find("AllGather") != std::string_view::npos,
                       name.find("nccl") != std::string_view::npos});
  }
  std::sort(kernels.begin(), kernels.end(),
            [](const Kernel& a, const Kernel& b) { return a.correlation < b.correlation; });
  int gathers = 0;
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    if (!kernels[i].gather) continue;
    ++gathers;
    for (std::size_t j = i + 1; j < kernels.size(); ++j) {
      if (kernels[j].comm) continue;
      EXPECT_GE(kernels[j].start, kernels[i].end) << "gather #" << gathers;
      break;
    }
  }
  EXPECT_EQ(gathers, 8);
  // The truth names each instance's kind and the job's collectives.
  const json::object truth = truth_of(dir.path());
  EXPECT_EQ(truth.at("collectives").as_string(), "fsdp");
  const json::array& instances = truth.at("instances").as_array();
  ASSERT_EQ(instances.size(), 12u);
  for (std::size_t i = 0; i < instances.size(); ++i)
    EXPECT_EQ(instances[i].at("kind").as_string(),
              step[i % 6] == Kind::kAllGather ? "allgather" : "reducescatter");
}

// --vendor amd: RCCL's generic kernel names no collective, so the kinds come from the metadata
// (and the c10d ops); sizes as on NVIDIA.
TEST(SynthMultiRank, FsdpOnAmdLaunchesTheRcclGenericKernel) {
  traceprism::testing::TempDir dir;
  synth::MultiRankOptions o;
  o.ranks = 2;
  o.collectives = synth::Collectives::kFsdp;
  synth::SynthOptions job = small_job();
  job.vendor = synth::Vendor::kAmd;
  synth::write_multi_rank_traces(job, o, dir.path());
  const std::string text = decompressed(dir.path() / synth::rank_file_name(1));
  EXPECT_NE(text.find("\"rcclGenericKernel<1, false>(ncclDevKernelArgsStorage<4096ul>)\""),
            std::string::npos);
  EXPECT_EQ(text.find("ncclDevKernel_"), std::string::npos);
  EXPECT_NE(text.find("\"hipExtLaunchKernel\""), std::string::npos);
  const model::RankCollectives rc = instances_of(dir.path() / synth::rank_file_name(1));
  ASSERT_EQ(rc.instances.size(), 12u);
  int gathers = 0, scatters = 0;
  for (const model::CollectiveInstance& c : rc.instances) {
    gathers += c.kind == model::CollectiveKind::kAllGather;
    scatters += c.kind == model::CollectiveKind::kReduceScatter;
    EXPECT_EQ(c.group_size, 2);
    EXPECT_EQ(c.kind == model::CollectiveKind::kAllGather ? c.out_nelems : c.in_nelems,
              12 * 256 * 256);
  }
  EXPECT_EQ(gathers, 8);
  EXPECT_EQ(scatters, 4);
}

// FSDP over the data-parallel groups of a --tp job: the layer's half of the parameters
// (12 x 256^2 / 2) sharded over the 4 ranks of each DP group, each DP group with its own Seq;
// the TP all-reduces as without FSDP. Same bytes twice with jitter, drops and a straggler.
TEST(SynthMultiRank, FsdpRunsOnTheDataParallelGroupsAndIsDeterministic) {
  traceprism::testing::TempDir a, b;
  synth::MultiRankOptions o = tp_pairs();
  o.collectives = synth::Collectives::kFsdp;
  o.slow_link_permille[3] = 500;
  o.skew_ns = 20'000;
  o.straggler_permille[6] = 1250;
  const synth::MultiRankSummary summary = synth::write_multi_rank_traces(small_job(), o, a.path());
  // Per step: 2 layers x (4 TP all-reduces + 2 gathers + 1 reduce-scatter).
  EXPECT_EQ(summary.collectives, 28u);
  for (int r = 0; r < 8; ++r) {
    const model::RankCollectives rc = instances_of(a.path() / synth::rank_file_name(r));
    ASSERT_EQ(rc.instances.size(), 28u) << "rank " << r;
    std::int64_t dp_seq = 0, tp_seq = 0;
    for (const model::CollectiveInstance& c : rc.instances) {
      if (c.pg_description == "tp_group") {
        EXPECT_EQ(c.kind, model::CollectiveKind::kAllReduce);
        EXPECT_EQ(c.seq, ++tp_seq);
        continue;
      }
      EXPECT_EQ(c.pg_description, "dp_group");
      EXPECT_EQ(c.pg_name, std::to_string(5 + r % 2));
      EXPECT_EQ(c.group_rank, r / 2);
      EXPECT_EQ(c.seq, ++dp_seq);
      const bool gather = c.kind == model::CollectiveKind::kAllGather;
      EXPECT_TRUE(gather || c.kind == model::CollectiveKind::kReduceScatter);
      EXPECT_EQ(gather ? c.in_nelems : c.out_nelems, 12 * 256 * 256 / 2 / 4);
    }
    EXPECT_EQ(dp_seq, 12) << "rank " << r;
    EXPECT_EQ(tp_seq, 16) << "rank " << r;
  }
  o.drop = 0.1;
  synth::write_multi_rank_traces(small_job(), o, a.path());
  synth::write_multi_rank_traces(small_job(), o, b.path());
  for (int r = 0; r < 8; ++r)
    EXPECT_EQ(read_file(a.path() / synth::rank_file_name(r)),
              read_file(b.path() / synth::rank_file_name(r)))
        << "rank " << r;
  EXPECT_EQ(read_file(a.path() / "synth_truth.json"), read_file(b.path() / "synth_truth.json"));
}

TEST(SynthMultiRank, ATensorParallelSizeThatDoesNotDivideIsRefused) {
  traceprism::testing::TempDir dir;
  const auto refusal = [&](synth::MultiRankOptions o) -> std::string {
    try {
      synth::write_multi_rank_traces(small_job(), o, dir.path());
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "accepted";
  };
  synth::MultiRankOptions o = tp_pairs();
  o.tp = 3;
  EXPECT_EQ(refusal(o), "--tp 3 must divide --gpus-per-node (8) and --ranks (8).");
  o.ranks = 12;  // divides the job, not the node
  EXPECT_EQ(refusal(o), "--tp 3 must divide --gpus-per-node (8) and --ranks (12).");
  o = tp_pairs();
  o.tp = 8;
  EXPECT_EQ(refusal(o),
            "--tp 8 leaves data-parallel groups of one rank: it must be smaller than --ranks (8).");
  o = tp_pairs();
  o.slow_link_permille[8] = 500;
  EXPECT_EQ(refusal(o), "--slow-link names rank 8, but the job has ranks 0 to 7.");
  o = tp_pairs();
  o.slow_link_permille[3] = 1500;
  EXPECT_EQ(refusal(o), "--slow-link needs a factor in (0, 1], e.g. 3:0.5.");
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

// --name-pattern: the files carry the pattern's names (TraceLens' default, or the tensorboard
// handler's <host>_<pid>.<ms>, which holds no rank), the truth gives each rank's actual file, and
// discovery tells every rank from its distributedInfo and the host from the tensorboard name.
TEST(SynthMultiRank, NamePatternsNameTheFilesAndTheTruthSaysWhich) {
  synth::MultiRankOptions o;
  o.ranks = 4;
  o.gpus_per_node = 2;
  o.name_pattern = "rank{R}_trace.json.gz";
  EXPECT_EQ(synth::rank_file_name(3, o), "rank3_trace.json.gz");
  o.name_pattern = "tensorboard";
  EXPECT_EQ(synth::rank_file_name(3, o), "node001_19395.1701419247332.pt.trace.json.gz");
  EXPECT_EQ(synth::rank_file_name(3), "rank3.json.gz");  // the default, as before
  for (const char* pattern : {"rank{R}_trace.json.gz", "tensorboard"}) {
    traceprism::testing::TempDir dir;
    o.name_pattern = pattern;
    synth::write_multi_rank_traces(small_job(), o, dir.path());
    const json::object truth = truth_of(dir.path());
    const json::array& ranks = truth.at("ranks").as_array();
    for (int r = 0; r < 4; ++r) {
      const std::string name = synth::rank_file_name(r, o);
      EXPECT_TRUE(fs::exists(dir.path() / name)) << name;
      EXPECT_EQ(ranks[static_cast<std::size_t>(r)].at("file").as_string(), name) << pattern;
    }
    std::size_t entries = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path())) ++entries;
    EXPECT_EQ(entries, 5u) << pattern;  // the four traces and synth_truth.json
    const traceprism::multirank::Discovery found =
        traceprism::multirank::discover_ranks({dir.path().string()}, {});
    ASSERT_EQ(found.files.size(), 4u) << pattern;
    for (int r = 0; r < 4; ++r) {
      const traceprism::multirank::RankFile& f = found.files[static_cast<std::size_t>(r)];
      EXPECT_EQ(f.rank, r) << pattern;
      EXPECT_EQ(fs::path(f.path).filename(), synth::rank_file_name(r, o));
      EXPECT_EQ(f.source, traceprism::multirank::RankSource::kMeta);
      EXPECT_EQ(f.host, o.name_pattern == "tensorboard" ? "node00" + std::to_string(r / 2) : "");
    }
    EXPECT_TRUE(found.missing_ranks.empty()) << pattern;
  }
}

// --time-base epoch: no baseTimeNanoseconds, absolute ts; read back, every rank's collectives
// have the same absolute times as with the default base, to the nanosecond, also on a node whose
// clock runs ahead (its own base). The generation is the same, so the truth is too.
TEST(SynthMultiRank, EpochTimesReadBackAsTheSameInstancesAsABase) {
  traceprism::testing::TempDir with_base, epoch;
  synth::MultiRankOptions o;
  o.ranks = 4;
  o.gpus_per_node = 2;
  o.clock_skew_ns = 2'000'000;
  o.skew_ns = 20'000;
  synth::write_multi_rank_traces(small_job(), o, with_base.path());
  o.time_base = synth::TimeBase::kEpoch;
  synth::write_multi_rank_traces(small_job(), o, epoch.path());
  EXPECT_EQ(read_file(with_base.path() / "synth_truth.json"),
            read_file(epoch.path() / "synth_truth.json"));
  for (int r = 0; r < 4; ++r) {
    const fs::path name = synth::rank_file_name(r);
    EXPECT_NE(decompressed(with_base.path() / name).find("\"baseTimeNanoseconds\":"),
              std::string::npos);
    EXPECT_EQ(decompressed(epoch.path() / name).find("baseTimeNanoseconds"), std::string::npos);
    const model::RankCollectives a = instances_of(with_base.path() / name);
    const model::RankCollectives b = instances_of(epoch.path() / name);
    EXPECT_GT(a.time_base_ns, 1'600'000'000'000'000'000) << "rank " << r;
    EXPECT_EQ(b.time_base_ns, 0) << "rank " << r;
    ASSERT_EQ(a.instances.size(), 4u) << "rank " << r;
    ASSERT_EQ(b.instances.size(), a.instances.size()) << "rank " << r;
    for (std::size_t i = 0; i < a.instances.size(); ++i) {
      const model::CollectiveInstance &x = a.instances[i], &y = b.instances[i];
      EXPECT_EQ(y.seq, x.seq);
      EXPECT_EQ(y.step, x.step);
      EXPECT_EQ(y.start_ns, x.start_ns) << "rank " << r << " #" << i;
      EXPECT_EQ(y.duration_ns, x.duration_ns);
      EXPECT_EQ(y.launch_ns, x.launch_ns);
      EXPECT_EQ(y.anchor_ns, x.anchor_ns);
      EXPECT_EQ(y.exposed_ns, x.exposed_ns);
      EXPECT_EQ(y.pre_compute_ns, x.pre_compute_ns);
      EXPECT_EQ(y.pre_idle_ns, x.pre_idle_ns);
    }
  }
}

TEST(SynthMultiRank, NamePatternsThatAreNotOneFilePerRankAreRefused) {
  traceprism::testing::TempDir dir;
  const auto refusal = [&](const std::string& pattern) -> std::string {
    synth::MultiRankOptions o;
    o.name_pattern = pattern;
    try {
      synth::write_multi_rank_traces(small_job(), o, dir.path());
    } catch (const std::invalid_argument& e) {
      EXPECT_THROW(synth::rank_file_name(0, o), std::invalid_argument) << pattern;
      return e.what();
    }
    return "accepted";
  };
  EXPECT_EQ(refusal("rank.json.gz"),
            "--name-pattern \"rank.json.gz\" must hold {R} (the rank) exactly once, or be "
            "tensorboard.");
  EXPECT_EQ(refusal("rank{R}-{R}.json.gz"),
            "--name-pattern \"rank{R}-{R}.json.gz\" must hold {R} (the rank) exactly once, or be "
            "tensorboard.");
  EXPECT_EQ(refusal("rank{R}.json"),
            "--name-pattern \"rank{R}.json\" must end in .json.gz (the files are "
            "gzip-compressed).");
  EXPECT_EQ(refusal("ranks/rank{R}.json.gz"),
            "--name-pattern \"ranks/rank{R}.json.gz\" names a file in the output folder: drop the "
            "'/'.");
  EXPECT_EQ(refusal("TensorBoard"),
            "--name-pattern \"TensorBoard\" must hold {R} (the rank) exactly once, or be "
            "tensorboard.");
  EXPECT_TRUE(fs::is_empty(dir.path()));  // refused before anything was written
}

}  // namespace
