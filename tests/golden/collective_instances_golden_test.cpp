// Collective instances of the two real rank traces in shared/ (multi-rank.md §12 "Shared data"):
// HTA's nccl_parser_config trace (2024: process-group metadata on op and kernel, relative time
// base) and timeline_analysis/sampled_rank-0 (2023: no metadata, kinds and sizes only from the
// enclosing c10d ops, every kernel named ncclKernel_SendRecv). Expected figures are the spec's,
// which were read off the files by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "ingest/trace_reader.hpp"
#include "model/collective_instances.hpp"
#include "model/launch_links.hpp"
#include "support/shared_traces.hpp"

namespace fs = std::filesystem;
namespace model = traceprism::model;
using model::CollectiveKind;

namespace {

model::RankCollectives instances_of(const fs::path& file) {
  const auto trace = traceprism::ingest::read_trace(file.string());
  const auto& index = trace.index;
  return model::collective_instances(index, model::LaunchLinks::build(index));
}

TEST(CollectiveInstancesGolden, NcclParserConfigHasSevenAllReducesAndBroadcastsPerStep) {
  const fs::path file =
      traceprism::testing::shared_traces() / "hta" / "nccl_parser_config" / "nccl_data.json.gz";
  if (!fs::exists(file)) GTEST_SKIP() << file << " is absent";
  const model::RankCollectives r = instances_of(file);
  ASSERT_EQ(r.instances.size(), 21u);  // the 6 kernel-less `wait` ops are not instances
  EXPECT_EQ(r.time_base_ns, 1711964646000000000);
  std::map<int, int> per_step;
  std::map<CollectiveKind, int> per_kind;
  for (const model::CollectiveInstance& c : r.instances) {
    ++per_step[c.step];
    ++per_kind[c.kind];
    EXPECT_EQ(c.pg_name, "0");
    EXPECT_EQ(c.pg_description, "default_pg");
    EXPECT_EQ(c.pg_ranks, "[0, 1]");
    EXPECT_EQ(c.group_size, 2);
    EXPECT_EQ(c.global_rank_start, 0);
    EXPECT_EQ(c.global_rank_stride, 1);
    EXPECT_EQ(c.seq, -1);  // NCCL 2.17-era PyTorch wrote no Seq
    EXPECT_EQ(c.metadata, model::MetadataSource::kKernel);
    EXPECT_EQ(c.kernels, 1);
    // Absolute time = base + ts: the log lines say 2024-05-22 17:15 local time, i.e. between
    // 2024-05-22 00:00 UTC (1716336000 s) and 2024-05-24 00:00 UTC (1716508800 s).
    EXPECT_GT(c.start_ns, 1716336000LL * 1000000000LL);
    EXPECT_LT(c.start_ns, 1716508800LL * 1000000000LL);
  }
  EXPECT_EQ(per_step, (std::map<int, int>{{4, 7}, {5, 7}, {6, 7}}));
  EXPECT_EQ(per_kind, (std::map<CollectiveKind, int>{{CollectiveKind::kAllReduce, 15},
                                                     {CollectiveKind::kBroadcast, 6}}));
  // One signature per step (§1.1): broadcast 53120 Float, broadcast 53 Long, all-reduce 2049000,
  // 7875584, 6563840, 6637568, 2431040 Float, in some order within the step.
  for (int step : {4, 5, 6}) {
    std::vector<std::tuple<CollectiveKind, std::int64_t, model::CollectiveDtype>> signature;
    for (const model::CollectiveInstance& c : r.instances)
      if (c.step == step) signature.emplace_back(c.kind, c.in_nelems, c.dtype);
    std::sort(signature.begin(), signature.end());
    using D = model::CollectiveDtype;
    const decltype(signature) expected = {
        {CollectiveKind::kAllReduce, 2049000, D::kFloat},
        {CollectiveKind::kAllReduce, 2431040, D::kFloat},
        {CollectiveKind::kAllReduce, 6563840, D::kFloat},
        {CollectiveKind::kAllReduce, 6637568, D::kFloat},
        {CollectiveKind::kAllReduce, 7875584, D::kFloat},
        {CollectiveKind::kBroadcast, 53, D::kLong},
        {CollectiveKind::kBroadcast, 53120, D::kFloat},
    };
    EXPECT_EQ(signature, expected) << "step " << step;
  }
  const auto first_allreduce =
      std::find_if(r.instances.begin(), r.instances.end(),
                   [](const model::CollectiveInstance& c) { return c.in_nelems == 2049000; });
  ASSERT_NE(first_allreduce, r.instances.end());
  EXPECT_EQ(first_allreduce->in_bytes, 8196000);  // 2049000 Float
}

TEST(CollectiveInstancesGolden, SampledRankZeroTakesKindsAndSizesFromTheC10dOps) {
  const fs::path file =
      traceprism::testing::shared_traces() / "hta" / "timeline_analysis" / "sampled_rank-0.json.gz";
  if (!fs::exists(file)) GTEST_SKIP() << file << " is absent";
  const model::RankCollectives r = instances_of(file);
  ASSERT_EQ(r.instances.size(), 10u);
  EXPECT_EQ(r.time_base_ns, 0);  // epoch µs, no baseTimeNanoseconds
  std::map<std::int64_t, int> per_stream;
  std::map<int, int> per_step;
  std::map<CollectiveKind, int> per_kind;
  std::vector<std::pair<std::int64_t, std::int64_t>> alltoall_sizes, allgather_sizes;
  for (const model::CollectiveInstance& c : r.instances) {
    ++per_stream[c.stream];
    ++per_step[c.step];
    ++per_kind[c.kind];
    EXPECT_TRUE(c.pg_name.empty());
    EXPECT_EQ(c.metadata, model::MetadataSource::kNone);
    if (c.kind == CollectiveKind::kAllToAll) alltoall_sizes.emplace_back(c.out_bytes, c.in_bytes);
    if (c.kind == CollectiveKind::kAllGather) {
      allgather_sizes.emplace_back(c.out_bytes, c.in_bytes);
      EXPECT_EQ(c.group_size, 64);
    }
    if (c.kind == CollectiveKind::kAllReduce) {  // TensorList inputs: no size
      EXPECT_EQ(c.in_bytes, -1);
      EXPECT_EQ(c.out_bytes, -1);
    }
  }
  EXPECT_EQ(per_stream, (std::map<std::int64_t, int>{{84, 8}, {203, 2}}));
  EXPECT_EQ(per_step, (std::map<int, int>{{551, 5}, {552, 5}}));
  EXPECT_EQ(per_kind, (std::map<CollectiveKind, int>{{CollectiveKind::kAllReduce, 4},
                                                     {CollectiveKind::kAllGather, 2},
                                                     {CollectiveKind::kAllToAll, 4}}));
  std::sort(alltoall_sizes.begin(), alltoall_sizes.end());
  EXPECT_EQ(
      alltoall_sizes,
      (std::vector<std::pair<std::int64_t, std::int64_t>>{
          {3072, 3072}, {10485760, 11386880}, {382132224, 419430400}, {382132224, 419430400}}));
  EXPECT_EQ(allgather_sizes, (std::vector<std::pair<std::int64_t, std::int64_t>>{
                                 {1073741824, 16777216}, {1073741824, 16777216}}));
}

}  // namespace
