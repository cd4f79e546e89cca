// The multi_rank_csvs/ tables (multi-rank.md §9.4) on a hand-made 4-rank job: every expected
// value below is worked out by hand from the instances' times and sizes (the comments show the
// arithmetic), then compared with the whole CSV text. The chain in between is the real one:
// match_collectives, cross_rank_figures, then the table renderers.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "multirank/collective_matching.hpp"
#include "multirank/collective_pattern_findings.hpp"
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

// Group "0" again (4 ranks) for an MoE layer's all-to-alls and all-reduces; groups "20" (ranks 0
// and 2) and "21" (ranks 1 and 3) for pipeline sends and receives.
const Group kStage02{"20", "pp", "[0, 2]", 2};
const Group kStage13{"21", "pp", "[1, 3]", 2};

// All-to-all with unequal splits in group "0": `in_bytes` is the rank's own volume (-1:
// unknown); `exposed_us` of it has no computation beside it.
CollectiveInstance alltoallv(std::int64_t seq, std::int64_t start_us, std::int64_t duration_us,
                             std::int64_t exposed_us, std::int64_t in_bytes) {
  CollectiveInstance c = instance(CollectiveKind::kAllToAllV, kWorld, seq, start_us, duration_us);
  c.dtype = CollectiveDtype::kFloat;
  c.in_bytes = in_bytes;
  c.exposed_ns = exposed_us * kUs;
  return c;
}

// A send to, or a receive from, global rank `peer` of `floats` Float elements (-1: no size).
CollectiveInstance p2p(CollectiveKind kind, const Group& g, std::int32_t peer, std::int64_t seq,
                       std::int64_t start_us, std::int64_t duration_us, std::int64_t floats = -1,
                       std::int64_t exposed_us = 0) {
  CollectiveInstance c = instance(kind, g, seq, start_us, duration_us);
  c.p2p = true;
  c.peer_rank = peer;
  if (floats >= 0) {
    c.dtype = CollectiveDtype::kFloat;
    c.in_nelems = c.out_nelems = floats;
  }
  c.exposed_ns = exposed_us * kUs;
  return c;
}

// Times in µs (start + duration = end); "x/d exposed" = exposed_ns of the duration.
//   alltoallv Seq 1: starts 100, 100, 100, 110; durations 50, 50, 50, 60 (all fully exposed);
//     in bytes 1e6, 1e6, 1e6, 5e6
//   alltoallv Seq 2: starts 200, 210, 200, 200; durations 40, 30, 40, 40 (half exposed);
//     in bytes 3e6, 3e6, 1e6, 1e6
//   alltoallv Seq 3: all start 300 for 10, nothing exposed; rank 3 does not know its size
//   allreduce Seq 4: all start 1000; durations 100, 100, 100, 120 (ends 1100 ×3, 1120)
//   allreduce Seq 5: starts 2000, 2010, 2000, 2000; all end 2200 (rank 1 lasts 190)
//   allreduce Seq 6: starts 3000, 3000, 3040, 3000; durations 150, 150, 110, 160 (ends 3150 ×3,
//     3160)
//   group "20", 0 → 2, 250 000 floats (1 000 000 bytes) each: send 500+30 with recv 480+50
//     (25 of it exposed); send 600+40 with recv 620+20
//   group "21", 3 → 1, no size: send 700+10 with recv 700+10
// `shift_us` moves ranks 2 and 3 (another node) by that much on their written clock.
Job moe_pipeline_job(std::int64_t shift_us = 0) {
  Job job;
  job.summaries.resize(4);
  constexpr std::int64_t kMB = 1'000'000;
  const CollectiveKind send = CollectiveKind::kSend, recv = CollectiveKind::kRecv;
  job.instances = {
      {alltoallv(1, 100, 50, 50, 1 * kMB), alltoallv(2, 200, 40, 20, 3 * kMB),
       alltoallv(3, 300, 10, 0, 1 * kMB), allreduce(4, 1000, 100), allreduce(5, 2000, 200),
       allreduce(6, 3000, 150), p2p(send, kStage02, 2, 1, 500, 30, 250'000),
       p2p(send, kStage02, 2, 2, 600, 40, 250'000)},
      {alltoallv(1, 100, 50, 50, 1 * kMB), alltoallv(2, 210, 30, 15, 3 * kMB),
       alltoallv(3, 300, 10, 0, 1 * kMB), allreduce(4, 1000, 100), allreduce(5, 2010, 190),
       allreduce(6, 3000, 150), p2p(recv, kStage13, 3, 1, 700, 10)},
      {alltoallv(1, 100, 50, 50, 1 * kMB), alltoallv(2, 200, 40, 20, 1 * kMB),
       alltoallv(3, 300, 10, 0, 1 * kMB), allreduce(4, 1000, 100), allreduce(5, 2000, 200),
       allreduce(6, 3040, 110), p2p(recv, kStage02, 0, 1, 480, 50, 250'000, 25),
       p2p(recv, kStage02, 0, 2, 620, 20, 250'000)},
      {alltoallv(1, 110, 60, 60, 5 * kMB), alltoallv(2, 200, 40, 20, 1 * kMB),
       alltoallv(3, 300, 10, 0, -1), allreduce(4, 1000, 120), allreduce(5, 2000, 200),
       allreduce(6, 3000, 160), p2p(send, kStage13, 1, 1, 700, 10)},
  };
  for (std::size_t r = 2; r < 4; ++r)
    for (CollectiveInstance& c : job.instances[r]) c.start_ns += shift_us * kUs;
  if (shift_us != 0) job.offsets = {{2, shift_us * kUs}, {3, shift_us * kUs}};
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

TEST(MultiRankTables, TheMoePipelineJobMatchesAsDescribed) {
  const Job job = moe_pipeline_job();
  // 3 all-to-alls + 3 all-reduces in group "0", complete; 3 send/recv pairs.
  EXPECT_EQ(job.matches.collectives.size(), 9u);
  std::size_t p2p_pairs = 0;
  for (const MatchedCollective& m : job.matches.collectives)
    if (m.partition_key.kind == PartitionKind::kPointToPoint) ++p2p_pairs;
  EXPECT_EQ(p2p_pairs, 3u);
}

// TraceLens' columns over the complete rendezvous instances: MiB, GiB/s (2^30), µs, ms.
// All-reduce (group "0", n = 4): Seq 1 and 2, T = 100 each; start skews 50 and 30; every member
// ends together (end skew 0). S = 8 000 000 B = 8e6 / 2^20 = 7.62939453125 MiB.
//   algo bw = 8e6 / 2^30 GiB / 100e-6 s = 74.50580597 GiB/s; bus = × 2·3/4 = 111.75870895.
//   Total comm latency = 200 µs = 0.2 ms.
// All-gather (group "10", n = 2): T = 6, start skew 4, ends 2010 and 2010 (0). S = out bytes =
// 4000 B = 0.003814697 MiB; algo bw = 4000 / 2^30 / 6e-6 = 0.62088172; bus = × 1/2 = 0.31044086.
// Rows by Total comm latency: the all-reduce (0.2 ms) first. Σ count = 3 = the
// num_collectives of straggler_summary.csv.
const char* const kImplicitSyncHeader =
    "Collective name,dtype,In msg nelems,Process Group Name,Group size,Full msg size (MB),"
    "comm_latency_mean,comm_latency_median,comm_latency_min,comm_latency_max,"
    "skew in start time_mean,skew in start time_median,skew in start time_min,"
    "skew in start time_max,skew in end time_mean,skew in end time_median,skew in end time_min,"
    "skew in end time_max,algo bw (GB/s)_mean,algo bw (GB/s)_median,algo bw (GB/s)_min,"
    "algo bw (GB/s)_max,bus bw (GB/s)_mean,bus bw (GB/s)_median,bus bw (GB/s)_min,"
    "bus bw (GB/s)_max,count,Total comm latency (ms)\n";

TEST(MultiRankTables, ImplicitSyncSummaryHasTraceLensColumns) {
  const Job job = four_rank_job();
  EXPECT_EQ(nccl_summary_implicit_sync_csv(job.inputs, job.matches, job.figures, job.offsets),
            std::string(kImplicitSyncHeader) +
                "allreduce,Float,2000000,0,4,7.629395,"
                "100.000,100.000,100.000,100.000,40.000,40.000,30.000,50.000,"
                "0.000,0.000,0.000,0.000,74.506,74.506,74.506,74.506,"
                "111.759,111.759,111.759,111.759,2,0.200000\n"
                "allgather,BFloat16,1000,10,2,0.003815,"
                "6.000,6.000,6.000,6.000,4.000,4.000,4.000,4.000,"
                "0.000,0.000,0.000,0.000,0.621,0.621,0.621,0.621,"
                "0.310,0.310,0.310,0.310,1,0.006000\n");
}

// The MoE job's all-reduces Seq 4, 5, 6 (the all-to-alls and the pairs are not in the set):
//   comm_latency T: 100, 190, 110 → mean 400/3 = 133.333, median 110, min 100, max 190
//   start skew: 0, 10, 40 → mean 50/3 = 16.667, median 10, min 0, max 40
//   end skew: 1120 − 1100 = 20, 0, 3160 − 3150 = 10 → mean 10, median 10, min 0, max 20
//   algo bw = 8e6 / 2^30 / T: 74.50580597 (T 100), 39.21358209 (190), 67.73255088 (110)
//     → mean 181.45193894 / 3 = 60.48397965, median 67.733, min 39.214, max 74.506
//   bus bw = × 1.5: mean 90.72596947, median 101.59882632, min 58.82037313, max 111.75870895
//   Total comm latency 400 µs = 0.4 ms
const char* const kMoeImplicitSyncRow =
    "allreduce,Float,2000000,0,4,7.629395,"
    "133.333,110.000,100.000,190.000,16.667,10.000,0.000,40.000,"
    "10.000,10.000,0.000,20.000,60.484,67.733,39.214,74.506,"
    "90.726,101.599,58.820,111.759,3,0.400000\n";

TEST(MultiRankTables, ImplicitSyncAggregatesLikePandas) {
  const Job job = moe_pipeline_job();
  EXPECT_EQ(nccl_summary_implicit_sync_csv(job.inputs, job.matches, job.figures, job.offsets),
            std::string(kImplicitSyncHeader) + kMoeImplicitSyncRow);
}

// Per complete alltoallv, in match order (Seq 1, 2, 3):
//   Seq 1: first start 100, last end 110 + 60 = 170: wall 70; T = 50; skew 10. In bytes Σ 8e6,
//     mean 2e6, min 1e6, max 5e6 on rank 3: imbalance 5e6 / 2e6 = 2.5; throughput 8e6 B / 70 µs
//     = 114.286 GB/s. Last arriver rank 3; the others are fully exposed: x_c = 100%. Exposed
//     wall 70; excess 70 × (1 − 2e6/5e6) × 1 = 42.
//   Seq 2: first start 200, last end 240: wall 40; T = 30 (rank 1); skew 10. Σ 8e6, mean 2e6,
//     min 1e6, max 3e6 on ranks 0 and 1 (the lowest: 0): imbalance 1.5; 8e6 / 40 µs = 200 GB/s.
//     Last arriver rank 1, the others half exposed: x_c = 50%. Exposed wall 40 × 0.5 = 20;
//     excess 40 × (1 − 2/3) × 0.5 = 6.667.
//   Seq 3: wall 10, T 10, skew 0; rank 3's size unknown: no size columns; x_c 0: exposed 0.
// The finding: median imbalance (2.5, 1.5) = 2.0, exposed 70 + 20 = 90 µs, saving 42 + 6.667.
const char* const kAlltoallv =
    "process_group,step,key,dtype,ranks,start_us,wall_us,transfer_us,arrival_skew_us,"
    "in_bytes_total,in_bytes_mean,in_bytes_min,in_bytes_max,max_rank,size_imbalance,"
    "throughput_gbps,exposure_pct,exposed_wall_us,excess_exposed_us\n"
    "0,,1,Float,0-3,100.000,70.000,50.000,10.000,8000000,2000000.0,1000000,5000000,3,2.500,"
    "114.286,100.0,70.000,42.000\n"
    "0,,2,Float,0-3,200.000,40.000,30.000,10.000,8000000,2000000.0,1000000,3000000,0,1.500,"
    "200.000,50.0,20.000,6.667\n"
    "0,,3,Float,0-3,300.000,10.000,10.000,0.000,,,,,,,,0.0,0.000,\n";

TEST(MultiRankTables, AlltoallvImbalancePerCollective) {
  const Job job = moe_pipeline_job();
  EXPECT_EQ(alltoallv_csv(job.inputs, job.matches, job.figures, job.offsets), kAlltoallv);
  // No all-to-all in the first job: the header only.
  const Job other = four_rank_job();
  EXPECT_EQ(alltoallv_csv(other.inputs, other.matches, other.figures, other.offsets),
            std::string(kAlltoallv).substr(0, std::string(kAlltoallv).find('\n') + 1));
}

// The xrank-alltoall-imbalance card reads the same numbers: with E2E = 1000 µs, exposed 90 µs
// is 9% and the impact's high end is the saving, 48.667 µs = 4.8667%.
TEST(MultiRankTables, AlltoallvTableAgreesWithTheFinding) {
  const Job job = moe_pipeline_job();
  CrossRankContext context;
  context.e2e_ns = 1000 * kUs;
  context.loaded_ranks = 4;
  context.world_size = 4;
  const findings::AnalyzerOutcome out =
      alltoall_imbalance_outcome(job.inputs, job.matches, job.figures, job.offsets, context);
  ASSERT_EQ(out.findings.size(), 1u);
  const findings::Finding& f = out.findings.front();
  EXPECT_EQ(f.metrics[0], (std::pair<std::string, double>("median_imbalance", 2.0)));
  EXPECT_EQ(f.metrics[1].first, "exposed_percent");
  EXPECT_DOUBLE_EQ(f.metrics[1].second, 9.0);
  EXPECT_NEAR(f.impact_high, (42.0 + 40.0 / 6.0) / 1000.0 * 100.0, 1e-9);
}

// Per (group, sender, receiver):
//   "20" 0 → 2: 2 pairs, 2 × 1e6 bytes; T = min(30, 50) + min(40, 20) = 50 µs: 2e6 / 50 µs =
//     40 GB/s. Pair 1: the send starts 20 after the recv: recv waits 20 (≤ its 50), exposed
//     20 × 25/50 = 10. Pair 2: the recv starts 20 after the send: the send waits 20 (≤ its 40).
//   "21" 3 → 1: 1 pair, no size; T = 10; both start at 700: no wait.
// Rows by recv wait: 20 before 0.
const char* const kP2p =
    "process_group,src_rank,dst_rank,pairs,bytes_total,transfer_total_us,algbw_gbps,late_sends,"
    "recv_wait_total_us,recv_exposed_wait_us,late_receives,send_wait_total_us\n"
    "20,0,2,2,2000000,50.000,40.000,1,20.000,10.000,1,20.000\n"
    "21,3,1,1,,10.000,,0,0.000,0.000,0,0.000\n";

TEST(MultiRankTables, PointToPointPairsAndTheirWaits) {
  const Job job = moe_pipeline_job();
  EXPECT_EQ(p2p_csv(job.inputs, job.matches, job.offsets), kP2p);
}

// The xrank-pipeline-wait card: rank 2 (its own stage: every collective holding it also holds
// its peer 0) waits 10 µs exposed, 5% of an E2E of 200 µs, the table's recv_exposed_wait_us.
TEST(MultiRankTables, PointToPointTableAgreesWithTheFinding) {
  const Job job = moe_pipeline_job();
  CrossRankContext context;
  context.e2e_ns = 200 * kUs;
  context.loaded_ranks = 4;
  context.world_size = 4;
  const findings::AnalyzerOutcome out =
      pipeline_wait_outcome(job.inputs, job.matches, job.offsets, context);
  ASSERT_EQ(out.findings.size(), 1u);
  const auto& metrics = out.findings.front().metrics;
  const auto exposed_ms = std::find_if(metrics.begin(), metrics.end(),
                                       [](const auto& m) { return m.first == "exposed_wait_ms"; });
  ASSERT_NE(exposed_ms, metrics.end());
  EXPECT_DOUBLE_EQ(exposed_ms->second, 0.010);
}

// Ranks 2 and 3 on a node 5 ms ahead: with the offsets, the same bytes.
TEST(MultiRankTables, NewTablesUseTheAlignedClock) {
  const Job job = moe_pipeline_job(5000);
  EXPECT_EQ(alltoallv_csv(job.inputs, job.matches, job.figures, job.offsets), kAlltoallv);
  EXPECT_EQ(p2p_csv(job.inputs, job.matches, job.offsets), kP2p);
  EXPECT_EQ(nccl_summary_implicit_sync_csv(job.inputs, job.matches, job.figures, job.offsets),
            std::string(kImplicitSyncHeader) + kMoeImplicitSyncRow);
  EXPECT_NE(p2p_csv(job.inputs, job.matches, {}), kP2p);
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
  EXPECT_EQ(nccl_summary_implicit_sync_csv(reversed, job.matches, job.figures, job.offsets),
            nccl_summary_implicit_sync_csv(job.inputs, job.matches, job.figures, job.offsets));
  const Job moe = moe_pipeline_job();
  std::vector<RankInput> moe_reversed(moe.inputs.rbegin(), moe.inputs.rend());
  EXPECT_EQ(alltoallv_csv(moe_reversed, moe.matches, moe.figures, moe.offsets), kAlltoallv);
  EXPECT_EQ(p2p_csv(moe_reversed, moe.matches, moe.offsets), kP2p);
  EXPECT_EQ(nccl_summary_implicit_sync_csv(moe_reversed, moe.matches, moe.figures, moe.offsets),
            std::string(kImplicitSyncHeader) + kMoeImplicitSyncRow);
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
  EXPECT_EQ(nccl_summary_implicit_sync_csv({}, matches, figures, {}), kImplicitSyncHeader);
  EXPECT_EQ(alltoallv_csv({}, matches, figures, {}),
            "process_group,step,key,dtype,ranks,start_us,wall_us,transfer_us,arrival_skew_us,"
            "in_bytes_total,in_bytes_mean,in_bytes_min,in_bytes_max,max_rank,size_imbalance,"
            "throughput_gbps,exposure_pct,exposed_wall_us,excess_exposed_us\n");
  EXPECT_EQ(p2p_csv({}, matches, {}),
            "process_group,src_rank,dst_rank,pairs,bytes_total,transfer_total_us,algbw_gbps,"
            "late_sends,recv_wait_total_us,recv_exposed_wait_us,late_receives,"
            "send_wait_total_us\n");
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
