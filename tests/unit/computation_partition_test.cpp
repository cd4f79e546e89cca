#include "model/computation_partition.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "ingest/trace_reader.hpp"
#include "model/gpu_timeline.hpp"
#include "support/temp_dir.hpp"
#include "support/trace_builder.hpp"

using traceprism::model::KernelBucket;

namespace {

// A GPU event on `stream`, launched by a cudaLaunchKernel at ts - 5.
void launched(traceprism::testing::TraceText& t, const std::string& cat, const std::string& name,
              double ts, double dur, int stream, int correlation) {
  auto num = [](double v) { return std::to_string(v); };
  t.x("cuda_runtime", "cudaLaunchKernel", num(ts - 5), "1",
      "{\"correlation\":" + std::to_string(correlation) + "}");
  t.x(cat, name, num(ts), num(dur),
      "{\"correlation\":" + std::to_string(correlation) + ",\"stream\":" + std::to_string(stream) +
          ",\"device\":0}",
      "0", std::to_string(stream));
  t.flow(correlation, num(ts - 5), num(ts), stream);
}

traceprism::index::Row row_named(const traceprism::index::EventIndex& index,
                                 std::string_view name) {
  for (traceprism::index::Row r = 0; r < index.size(); ++r)
    if (index.name(r) == name) return r;
  ADD_FAILURE() << "no event " << name;
  return 0;
}

// Two streams overlap: each overlapped microsecond goes to the kernel that started first, so
// the buckets sum to the computation union (the timeline's computation time), not to the
// kernels' summed durations. Communication and copies are not computation.
TEST(ComputationPartition, OverlapGoesToTheEarlierKernelAndSumsToComputation) {
  traceprism::testing::TraceText t;
  launched(t, "kernel", "gemm_a", 100, 50, 7, 1);                 // 100..150 bucket 0
  launched(t, "kernel", "softmax_b", 120, 60, 8, 2);              // 120..180 bucket 1: 150..180 new
  launched(t, "kernel", "elementwise_c", 130, 10, 9, 3);          // inside both: nothing new
  launched(t, "kernel", "ncclKernel_AllReduce", 200, 40, 10, 4);  // communication
  launched(t, "gpu_memcpy", "Memcpy DtoD (Device -> Device)", 250, 20, 7, 5);
  launched(t, "kernel", "no_op_kernel", 300, 5, 7, 6);  // no bucket
  traceprism::testing::TempDir dir;
  const auto index = traceprism::ingest::read_trace(dir.write("t.json", t.str())).index;
  const auto links = traceprism::model::LaunchLinks::build(index);
  std::vector<KernelBucket> buckets = {{row_named(index, "gemm_a"), 0},
                                       {row_named(index, "softmax_b"), 1},
                                       {row_named(index, "elementwise_c"), 1}};
  std::sort(buckets.begin(), buckets.end(),
            [](const auto& a, const auto& b) { return a.kernel < b.kernel; });
  const auto p = traceprism::model::partition_computation(index, links, false, buckets, 2);
  ASSERT_EQ(p.bucket_us.size(), 2u);
  EXPECT_NEAR(p.bucket_us[0], 50, 1e-9);
  EXPECT_NEAR(p.bucket_us[1], 30, 1e-9);
  EXPECT_NEAR(p.unbucketed_us, 5, 1e-9);
  EXPECT_NEAR(p.total_us(), 85, 1e-9);
  EXPECT_NEAR(p.total_us(), traceprism::model::compute_gpu_timeline(index, links).computation_us,
              1e-9);
}

}  // namespace
