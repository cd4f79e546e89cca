// model::collective_figures (findings.json diagnosis.collectives) and the GPU timeline's
// communication on small hand-built traces: non-NCCL collectives count as communication, types
// come from kernel names, generic NCCL kernels from the innermost collective op around their
// launch. Expected times are worked out by hand from the intervals below.
#include "model/collectives.hpp"

#include <gtest/gtest.h>

#include "ingest/trace_reader.hpp"
#include "model/gpu_timeline.hpp"
#include "support/temp_dir.hpp"
#include "support/trace_builder.hpp"

using traceprism::model::CollectiveFigures;
using traceprism::model::LaunchLinks;

namespace {

traceprism::index::EventIndex read(const std::string& text) {
  traceprism::testing::TempDir dir;
  return traceprism::ingest::read_trace(dir.write("t.json", text)).index;
}

void expect_figures(const CollectiveFigures& f, const char* type, std::uint64_t count,
                    double time_us, double exposed_us) {
  EXPECT_EQ(f.type, type);
  EXPECT_EQ(f.count, count) << type;
  EXPECT_DOUBLE_EQ(f.time_us, time_us) << type;
  EXPECT_DOUBLE_EQ(f.exposed_us, exposed_us) << type;
}

// gemm [50, 150] on stream 7; a multimem all-reduce [130, 180] and an NCCL all-gather [200, 210]
// on stream 9; an all-gather without a launch (no flow), outside the timeline's event set.
traceprism::testing::TraceText mixed_trace() {
  traceprism::testing::TraceText t;
  t.launch("aten::mm", 0, 20, "gemm_kernel", 50, 100, 7, 1);
  t.launch("symm_mem::multimem_all_reduce_", 10, 20,
           "void c10d::symmetric_memory::multimem_all_reduce_kernel<float, 4, 16>(float*)", 130, 50,
           9, 2);
  t.launch("c10d::_allgather_base_", 30, 20, "ncclDevKernel_AllGather_RING_LL(x)", 200, 10, 9, 3);
  t.x("kernel", "ncclDevKernel_AllGather_RING_LL(x)", "300", "10",
      R"({"correlation": 99, "stream": 9, "device": 0})", "0", "9");
  return t;
}

TEST(GpuTimeline, MultimemAllReduceIsCommunication) {
  const auto index = read(mixed_trace().str());
  const auto links = LaunchLinks::build(index);
  const auto t = traceprism::model::compute_gpu_timeline(index, links);
  EXPECT_DOUBLE_EQ(t.computation_us, 100);
  EXPECT_DOUBLE_EQ(t.total_comm_us, 60);    // 50 + 10
  EXPECT_DOUBLE_EQ(t.exposed_comm_us, 40);  // 150..180 and 200..210
  EXPECT_DOUBLE_EQ(t.total_us, 160);        // 50..210
}

TEST(CollectiveFigures, TypesFromKernelNamesInReportOrder) {
  const auto index = read(mixed_trace().str());
  const auto figures = traceprism::model::collective_figures(index, LaunchLinks::build(index));
  ASSERT_EQ(figures.size(), 2u);
  expect_figures(figures[0], "AllReduce", 1, 50, 30);
  expect_figures(figures[1], "AllGather", 1, 10, 10);
}

TEST(CollectiveFigures, UnionWithinATypeAndExposedAgainstComputation) {
  traceprism::testing::TraceText t;
  t.launch("aten::mm", 0, 20, "gemm_kernel", 100, 50, 7, 1);  // [100, 150]
  // Two overlapping all-reduces on two streams: [90, 120] and [110, 160] -> union [90, 160].
  t.launch("c10d::allreduce_", 10, 20, "ncclKernel_AllReduce_RING_LL_Sum_float(x)", 90, 30, 9, 2);
  t.launch("c10d::allreduce_", 30, 20, "ncclKernel_AllReduce_RING_LL_Sum_float(x)", 110, 50, 11, 3);
  const auto index = read(t.str());
  const auto figures = traceprism::model::collective_figures(index, LaunchLinks::build(index));
  ASSERT_EQ(figures.size(), 1u);
  expect_figures(figures[0], "AllReduce", 2, 70, 20);  // exposed: 90..100 and 150..160
}

// ncclDevKernel_Generic names no type: the innermost op around the launch that names a
// collective decides; without one the type is Unknown.
TEST(CollectiveFigures, GenericKernelsTakeTheTypeOfTheirLaunchingOp) {
  const std::string generic = "ncclDevKernel_Generic_4(ncclDevKernelArgsStorage<4096ul>)";
  traceprism::testing::TraceText t;
  // record_param_comms [0, 40] launches at 5; nccl:all_reduce [2, 12] is the innermost op that
  // names a collective; the outer c10d::broadcast_ [0, 50] is there to lose against it.
  t.x("cpu_op", "c10d::broadcast_", "0", "50");
  t.launch("record_param_comms", 0, 40, generic, 100, 20, 9, 1);
  t.x("user_annotation", "nccl:all_reduce", "2", "10");
  t.launch("c10d::_allgather_base_", 100, 40, generic, 200, 10, 9, 2);
  t.launch("aten::copy_", 200, 40, generic, 300, 5, 9, 3);
  const auto index = read(t.str());
  const auto figures = traceprism::model::collective_figures(index, LaunchLinks::build(index));
  ASSERT_EQ(figures.size(), 3u);
  expect_figures(figures[0], "AllReduce", 1, 20, 20);
  expect_figures(figures[1], "AllGather", 1, 10, 10);
  expect_figures(figures[2], "Unknown", 1, 5, 5);
}

TEST(CollectiveFigures, NoCollectivesNoFigures) {
  traceprism::testing::TraceText t;
  t.launch("aten::mm", 0, 20, "gemm_kernel", 100, 50, 7, 1);
  const auto index = read(t.str());
  EXPECT_TRUE(traceprism::model::collective_figures(index, LaunchLinks::build(index)).empty());
}

}  // namespace
