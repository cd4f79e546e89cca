#include "model/launch_links.hpp"

#include <gtest/gtest.h>

#include "ingest/trace_reader.hpp"
#include "support/temp_dir.hpp"
#include "support/trace_builder.hpp"

using traceprism::model::LaunchLinks;

namespace {

traceprism::index::EventIndex read(const std::string& text) {
  traceprism::testing::TempDir dir;
  return traceprism::ingest::read_trace(dir.write("t.json", text)).index;
}

// Without any ac2g flow (TensorBoard-era exporters), launches link by correlation id.
TEST(LaunchLinks, TraceWithoutFlowsLinksByCorrelation) {
  traceprism::testing::TraceText t;
  t.x("cuda_runtime", "cudaLaunchKernel", "100", "5", R"({"correlation": 7, "External id": 1})");
  t.x("kernel", "k1", "120", "10", R"({"correlation": 7, "External id": 1, "stream": 7})", "0",
      "7");
  t.x("cuda_runtime", "cudaMemcpyAsync", "130", "5", R"({"correlation": 8, "External id": 1})");
  t.x("gpu_memcpy", "Memcpy HtoD (Pinned -> Device)", "140", "3",
      R"({"correlation": 8, "stream": 7})", "0", "7");
  t.x("kernel", "orphan", "150", "3", R"({"correlation": 99, "stream": 7})", "0", "7");
  auto x = read(t.str());
  auto links = LaunchLinks::build(x);
  EXPECT_TRUE(links.flowless());
  EXPECT_EQ(links.launcher(1), 0);
  EXPECT_EQ(links.launcher(3), 2);
  EXPECT_FALSE(links.linked(4));
  EXPECT_EQ(links.linked_count(), 2u);
}

// Intel XPU traces launch through xpu_runtime calls (urEnqueueKernelLaunch).
TEST(LaunchLinks, XpuRuntimeCallsLaunchKernels) {
  traceprism::testing::TraceText t;
  t.x("cpu_op", "aten::mm", "90", "40");
  t.x("xpu_runtime", "urEnqueueKernelLaunch", "100", "1",
      R"({"correlation": 5, "External id": 2})");
  t.x("kernel", "gemm_xpu_kernel", "1100", "10", R"({"correlation": 5})", "0", "99");
  auto x = read(t.str());
  EXPECT_EQ(x.kind(1), traceprism::index::EventKind::kCudaRuntime);
  EXPECT_EQ(x.category(1), "xpu_runtime");
  auto links = LaunchLinks::build(x);
  EXPECT_EQ(links.launcher(2), 1);
}

// With flows in the trace, a launch needs both halves of its own flow (reference parity).
TEST(LaunchLinks, WithFlowsALaunchWithoutItsFlowStaysUnlinked) {
  traceprism::testing::TraceText t;
  t.launch("aten::mm", 100, 20, "k_with_flow", 130, 10, 7, 10);
  t.x("cuda_runtime", "cudaLaunchKernel", "200", "5", R"({"correlation": 11})");
  t.x("kernel", "k_without_flow", "220", "10", R"({"correlation": 11, "stream": 7})", "0", "7");
  auto x = read(t.str());
  auto links = LaunchLinks::build(x);
  EXPECT_FALSE(links.flowless());
  EXPECT_TRUE(links.linked(2));
  EXPECT_FALSE(links.linked(6));
}

// The link key falls back to External id when the first launch call has no correlation.
TEST(LaunchLinks, ExternalIdKeyWhenLaunchesLackCorrelation) {
  traceprism::testing::TraceText t;
  t.x("cuda_runtime", "cudaLaunchKernel", "100", "5", R"({"External id": 100})");
  t.x("kernel", "k", "120", "10", R"({"External id": 100, "stream": 7})", "0", "7");
  t.event(
      R"({"ph": "s", "id": 100, "pid": 0, "tid": 7, "ts": 120, "cat": "ac2g", "name": "ac2g"})");
  t.event(
      R"({"ph": "f", "id": 100, "pid": 0, "tid": 7, "ts": 120, "cat": "ac2g", "name": "ac2g", "bp": "e"})");
  auto x = read(t.str());
  auto links = LaunchLinks::build(x);
  EXPECT_EQ(links.key(), LaunchLinks::Key::kExternalId);
  EXPECT_EQ(links.launcher(1), 0);
}

// Calls that share one correlation id (merged or hand-made traces) each used to list every GPU
// event of the id: N x M work and memory. A GPU event has one launcher, the last call.
TEST(LaunchLinks, CallsSharingAnIdWithoutFlowsLinkTheirGpuEventsToTheLastCall) {
  traceprism::testing::TraceText t;
  for (int i = 0; i < 3; ++i) {
    t.x("cuda_runtime", "cudaLaunchKernel", std::to_string(100 + 10 * i), "2",
        R"({"correlation": 7})");
    t.x("kernel", "k", std::to_string(105 + 10 * i), "3", R"({"correlation": 7, "stream": 7})", "0",
        "7");
  }
  auto x = read(t.str());
  auto links = LaunchLinks::build(x);
  ASSERT_TRUE(links.flowless());
  for (traceprism::index::Row kernel : {1u, 3u, 5u}) EXPECT_EQ(links.launcher(kernel), 4);
  EXPECT_TRUE(links.launched(0).empty());
  EXPECT_TRUE(links.launched(2).empty());
  const std::vector<traceprism::index::Row> last(links.launched(4).begin(),
                                                 links.launched(4).end());
  EXPECT_EQ(last, (std::vector<traceprism::index::Row>{1, 3, 5}));
  EXPECT_EQ(links.linked_count(), 3u);
}

// With flows, every call of a shared id points at the same target; it is listed once.
TEST(LaunchLinks, CallsSharingAFlowIdListTheirTargetOnce) {
  traceprism::testing::TraceText t;
  for (int i = 0; i < 3; ++i) {
    const std::string host_ts = std::to_string(100 + 10 * i);
    const std::string gpu_ts = std::to_string(105 + 10 * i);
    t.x("cuda_runtime", "cudaLaunchKernel", host_ts, "2", R"({"correlation": 7})");
    t.x("kernel", "k", gpu_ts, "3", R"({"correlation": 7, "stream": 7})", "0", "7");
    t.flow(7, host_ts, gpu_ts, 7);
  }
  auto x = read(t.str());
  auto links = LaunchLinks::build(x);
  ASSERT_FALSE(links.flowless());
  // The reference's target: the last event of the id on the flow end's row.
  const traceprism::index::Row target = 9;
  EXPECT_EQ(links.launcher(target), 8);
  EXPECT_EQ(links.launched(8).size(), 1u);
  EXPECT_TRUE(links.launched(0).empty());
  EXPECT_TRUE(links.launched(4).empty());
  EXPECT_EQ(links.linked_count(), 1u);
}

// Graph launches sharing an id: the last one replays every GPU event of the id.
TEST(LaunchLinks, GraphLaunchesSharingAnIdLinkToTheLastLaunch) {
  traceprism::testing::TraceText t;
  t.x("cuda_runtime", "cudaGraphLaunch", "100", "2", R"({"correlation": 9})");
  t.x("cuda_runtime", "cudaGraphLaunch", "110", "2", R"({"correlation": 9})");
  t.x("kernel", "a", "120", "3", R"({"correlation": 9, "stream": 7})", "0", "7");
  t.x("kernel", "b", "125", "3", R"({"correlation": 9, "stream": 7})", "0", "7");
  t.flow(99, "300", "300", 7);
  auto x = read(t.str());
  auto links = LaunchLinks::build(x);
  EXPECT_EQ(links.graph_launches(), 2u);
  EXPECT_TRUE(links.launched(0).empty());
  EXPECT_EQ(links.launched(1).size(), 2u);
  EXPECT_EQ(links.launcher(2), 1);
  EXPECT_EQ(links.launcher(3), 1);
}

}  // namespace
