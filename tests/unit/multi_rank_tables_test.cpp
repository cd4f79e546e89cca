// The multi_rank_csvs/ tables (multi-rank.md §9.4) on a hand-made 4-rank job: every expected
// value below is worked out by hand from the instances' times and sizes (the comments show the
// arithmetic), then compared with the whole CSV text. The chain in between is the real one:
// match_collectives, cross_rank_figures, then the table renderers.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "multirank/collective_matching.hpp"
#include "multirank/cross_rank_figures.hpp"
#include "multirank/multi_rank_tables.hpp"

namespace traceprism::multirank {
namespace {

using model::CollectiveDtype;
using model::CollectiveInstance;
using model::CollectiveKind;

constexpr std::int64_t kUs = 1'000;

struct Group {
  std::string name, description, ranks;
  std::int64_t size;
};

// Group "0": the default group of all 4 ranks. Group "10": ranks 0 and 2, description left at
// PyTorch's default. Group "2": a truncated rank list that forms no progression.
const Group kWorld{"0", "default_pg", "[0, 1, 2, 3]", 4};
const Group kPair{"10", "undefined", "[0, 2]", 2};
const Group kCut{"2", "", "[0, 2, 3, ...]", 40};

CollectiveInstance instance(CollectiveKind kind, const Group& g, std::int64_t seq,
                            std::int64_t start_us, std::int64_t duration_us) {
  CollectiveInstance c;
  c.kind = kind;
  c.pg_name = g.name;
  c.pg_description = g.description;
  c.pg_ranks = g.ranks;
  c.group_size = g.size;
  c.seq = seq;
  c.start_ns = start_us * kUs;
  c.duration_ns = duration_us * kUs;
  return c;
}

// 8 MB all-reduce: 2 000 000 floats = 8 000 000 bytes.
CollectiveInstance allreduce(std::int64_t seq, std::int64_t start_us, std::int64_t duration_us) {
  CollectiveInstance c = instance(CollectiveKind::kAllReduce, kWorld, seq, start_us, duration_us);
  c.dtype = CollectiveDtype::kFloat;
  c.in_nelems = c.out_nelems = 2'000'000;
  return c;
}

// All-gather of 1000 BFloat16 per rank into 2000: S = out bytes = 4000.
CollectiveInstance allgather(std::int64_t start_us, std::int64_t duration_us) {
  CollectiveInstance c = instance(CollectiveKind::kAllGather, kPair, 1, start_us, duration_us);
  c.dtype = CollectiveDtype::kBFloat16;
  c.in_nelems = 1000;
  c.out_nelems = 2000;
  return c;
}

struct Job {
  std::vector<RankSummary> summaries;
  std::vector<std::vector<CollectiveInstance>> instances;
  std::vector<RankInput> inputs;
  RankClockOffsets offsets;
  MatchResult matches;
  CrossRankFigures figures;

  void analyze() {
    std::vector<RankCollectives> for_matching;
    inputs.clear();
    for (std::size_t r = 0; r < instances.size(); ++r) {
      const auto rank = static_cast<std::int32_t>(r);
      inputs.push_back({rank, &summaries[r], instances[r]});
      for_matching.push_back({rank, instances[r]});
    }
    matches = match_collectives(for_matching);
    CrossRankOptions options;
    options.clock_offset_ns = offsets;
    figures = cross_rank_figures(inputs, matches, options);
  }
};

// Two complete all-reduces (Seq 1, 2), a complete all-gather on ranks 0 and 2, an all-reduce
// (Seq 4) that rank 3 lacks (partial), an all-reduce only rank 2 has (Seq 3, unmatched) and a
// broadcast only rank 1 has. Times in µs:
//   Seq 1: starts 0, 10, 20, 50; all end at 150: durations 150, 140, 130, 100; T = 100
//   Seq 2: starts 1000, 1000, 1030, 1010; all end at 1130: durations 130, 130, 100, 120; T = 100
//   all-gather: rank 0 starts 2000 for 10, rank 2 starts 2004 for 6; T = 6
// `shift_us` moves ranks 2 and 3 (another node) by that much on their written clock.
Job four_rank_job(std::int64_t shift_us = 0) {
  Job job;
  job.summaries.resize(4);
  job.instances = {
      {allreduce(1, 0, 150), allreduce(2, 1000, 130), allgather(2000, 10), allreduce(4, 3000, 20)},
      {allreduce(1, 10, 140), allreduce(2, 1000, 130), allreduce(4, 3000, 20),
       instance(CollectiveKind::kBroadcast, kCut, 0, 4000, 5)},
      {allreduce(1, 20, 130), allreduce(2, 1030, 100), allgather(2004, 6), allreduce(3, 2500, 50),
       allreduce(4, 3000, 20)},
      {allreduce(1, 50, 100), allreduce(2, 1010, 120)},
  };
  for (std::size_t r = 2; r < 4; ++r)
    for (CollectiveInstance& c : job.instances[r]) c.start_ns += shift_us * kUs;
  if (shift_us != 0) job.offsets = {{2, shift_us * kUs}, {3, shift_us * kUs}};
  // Rank 0's PGRP (as a summary read from a .tpsum file has): group "0" as its instances name
  // it, and a group "5" that no instance names.
  ProcessGroup world;
  world.name = kWorld.name;
  world.description = kWorld.description;
  world.ranks_text = kWorld.ranks;
  world.size = kWorld.size;
  world.members = {0, 1, 2, 3};
  world.tier = model::MatchTier::kSeq;
  ProcessGroup pipeline;
  pipeline.name = "5";
  pipeline.description = "mesh, pp";
  pipeline.ranks_text = "[0, 4]";
  pipeline.size = 2;
  pipeline.members = {0, 4};
  pipeline.tier = model::MatchTier::kOrdinal;
  job.summaries[0].process_groups = {world, pipeline};
  job.analyze();
  return job;
}

TEST(MultiRankTables, TheJobMatchesAsDescribed) {
  const Job job = four_rank_job();
  EXPECT_EQ(job.matches.collectives.size(), 4u);  // Seq 1, 2, 4 and the all-gather
  EXPECT_EQ(job.figures.instances.size(), 3u);
  EXPECT_EQ(job.figures.partial_instances, 1u);
}

// Group "0": 3 matched collectives (Seq 1, 2, 4), Seq 4 partial; Seq 3 is on one rank only.
// Rows by numeric name: 0, 2, 5, 10. Group "2" has a cut list and no start/stride: "truncated".
// Group "5" comes from rank 0's PGRP only: its tier is the PGRP's.
TEST(MultiRankTables, ProcessGroups) {
  const Job job = four_rank_job();
  EXPECT_EQ(process_groups_csv(job.inputs, job.matches, job.figures),
            "name,description,size,members,ranks_loaded,tier,instances_matched,"
            "instances_complete,instances_partial\n"
            "0,default_pg,4,0-3,4,seq,3,2,1\n"
            "2,,40,truncated,1,seq,0,0,0\n"
            "5,\"mesh, pp\",2,\"0, 4\",1,ordinal,0,0,0\n"
            "10,undefined,2,\"0, 2\",2,seq,1,1,0\n");
}

// Without metadata the instances form one row, members = the loaded ranks, matched by time.
TEST(MultiRankTables, InstancesWithoutMetadataFormOneLastRow) {
  Job job;
  job.summaries.resize(2);
  CollectiveInstance bare;
  bare.kind = CollectiveKind::kAllReduce;
  bare.start_ns = 0;
  bare.duration_ns = 100 * kUs;
  CollectiveInstance named = allreduce(1, 500, 10);
  named.pg_name = "3";
  named.pg_ranks = "[0, 1]";
  named.group_size = 2;
  job.instances = {{bare, named}, {bare}};
  job.instances[1][0].start_ns = 20 * kUs;
  job.instances[1][0].duration_ns = 80 * kUs;  // ends at 100 µs as on rank 0
  job.analyze();
  EXPECT_EQ(process_groups_csv(job.inputs, job.matches, job.figures),
            "name,description,size,members,ranks_loaded,tier,instances_matched,"
            "instances_complete,instances_partial\n"
            "3,default_pg,2,0-1,1,seq,0,0,0\n"
            ",,,0-1,2,timeline,1,1,0\n");
  // Its family: no group label, n = the 2 members, no size so no bandwidth; T = 80, wait 20.
  EXPECT_EQ(collectives_summary_csv(job.inputs, job.matches, job.figures, job.offsets),
            "process_group,group_size,kind,dtype,bytes,count,transfer_total_us,"
            "transfer_mean_us,wait_total_us,algbw_gbps,busbw_gbps\n"
            ",2,allreduce,unknown,,1,80.000,80.000,20.000,,\n");
}

TEST(MultiRankTables, ClockOffsetsByNode) {
  ClockAlignment clocks;
  clocks.reference_node = 0;
  NodeClockOffset reference;
  reference.node = 0;
  reference.reachable = true;
  NodeClockOffset ahead;
  ahead.node = 1;
  ahead.via_node = 0;
  ahead.reachable = true;
  ahead.offset_ns = 1'234'567;
  ahead.mad_ns = 2'500;
  ahead.samples = 12;
  ahead.applied = true;
  NodeClockOffset behind;
  behind.node = 2;
  behind.via_node = 0;
  behind.reachable = true;
  behind.offset_ns = -30'000;
  behind.mad_ns = 40'000;
  behind.samples = 3;
  clocks.nodes = {ahead, behind, reference};  // any order in, ascending node out
  EXPECT_EQ(clock_offsets_csv(clocks),
            "node,offset_us,mad_us,samples,applied\n"
            "0,0.000,0.000,0,false\n"
            "1,1234.567,2.500,12,true\n"
            "2,-30.000,40.000,3,false\n");
}

// Waits (latest start − own start), µs:
//   Seq 1 (latest 50):   rank 0 50, rank 1 40, rank 2 30, rank 3 0; last 3, first 0
//   Seq 2 (latest 1030): rank 0 30, rank 1 30, rank 2 0, rank 3 20; last 2, first 0 (tie 0/1)
//   all-gather (2004):   rank 0 4, rank 2 0; last 2, first 0
// Totals: rank 0 84 (3 joined, mean 28), rank 1 70 (2, 35), rank 2 30 (3, 10), rank 3 20 (2, 10).
// Last: rank 2 twice (66.7% of 3), rank 3 once (33.3%). First: rank 0 three times.
// Collective time, every instance of the rank: rank 0 150+130+10+20 = 310; rank 1
// 140+130+20+5 = 295; rank 2 130+100+6+50+20 = 306; rank 3 100+120 = 220.
const char* const kStragglerSummary =
    "rank,total_wait_time_us,mean_wait_time_us,times_arrived_last,times_arrived_first,"
    "pct_arrived_last,num_collectives,total_nccl_dur_us\n"
    "3,20.0,10.0,1,0,33.3,3,220.0\n"
    "2,30.0,10.0,2,0,66.7,3,306.0\n"
    "1,70.0,35.0,0,0,0.0,3,295.0\n"
    "0,84.0,28.0,0,3,0.0,3,310.0\n";

TEST(MultiRankTables, StragglerSummaryHasTraceLensColumns) {
  const Job job = four_rank_job();
  EXPECT_EQ(straggler_summary_csv(job.inputs, job.matches, job.figures, job.offsets),
            kStragglerSummary);
  // The same waits as the cross-rank figures (here every complete instance is a counted kind).
  const std::int64_t expected_wait_us[] = {84, 70, 30, 20};
  for (const RankFigures& r : job.figures.ranks)
    EXPECT_EQ(r.wait_ns, expected_wait_us[r.rank] * kUs) << "rank " << r.rank;
}

// All-reduce family: 2 instances, T = 100 each: total 200, mean 100; waits 120 + 80 = 200;
// algbw = 8 000 000 B / 100 µs = 80 GB/s; busbw = 80 × 2 × 3/4 = 120 GB/s.
// All-gather family (label "10": the description is PyTorch's default): T = 6, wait 4;
// algbw = 4000 B / 6 µs = 0.667 GB/s; busbw = 0.667 × 1/2 = 0.333 GB/s.
const char* const kCollectivesSummary =
    "process_group,group_size,kind,dtype,bytes,count,transfer_total_us,transfer_mean_us,"
    "wait_total_us,algbw_gbps,busbw_gbps\n"
    "default_pg,4,allreduce,Float,8000000,2,200.000,100.000,200.000,80.000,120.000\n"
    "10,2,allgather,BFloat16,4000,1,6.000,6.000,4.000,0.667,0.333\n";

TEST(MultiRankTables, CollectiveFamilies) {
  const Job job = four_rank_job();
  EXPECT_EQ(collectives_summary_csv(job.inputs, job.matches, job.figures, job.offsets),
            kCollectivesSummary);
}

// One row per matched collective in match order (group "0" before "10", then Seq), times on the
// aligned clock. Seq 1: earliest start 0, skew 50, rank 3 last, T = 100; Seq 2: from 1000, skew
// 30, rank 2 last; Seq 4 lacks rank 3 (partial: no exposure), all start at 3000 so the lowest
// rank is "last"; the all-gather on 0 and 2: from 2000, skew 4, rank 2 last, T = 6, S = 4000.
// No instance has computation beside it here: exposure 0.
const char* const kCollectives =
    "process_group,tier,step,key,kind,dtype,bytes,ranks,complete,start_us,arrival_skew_us,"
    "last_rank,transfer_us,exposure_pct,mismatch\n"
    "0,seq,,1,allreduce,Float,8000000,0-3,true,0.000,50.000,3,100.000,0.0,false\n"
    "0,seq,,2,allreduce,Float,8000000,0-3,true,1000.000,30.000,2,100.000,0.0,false\n"
    "0,seq,,4,allreduce,Float,8000000,0-2,false,3000.000,0.000,0,20.000,,false\n"
    "10,seq,,1,allgather,BFloat16,4000,\"0, 2\",true,2000.000,4.000,2,6.000,0.0,false\n";

TEST(MultiRankTables, OneRowPerMatchedCollective) {
  const Job job = four_rank_job();
  EXPECT_EQ(collectives_csv(job.inputs, job.matches, job.figures, job.offsets, 100), kCollectives);
  const Job shifted = four_rank_job(5000);
  EXPECT_EQ(collectives_csv(shifted.inputs, shifted.matches, shifted.figures, shifted.offsets, 100),
            kCollectives);
  // At most max_rows rows: the first ones.
  const std::string two = collectives_csv(job.inputs, job.matches, job.figures, job.offsets, 2);
  EXPECT_EQ(two, std::string(kCollectives).substr(0, two.size()));
  EXPECT_EQ(std::count(two.begin(), two.end(), '\n'), 3);
}

// Ranks 2 and 3 on a node whose clock runs 5 ms ahead: with the offsets the tables are the same
// bytes; without them the waits are the written clocks' (rank 0 then waits 5050 µs at Seq 1).
TEST(MultiRankTables, WaitsUseTheAlignedClock) {
  const Job job = four_rank_job(5000);
  EXPECT_EQ(straggler_summary_csv(job.inputs, job.matches, job.figures, job.offsets),
            kStragglerSummary);
  EXPECT_EQ(collectives_summary_csv(job.inputs, job.matches, job.figures, job.offsets),
            kCollectivesSummary);
  EXPECT_NE(straggler_summary_csv(job.inputs, job.matches, job.figures, {}), kStragglerSummary);
}

// Input order of the ranks does not change any table.
TEST(MultiRankTables, RankOrderDoesNotMatter) {
  const Job job = four_rank_job();
  std::vector<RankInput> reversed(job.inputs.rbegin(), job.inputs.rend());
  EXPECT_EQ(process_groups_csv(reversed, job.matches, job.figures),
            process_groups_csv(job.inputs, job.matches, job.figures));
  EXPECT_EQ(straggler_summary_csv(reversed, job.matches, job.figures, job.offsets),
            kStragglerSummary);
  EXPECT_EQ(collectives_summary_csv(reversed, job.matches, job.figures, job.offsets),
            kCollectivesSummary);
}

TEST(MultiRankTables, EmptyInputsGiveHeadersOnly) {
  const MatchResult matches;
  const CrossRankFigures figures;
  EXPECT_EQ(process_groups_csv({}, matches, figures),
            "name,description,size,members,ranks_loaded,tier,instances_matched,"
            "instances_complete,instances_partial\n");
  EXPECT_EQ(clock_offsets_csv({}), "node,offset_us,mad_us,samples,applied\n");
  EXPECT_EQ(straggler_summary_csv({}, matches, figures, {}),
            "rank,total_wait_time_us,mean_wait_time_us,times_arrived_last,times_arrived_first,"
            "pct_arrived_last,num_collectives,total_nccl_dur_us\n");
  EXPECT_EQ(collectives_summary_csv({}, matches, figures, {}),
            "process_group,group_size,kind,dtype,bytes,count,transfer_total_us,"
            "transfer_mean_us,wait_total_us,algbw_gbps,busbw_gbps\n");
}

TEST(MultiRankTables, MessageBytesFollowNcclTests) {
  CollectiveInstance c;
  c.dtype = CollectiveDtype::kHalf;  // 2 bytes
  c.in_nelems = 100;
  c.out_nelems = 400;
  c.kind = CollectiveKind::kAllReduce;
  EXPECT_EQ(collective_message_bytes(c), 200);
  c.kind = CollectiveKind::kReduceScatter;  // in: the whole array
  EXPECT_EQ(collective_message_bytes(c), 200);
  c.kind = CollectiveKind::kAllGather;  // out: the whole gathered array
  EXPECT_EQ(collective_message_bytes(c), 800);
  c.in_bytes = 1234;  // explicit bytes (split sizes, legacy Input Dims) win
  c.kind = CollectiveKind::kAllToAll;
  EXPECT_EQ(collective_message_bytes(c), 1234);
  c.kind = CollectiveKind::kAllToAllV;  // no single S
  EXPECT_EQ(collective_message_bytes(c), -1);
  c.kind = CollectiveKind::kRecv;
  c.in_bytes = -1;
  c.in_nelems = -1;  // the message from out nelems
  EXPECT_EQ(collective_message_bytes(c), 800);
  c.kind = CollectiveKind::kBroadcast;
  c.dtype = CollectiveDtype::kUnknown;
  c.in_nelems = 100;
  EXPECT_EQ(collective_message_bytes(c), -1);
}

TEST(MultiRankTables, BusBandwidthFactors) {
  EXPECT_DOUBLE_EQ(*bus_bandwidth_factor(CollectiveKind::kAllReduce, 4), 1.5);
  EXPECT_DOUBLE_EQ(*bus_bandwidth_factor(CollectiveKind::kAllGather, 8), 0.875);
  EXPECT_DOUBLE_EQ(*bus_bandwidth_factor(CollectiveKind::kReduceScatter, 2), 0.5);
  EXPECT_DOUBLE_EQ(*bus_bandwidth_factor(CollectiveKind::kAllToAll, 4), 0.75);
  EXPECT_DOUBLE_EQ(*bus_bandwidth_factor(CollectiveKind::kBroadcast, 16), 1.0);
  EXPECT_DOUBLE_EQ(*bus_bandwidth_factor(CollectiveKind::kSend, 2), 1.0);
  EXPECT_FALSE(bus_bandwidth_factor(CollectiveKind::kGather, 4).has_value());
  EXPECT_FALSE(bus_bandwidth_factor(CollectiveKind::kAllReduce, 0).has_value());
}

}  // namespace
}  // namespace traceprism::multirank
