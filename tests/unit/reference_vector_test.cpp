// The synthetic test vector of trace-format spec §16, whose expected figures were produced by
// running the reference (TraceLens) on it: tree (bleed rule), linking (flows, graph launch,
// unlinked kernel) and the GPU timeline.
#include <gtest/gtest.h>

#include <map>

#include "model/kernel_launchers.hpp"
#include "pipeline/trace_load.hpp"
#include "support/temp_dir.hpp"
#include "support/trace_builder.hpp"

using traceprism::index::EventKind;
using traceprism::index::Row;

namespace {

std::string reference_vector() {
  traceprism::testing::TraceText t;
  auto gpu = [&](const std::string& cat, const std::string& name, int ts, int dur, int corr,
                 int stream) {
    t.x(cat, name, std::to_string(ts), std::to_string(dur),
        "{\"correlation\":" + std::to_string(corr) + ",\"stream\":" + std::to_string(stream) +
            ",\"device\":0}",
        "0", std::to_string(stream));
  };
  auto runtime = [&](const std::string& name, int ts, int corr) {
    t.x("cuda_runtime", name, std::to_string(ts), "1",
        "{\"correlation\":" + std::to_string(corr) + "}");
  };
  auto flow = [&](int corr, int host_ts, int gpu_ts, int stream) {
    t.flow(corr, std::to_string(host_ts), std::to_string(gpu_ts), stream);
  };
  t.x("cpu_op", "aten::mm", "1000", "100");
  runtime("cudaLaunchKernel", 1010, 10);
  gpu("kernel", "gemm_kernel_K1", 1200, 50, 10, 7);
  flow(10, 1010, 1200, 7);
  t.x("cpu_op", "aten::add", "1200", "50");
  runtime("cudaLaunchKernel", 1210, 11);
  gpu("kernel", "void at::native::vectorized_elementwise_kernel<add>", 1220, 40, 11, 8);
  flow(11, 1210, 1220, 8);
  t.x("cpu_op", "my::custom", "1300", "100");
  runtime("cudaLaunchKernel", 1310, 12);
  runtime("cudaLaunchKernel", 1320, 13);
  gpu("kernel", "kernA", 1400, 10, 12, 7);
  gpu("kernel", "kernB", 1405, 10, 13, 8);
  flow(12, 1310, 1400, 7);
  flow(13, 1320, 1405, 8);
  t.x("cuda_runtime", "cudaGraphLaunch", "1500", "5", "{\"correlation\":20}");
  gpu("kernel", "graphK1", 1600, 5, 20, 7);
  gpu("kernel", "graphK2", 1606, 5, 20, 7);
  t.x("cpu_op", "aten::copy_", "1700", "50");
  runtime("cudaMemcpyAsync", 1710, 30);
  gpu("gpu_memcpy", "Memcpy DtoD (Device -> Device)", 1760, 20, 30, 7);
  flow(30, 1710, 1760, 7);
  gpu("kernel", "unlinkedK", 1800, 10, 99, 7);
  t.x("cpu_op", "c10d::allreduce_", "1900", "20");
  runtime("cudaLaunchKernel", 1901, 40);
  gpu("kernel", "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 1900, 100, 40, 9);
  flow(40, 1901, 1900, 9);
  t.x("cpu_op", "aten::mul", "1910", "20");
  runtime("cudaLaunchKernel", 1915, 41);
  gpu("kernel", "void at::native::vectorized_elementwise_kernel<mul>", 1950, 20, 41, 7);
  flow(41, 1915, 1950, 7);
  t.x("cpu_op", "aten::fill_", "2100", "10");
  runtime("cudaLaunchKernel", 2101, 50);
  gpu("kernel", "fill_zero_dur", 2150, 0, 50, 7);
  flow(50, 2101, 2150, 7);
  return t.str();
}

Row find(const traceprism::index::EventIndex& x, std::string_view name, EventKind kind) {
  for (Row r : x.rows_of_kind(kind)) {
    if (x.name(r) == name) return r;
  }
  ADD_FAILURE() << "no " << name;
  return 0;
}

class ReferenceVector : public ::testing::Test {
 protected:
  void SetUp() override {
    traceprism::pipeline::LoadOptions options;
    options.quiet = true;
    session_ =
        traceprism::pipeline::load_trace(dir_.write("vector.json", reference_vector()), options);
  }
  traceprism::testing::TempDir dir_;
  traceprism::pipeline::TraceSession session_;
};

TEST_F(ReferenceVector, GpuTimelineMatchesTheReference) {
  const auto& t = session_.timeline;
  EXPECT_NEAR(t.computation_us, 105, 1e-9);
  EXPECT_NEAR(t.exposed_comm_us, 80, 1e-9);
  EXPECT_NEAR(t.exposed_memcpy_us, 20, 1e-9);
  EXPECT_NEAR(t.busy_us, 205, 1e-9);
  EXPECT_NEAR(t.idle_us, 745, 1e-9);
  EXPECT_NEAR(t.total_us, 950, 1e-9);
  EXPECT_NEAR(t.total_comm_us, 100, 1e-9);
  EXPECT_NEAR(t.total_memcpy_us, 20, 1e-9);
  EXPECT_EQ(t.events, 10u);  // unlinkedK excluded
}

TEST_F(ReferenceVector, LinksFlowsAndGraphLaunches) {
  const auto& x = session_.file.index;
  const auto& links = session_.links;
  EXPECT_EQ(links.linked_count(), 10u);
  EXPECT_EQ(links.unlinked_count(), 1u);
  EXPECT_FALSE(links.linked(find(x, "unlinkedK", EventKind::kKernel)));
  Row graph = find(x, "cudaGraphLaunch", EventKind::kCudaRuntime);
  auto launched = links.launched(graph);
  ASSERT_EQ(launched.size(), 2u);
  EXPECT_EQ(x.name(launched[0]), "graphK1");
  EXPECT_EQ(x.name(launched[1]), "graphK2");
  EXPECT_EQ(links.graph_launches(), 1u);
}

TEST_F(ReferenceVector, BleedingOpIsDroppedAndItsLaunchMovesToTheOuterOp) {
  const auto& x = session_.file.index;
  const auto& tree = session_.tree;
  Row mul = find(x, "aten::mul", EventKind::kCpuOp);
  Row allreduce = find(x, "c10d::allreduce_", EventKind::kCpuOp);
  EXPECT_TRUE(tree.dropped(mul));
  EXPECT_EQ(tree.parent(mul), traceprism::model::kNoParent);
  Row mul_kernel =
      find(x, "void at::native::vectorized_elementwise_kernel<mul>", EventKind::kKernel);
  auto launcher = static_cast<Row>(session_.links.launcher(mul_kernel));
  EXPECT_EQ(x.ts_ns(launcher), 1915000);
  EXPECT_EQ(tree.parent(launcher), static_cast<std::int32_t>(allreduce));
  EXPECT_EQ(tree.children(allreduce).size(), 2u);
  EXPECT_EQ(tree.dropped_count(), 1u);
  // Every cpu_op but the dropped one is a root (none nests in another).
  EXPECT_EQ(tree.cpu_op_roots().size(), 6u);
}

TEST_F(ReferenceVector, KernelLaunchersMatchTheReferenceOpsSummary) {
  const auto& x = session_.file.index;
  auto launchers = traceprism::model::KernelLaunchers::build(x, session_.tree, session_.links);
  std::map<std::string, std::pair<double, double>> times;  // direct, subtree (µs)
  for (const auto& l : launchers.all()) {
    auto& t = times[std::string(x.name(l.row))];
    t.first += l.direct_busy_us;
    t.second += l.subtree_busy_us;
  }
  const std::map<std::string, std::pair<double, double>> expected = {
      {"aten::mm", {50, 50}},          {"aten::add", {40, 40}},  {"aten::copy_", {20, 20}},
      {"c10d::allreduce_", {20, 100}}, {"my::custom", {15, 15}}, {"cudaGraphLaunch", {10, 10}},
      {"aten::fill_", {0, 0}},
  };
  ASSERT_EQ(times.size(), expected.size());
  for (const auto& [name, t] : expected) {
    ASSERT_TRUE(times.count(name)) << name;
    EXPECT_NEAR(times[name].first, t.first, 1e-9) << name;
    EXPECT_NEAR(times[name].second, t.second, 1e-9) << name;
  }
  // Ordered by launcher start time.
  EXPECT_EQ(x.name(launchers.all().front().row), "aten::mm");
  EXPECT_EQ(x.name(launchers.all().back().row), "aten::fill_");
}

}  // namespace

namespace {

// Idle gaps of the §16 vector's linked GPU events (µs): 1260-1400 (140), 1415-1600 (185),
// 1605-1606 (1), 1611-1760 (149), 1780-1900 (120), 2000-2150 (150): 745 in all.
TEST(ReferenceVectorIdle, MicroAndMacroSplit) {
  traceprism::testing::TempDir dir;
  traceprism::pipeline::LoadOptions options;
  options.quiet = true;
  options.micro_idle_threshold_us = 130;
  auto s = traceprism::pipeline::load_trace(dir.write("v.json", reference_vector()), options);
  EXPECT_TRUE(s.timeline.idle_split);
  EXPECT_NEAR(s.timeline.micro_idle_us, 1 + 120, 1e-9);
  EXPECT_NEAR(s.timeline.macro_idle_us, 140 + 185 + 149 + 150, 1e-9);
  EXPECT_NEAR(s.timeline.micro_idle_us + s.timeline.macro_idle_us, s.timeline.idle_us, 1e-9);
}

}  // namespace
