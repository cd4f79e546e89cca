// The comm analyzer (plugins/comm, diagnosis.md §4) on the SDK's fake host: per-type figures,
// counts per step, the material-exposure gate, the action aimed at the type holding the exposed
// time (each sentence only when its precondition holds), the skew statement and the impact
// bound. Expected numbers are worked out by hand from the intervals each test lays out.
//
// The analyzer's sources are compiled into this test.
#include <gtest/gtest.h>

#include <traceprism/testing.hpp>

#include <cmath>
#include <string>

#include "../../plugins/comm/collective_stats.cpp"
#include "../../plugins/comm/comm_advice.cpp"
#include "../../plugins/comm/comm_analyzer.cpp"
#include "../../plugins/comm/reference_figures.cpp"

namespace {

using traceprism::GpuClass;
using traceprism::kNoRow;
using traceprism::Row;
using traceprism::testing::FakeTrace;
using traceprism::testing::Finding;
using traceprism::testing::RunResult;

constexpr const char* kAllReduceLL = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(x)";
constexpr const char* kAllReduceSimple = "ncclDevKernel_AllReduce_Sum_bf16_RING_SIMPLE(x)";

// A trace whose GPU events all have a launch (the timeline's event set), times in µs.
class Trace {
 public:
  Row step(int n, double ts, double dur) {
    return t_.user_annotation("ProfilerStep#" + std::to_string(n), ts, dur);
  }
  Row op(const std::string& name, double ts, double dur, Row parent = kNoRow) {
    return t_.cpu_op(name, ts, dur).parent(parent);
  }
  // A computation kernel on stream 7, launched just before it.
  Row compute(double ts, double dur) {
    return gpu("gemm_kernel", ts, dur, ts, 7, kNoRow, GpuClass::kComputation);
  }
  // A collective on `stream`, launched at `launch_ts` under `parent`; communication whatever
  // the name (the fake host knows only nccl/rccl).
  Row collective(const std::string& name, double ts, double dur, double launch_ts,
                 Row parent = kNoRow, int stream = 9) {
    return gpu(name, ts, dur, launch_ts, stream, parent, GpuClass::kCommunication);
  }
  void training() { t_.cpu_op("autograd::engine::evaluate_function: MmBackward0", 0, 1); }
  // The message args of an op or kernel (record_param_comms; NCCL kernels in PyTorch 2.x).
  void message(Row row, std::int64_t nelems, const std::string& dtype) {
    t_.set_comm_args(row, nelems, nelems, 8, dtype, "allreduce");
  }
  RunResult run() {
    return traceprism::testing::run<traceprism::plugins::comm::CommAnalyzer>(t_, "comm");
  }

 private:
  Row gpu(const std::string& name, double ts, double dur, double launch_ts, int stream, Row parent,
          GpuClass gpu_class) {
    const Row launch = t_.runtime("cudaLaunchKernel", launch_ts - 1, 1).parent(parent);
    return t_.kernel(name, ts, dur).launcher(launch).stream(stream).gpu_class(gpu_class);
  }

  FakeTrace t_;
};

const Finding* exposed_comm(const RunResult& r) {
  for (const Finding& f : r.findings)
    if (f.key == "exposed-comm") return &f;
  return nullptr;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// SendRecv [1000, 1200] and AllToAll [1200, 1300] between two computation kernels [0, 1000] and
// [1300, 2000]: 300 µs exposed of a 2000 µs window (15 %); both types are material (>= 2 %).
TEST(CommAnalyzer, ExchangeDominantGetsTheExchangeAction) {
  Trace t;
  t.compute(0, 1000);
  t.collective("ncclDevKernel_SendRecv(x)", 1000, 200, 990);
  t.collective("ncclKernel_AllToAllPivot_RING_SIMPLE_Sum_int8_t(x)", 1200, 100, 995);
  t.compute(1300, 700);
  const RunResult r = t.run();
  ASSERT_EQ(r.status, traceprism::Status::kOk) << r.error;
  const Finding* f = exposed_comm(r);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->cause, "exposed_comm");
  EXPECT_EQ(f->category, "comm");
  EXPECT_EQ(f->title, "Exposed communication: 15.0% of E2E (0.30 ms), led by SendRecv");
  EXPECT_TRUE(has(f->action, "embedding-sharded, expert-parallel (MoE) or pipeline-parallel"));
  EXPECT_TRUE(has(f->action, "cannot show skew between ranks"));
  EXPECT_FALSE(has(f->action, "bucket"));
  // Both types addressed: 300 µs = 15 % of E2E; 30 / 50 / 70 % of it.
  EXPECT_NEAR(f->impact_low, 4.5, 1e-9);
  EXPECT_NEAR(f->impact_mid, 7.5, 1e-9);
  EXPECT_NEAR(f->impact_high, 10.5, 1e-9);
  EXPECT_NEAR(f->share_percent, 15.0, 1e-9);
  EXPECT_EQ(f->impact_kind, TRACEPRISM_IMPACT_HEURISTIC);
  EXPECT_EQ(r.figure("collectives.SendRecv.count"), 1.0);
  EXPECT_EQ(r.figure("collectives.SendRecv.exposed_us"), 200.0);
  EXPECT_EQ(r.figure("collectives.AllToAll.exposed_us"), 100.0);
  EXPECT_EQ(r.figure("collectives.AllToAll.protocol.SIMPLE"), 1.0);
  EXPECT_EQ(r.figure("collectives.steps"), 0.0);
  EXPECT_TRUE(has(f->insight, "no ProfilerStep annotation, so no count per step"));
  // The reference's figures are still recorded.
  EXPECT_EQ(r.figure("nccl_summary.total_count"), 2.0);
}

// Three steps of [s, s + 700] computation followed by ten 20 µs all-reduces on LL, in a
// training trace: 600 µs exposed of a 2945 µs window.
TEST(CommAnalyzer, ManySmallAllReducesPerStepGetBucketing) {
  Trace t;
  t.training();
  for (int s = 0; s < 3; ++s) {
    const double start = 1000.0 * s;
    t.step(s, start, 1000);
    t.compute(start, 700);
    for (int i = 0; i < 10; ++i)
      t.collective(kAllReduceLL, start + 700 + 25 * i, 20, start + 10 + i);
  }
  const RunResult r = t.run();
  const Finding* f = exposed_comm(r);
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(has(f->action,
                  "The 10 all-reduces per step run mostly on NCCL's LL protocol (30 "
                  "of 30)"));
  EXPECT_TRUE(has(f->action, "bucket_cap_mb"));
  EXPECT_TRUE(has(f->insight, "10 per step over 3 steps"));
  EXPECT_EQ(r.figure("collectives.steps"), 3.0);
  EXPECT_EQ(r.figure("collectives.AllReduce.per_step"), 10.0);
  EXPECT_EQ(r.figure("collectives.AllReduce.per_step_min"), 10.0);
  EXPECT_EQ(r.figure("collectives.AllReduce.per_step_max"), 10.0);
  EXPECT_EQ(r.figure("collectives.AllReduce.protocol.LL"), 30.0);
  EXPECT_EQ(r.figure("collectives.AllReduce.algorithm.RING"), 30.0);
  EXPECT_EQ(r.figure("collectives.AllReduce.exposed_us"), 600.0);
  const double exposed_percent = 600.0 / 2945.0 * 100;
  EXPECT_NEAR(f->impact_mid, 0.5 * exposed_percent, 1e-9);
}

// diagnosis.md §4: message sizes from the args decide "small" where the trace gives them. Ten
// all-reduces per step on LL, as above, but each under a record_param_comms op of 6.5 M floats
// (26.2 MB): not small, so overlap rather than bucketing; the insight and table give the size.
TEST(CommAnalyzer, ManyAllReducesOfLargeMessagesGetOverlapNotBucketing) {
  Trace t;
  t.training();
  for (int s = 0; s < 3; ++s) {
    const double start = 1000.0 * s;
    t.step(s, start, 1000);
    t.compute(start, 700);
    for (int i = 0; i < 10; ++i) {
      const Row comms = t.op("record_param_comms", start + 9 + i, 1);
      t.message(comms, 6'553'600, "Float");
      t.collective(kAllReduceLL, start + 700 + 25 * i, 20, start + 10 + i, comms);
    }
  }
  const RunResult r = t.run();
  const Finding* f = exposed_comm(r);
  ASSERT_NE(f, nullptr);
  EXPECT_FALSE(has(f->action, "bucket_cap_mb")) << f->action;
  EXPECT_TRUE(has(f->action, "Overlap the all-reduces with compute")) << f->action;
  EXPECT_TRUE(has(f->insight, "median message 26.2 MB")) << f->insight;
  ASSERT_FALSE(f->tables.empty());
  EXPECT_EQ(f->tables[0].columns.back(), "Median message");
  EXPECT_EQ(f->tables[0].rows[0].back(), "26.2 MB");
}

// Ten all-reduces per step on SIMPLE whose kernels carry 16 K BFloat16 elements (32.8 KB):
// small messages, so bucketing, whatever the protocol says.
TEST(CommAnalyzer, ManySmallMessagesGetBucketingWhateverTheProtocol) {
  Trace t;
  t.training();
  for (int s = 0; s < 3; ++s) {
    const double start = 1000.0 * s;
    t.step(s, start, 1000);
    t.compute(start, 700);
    for (int i = 0; i < 10; ++i)
      t.message(t.collective(kAllReduceSimple, start + 700 + 25 * i, 20, start + 10 + i), 16'384,
                "BFloat16");
  }
  const RunResult r = t.run();
  const Finding* f = exposed_comm(r);
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(has(f->insight, "median message 32.8 KB")) << f->insight;
  EXPECT_TRUE(has(f->action, "The 10 all-reduces per step move 32.8 KB each (median message)"))
      << f->action;
  EXPECT_TRUE(has(f->action, "bucket_cap_mb")) << f->action;
}

// Two long all-reduces on SIMPLE, no backward op, no step: no bucketing and no DDP advice.
TEST(CommAnalyzer, FewLargeAllReducesInInferenceGetOverlapNotBucketing) {
  Trace t;
  t.compute(0, 1000);
  t.collective(kAllReduceSimple, 1000, 300, 900);
  t.collective(kAllReduceSimple, 1300, 300, 950);
  const RunResult r = t.run();
  const Finding* f = exposed_comm(r);
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(has(f->action, "independent compute"));
  EXPECT_FALSE(has(f->action, "bucket"));
  EXPECT_FALSE(has(f->action, "DDP"));
  EXPECT_TRUE(has(f->action, "cannot show skew between ranks"));
}

// One step; a training trace whose exposed time is all-gather: FSDP prefetch, said plainly
// that the trace has one step.
TEST(CommAnalyzer, ExposedAllGatherInTrainingGetsPrefetch) {
  Trace t;
  t.training();
  t.step(7, 0, 5000);
  t.compute(0, 1000);
  t.collective("ncclDevKernel_AllGather_RING_SIMPLE(x)", 1000, 1000, 100);
  t.collective("ncclDevKernel_AllGather_RING_SIMPLE(x)", 2000, 500, 200);
  const RunResult r = t.run();
  const Finding* f = exposed_comm(r);
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(has(f->action, "forward_prefetch=True"));
  EXPECT_FALSE(has(f->action, "bucket_cap_mb"));
  EXPECT_TRUE(has(f->insight, "all in the trace's one step (ProfilerStep#7)"));
  EXPECT_EQ(r.figure("collectives.AllGather.per_step"), 2.0);
  EXPECT_EQ(f->severity, traceprism::Severity::kCritical);  // 1500 of 2500 µs: 60 % of E2E
}

// 10 µs exposed of a 1010 µs window (0.99 %): figures, no finding.
TEST(CommAnalyzer, ImmaterialExposureGivesNoFinding) {
  Trace t;
  t.compute(0, 1000);
  t.collective(kAllReduceSimple, 1000, 10, 900);
  const RunResult r = t.run();
  EXPECT_EQ(exposed_comm(r), nullptr);
  EXPECT_TRUE(r.findings.empty());
  EXPECT_EQ(r.figure("collectives.AllReduce.count"), 1.0);
  EXPECT_EQ(r.figure("collectives.AllReduce.exposed_us"), 10.0);
}

// An all-reduce and an all-gather at the same time on two streams, both fully exposed: each
// type's exposed time is 400 µs, the timeline's 400 µs (28.6 % of 1400): the impact is bounded by
// the latter, not by their sum.
TEST(CommAnalyzer, ImpactNeverExceedsTheExposedTime) {
  Trace t;
  t.compute(0, 1000);
  t.collective(kAllReduceSimple, 1000, 400, 900, kNoRow, 9);
  t.collective("ncclDevKernel_AllGather_RING_SIMPLE(x)", 1000, 400, 950, kNoRow, 11);
  const RunResult r = t.run();
  const Finding* f = exposed_comm(r);
  ASSERT_NE(f, nullptr);
  const double exposed_percent = 400.0 / 1400.0 * 100;
  EXPECT_NEAR(f->share_percent, exposed_percent, 1e-9);
  EXPECT_NEAR(f->impact_high, 0.7 * exposed_percent, 1e-9);
  EXPECT_LE(f->impact_high, f->share_percent);
}

// A generic NCCL kernel takes its type from the collective op above its launch; a multimem
// all-reduce is an all-reduce on the MULTIMEM algorithm.
TEST(CommAnalyzer, GenericAndNonNcclKernelsAreTyped) {
  Trace t;
  t.compute(0, 1000);
  const Row c10d = t.op("c10d::allgather_", 850, 100);
  const Row comms = t.op("record_param_comms", 860, 80, c10d);
  t.collective("ncclDevKernel_Generic_4(ncclDevKernelArgsStorage<4096ul>)", 1000, 100, 900, comms);
  t.collective("void c10d::symmetric_memory::multimem_all_reduce_kernel<float, 4, 16>()", 1100, 100,
               960);
  const RunResult r = t.run();
  EXPECT_EQ(r.figure("collectives.AllGather.count"), 1.0);
  EXPECT_TRUE(std::isnan(r.figure("collectives.Unknown.count")));
  EXPECT_EQ(r.figure("collectives.AllReduce.algorithm.MULTIMEM"), 1.0);
  const Finding* f = exposed_comm(r);
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(f->tables.size(), 2u);
  EXPECT_EQ(f->tables[0].title, "Collectives by type");
  ASSERT_EQ(f->tables[0].rows.size(), 2u);
  EXPECT_EQ(f->tables[0].rows[0][0], "AllReduce");  // report order, not exposed order
  EXPECT_EQ(f->tables[0].rows[0][8], "MULTIMEM");
  EXPECT_EQ(f->tables[0].rows[1][0], "AllGather");
}

// A generic kernel launched under no collective op: its type stays unknown, and the action says
// so instead of guessing one.
TEST(CommAnalyzer, UntypedGenericKernelsAreSaidToBeUntyped) {
  Trace t;
  t.compute(0, 1000);
  t.collective("ncclDevKernel_Generic_4(ncclDevKernelArgsStorage<4096ul>)", 1000, 100, 900);
  const RunResult r = t.run();
  EXPECT_EQ(r.figure("collectives.Unknown.count"), 1.0);
  const Finding* f = exposed_comm(r);
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(has(f->title, "led by collectives of unknown type"));
  EXPECT_TRUE(has(f->action, "names do not say which collective"));
  EXPECT_FALSE(has(f->action, "DDP"));
}

// Broadcasts in every one of two training steps: DDP's buffer broadcast; in one step only, not.
TEST(CommAnalyzer, BroadcastInEveryStepOfTrainingNamesBroadcastBuffers) {
  for (int steps_with_broadcast : {2, 1}) {
    Trace t;
    t.training();
    for (int s = 0; s < 2; ++s) {
      const double start = 1000.0 * s;
      t.step(s, start, 1000);
      t.compute(start + 200, 600);
      if (s < steps_with_broadcast)
        t.collective("ncclKernel_Broadcast_RING_LL_Sum_int8_t(x)", start + 800, 150, start + 5);
    }
    const RunResult r = t.run();
    const Finding* f = exposed_comm(r);
    ASSERT_NE(f, nullptr) << steps_with_broadcast;
    EXPECT_EQ(has(f->action, "broadcast_buffers=False"), steps_with_broadcast == 2) << f->action;
  }
}

}  // namespace
