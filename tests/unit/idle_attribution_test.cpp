#include "model/idle_attribution.hpp"

#include <gtest/gtest.h>

#include "ingest/trace_reader.hpp"
#include "model/call_tree.hpp"
#include "model/profiler_steps.hpp"
#include "support/temp_dir.hpp"
#include "support/trace_builder.hpp"

using traceprism::model::IdleAttribution;
using traceprism::model::IdleCause;
using traceprism::model::IdlePart;

namespace {

struct Attributed {
  traceprism::index::EventIndex index;
  traceprism::model::LaunchLinks links;
  IdleAttribution idle;
};

Attributed attribute(const traceprism::testing::TraceText& t) {
  traceprism::testing::TempDir dir;
  Attributed a{traceprism::ingest::read_trace(dir.write("t.json", t.str())).index, {}, {}};
  a.links = traceprism::model::LaunchLinks::build(a.index);
  const auto tree = traceprism::model::CallTree::build(a.index);
  a.idle = traceprism::model::attribute_idle({a.index, a.links, tree.parent_column()});
  return a;
}

std::int64_t idle_us(const IdleAttribution& a, IdleCause c) {
  return a.idle_ns[static_cast<std::size_t>(c)] / 1000;
}

// A kernel launched by `call` (cudaLaunchKernel or another runtime name) at `call_ts`.
void launched(traceprism::testing::TraceText& t, const std::string& call, double call_ts,
              double call_dur, const std::string& cat, const std::string& gpu_name, double gpu_ts,
              double gpu_dur, int correlation) {
  auto num = [](double v) { return std::to_string(v); };
  t.x("cuda_runtime", call, num(call_ts), num(call_dur),
      "{\"correlation\":" + std::to_string(correlation) + "}");
  t.x(cat, gpu_name, num(gpu_ts), num(gpu_dur),
      "{\"correlation\":" + std::to_string(correlation) + ",\"stream\":7,\"device\":0}", "0", "7");
  t.flow(correlation, num(call_ts), num(gpu_ts), 7);
}

// The GPU waits 5 ms while the host is inside the DataLoader's __next__: those microseconds
// are the DataLoader's, with the annotation as holder; the rest of the gap goes elsewhere.
TEST(IdleAttribution, DataLoaderAnnotationHoldsTheGap) {
  traceprism::testing::TraceText t;
  t.x("cpu_op", "aten::mm", "90", "20");
  launched(t, "cudaLaunchKernel", 95, 1, "kernel", "k1", 100, 10, 1);
  t.x("user_annotation", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", "120",
      "5000");
  t.x("python_function", "torch/utils/data/dataloader.py(631): __next__", "121", "4998");
  t.x("cpu_op", "aten::mm", "5125", "20");
  launched(t, "cudaLaunchKernel", 5130, 1, "kernel", "k2", 5140, 10, 2);
  const Attributed a = attribute(t);
  ASSERT_EQ(a.idle.gaps.size(), 1u);
  EXPECT_EQ(a.idle.gaps[0].dur_ns, 5030'000);
  EXPECT_EQ(idle_us(a.idle, IdleCause::kDataloader), 5000);
  EXPECT_EQ(a.idle.idle_total_ns(), a.idle.gaps[0].dur_ns);
  bool named = false;
  for (std::size_t i = 0; i < a.idle.parts.size(); ++i)
    if (const IdlePart p = a.idle.parts[i]; p.cause == IdleCause::kDataloader)
      named = a.index.name(static_cast<traceprism::index::Row>(p.holder)) ==
              "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__";
  EXPECT_TRUE(named);
  // Before the annotation the thread holds nothing: untraced.
  EXPECT_EQ(idle_us(a.idle, IdleCause::kUntraced), 10 + 5);
}

// .item(): the host sits in cudaMemcpyAsync until the GPU has drained, and the copy runs at
// the end of the call. The gap is the scalar read's, named by the outermost copy op.
TEST(IdleAttribution, ScalarReadIsABlockingCopy) {
  traceprism::testing::TraceText t;
  t.x("cpu_op", "aten::mm", "90", "20");
  launched(t, "cudaLaunchKernel", 95, 1, "kernel", "k1", 100, 110, 1);
  t.x("cpu_op", "aten::item", "150", "1100");
  t.x("cpu_op", "aten::_local_scalar_dense", "151", "1098");
  launched(t, "cudaMemcpyAsync", 152, 1096, "gpu_memcpy", "Memcpy DtoH (Device -> Pageable)", 1240,
           2, 2);
  const Attributed a = attribute(t);
  ASSERT_EQ(a.idle.gaps.size(), 1u);
  EXPECT_EQ(a.idle.gaps[0].dur_ns, 1030'000);  // 210 .. 1240
  EXPECT_EQ(idle_us(a.idle, IdleCause::kBlockingCopy), 1030);
  ASSERT_EQ(a.idle.parts.size(), 1u);
  EXPECT_EQ(a.index.name(static_cast<traceprism::index::Row>(a.idle.parts[0].holder)),
            "aten::item");
}

// Work queued long before the gap: the GPU waited on something else, not on the host.
TEST(IdleAttribution, QueuedWorkIsADependency) {
  traceprism::testing::TraceText t;
  t.x("cpu_op", "aten::mm", "10", "20");
  launched(t, "cudaLaunchKernel", 12, 2, "kernel", "k1", 100, 10, 1);
  launched(t, "cudaLaunchKernel", 20, 2, "kernel", "k2", 400, 10, 2);
  const Attributed a = attribute(t);
  ASSERT_EQ(a.idle.gaps.size(), 1u);
  EXPECT_EQ(idle_us(a.idle, IdleCause::kDependency), 290);
  EXPECT_EQ(a.idle.idle_total_ns(), 290'000);
}

// The launching thread holds nothing, another thread waits in a synchronize: the sync's.
TEST(IdleAttribution, OtherThreadsSynchronizeCounts) {
  traceprism::testing::TraceText t;
  t.x("cpu_op", "aten::mm", "90", "20");
  launched(t, "cudaLaunchKernel", 95, 1, "kernel", "k1", 100, 10, 1);
  t.x("cuda_runtime", "cudaStreamSynchronize", "105", "900", "{}", "100", "200");
  launched(t, "cudaLaunchKernel", 1010, 1, "kernel", "k2", 1012, 10, 2);
  const Attributed a = attribute(t);
  ASSERT_EQ(a.idle.gaps.size(), 1u);
  EXPECT_EQ(idle_us(a.idle, IdleCause::kSync), 1005 - 110);
  EXPECT_EQ(a.idle.idle_total_ns(), a.idle.gaps[0].dur_ns);
}

// One thread's stack judged change by change: a synchronize's cause ends when it returns, and
// the frames around it are judged again as they were before it (the judge keeps what it read
// of the outer frames between changes, never what it read of the popped ones).
TEST(IdleAttribution, AnInnerCallsCauseEndsWhenItReturns) {
  traceprism::testing::TraceText t;
  t.x("cpu_op", "aten::mm", "90", "20");
  launched(t, "cudaLaunchKernel", 95, 1, "kernel", "k1", 100, 10, 1);
  t.x("python_function", "train.py(10): step", "120", "900");
  t.x("python_function", "train.py(20): log", "200", "100");
  t.x("cuda_runtime", "cudaStreamSynchronize", "210", "50");
  t.x("python_function", "train.py(30): metrics", "400", "200");
  t.x("cpu_op", "aten::add", "1000", "19");
  launched(t, "cudaLaunchKernel", 1005, 1, "kernel", "k2", 1010, 10, 2);
  const Attributed a = attribute(t);
  ASSERT_EQ(a.idle.gaps.size(), 1u);
  EXPECT_EQ(idle_us(a.idle, IdleCause::kSync), 50);
  // 120..210 and 260..1000 in python frames alone.
  EXPECT_EQ(idle_us(a.idle, IdleCause::kHostCompute), 90 + 740);
  EXPECT_EQ(a.idle.idle_total_ns(), a.idle.gaps[0].dur_ns);
  std::vector<std::string> frames;
  for (std::size_t i = 0; i < a.idle.parts.size(); ++i)
    if (const IdlePart p = a.idle.parts[i]; p.cause == IdleCause::kHostCompute)
      frames.emplace_back(a.index.name(static_cast<traceprism::index::Row>(p.frame)));
  EXPECT_EQ(frames, (std::vector<std::string>{"train.py(10): step", "train.py(20): log",
                                              "train.py(20): log", "train.py(10): step",
                                              "train.py(30): metrics", "train.py(10): step"}));
}

// Steps: each step's idle and busy time partition its part of the window.
TEST(IdleAttribution, StepsSplitTheWindow) {
  traceprism::testing::TraceText t;
  t.x("user_annotation", "ProfilerStep#1", "0", "500");
  t.x("user_annotation", "ProfilerStep#2", "500", "1000");
  t.x("cpu_op", "aten::mm", "90", "20");
  launched(t, "cudaLaunchKernel", 95, 1, "kernel", "k1", 100, 100, 1);
  t.x("cpu_op", "aten::add", "690", "20");
  launched(t, "cudaLaunchKernel", 700, 1, "kernel", "k2", 705, 100, 2);
  const Attributed a = attribute(t);
  const auto steps = traceprism::model::profiler_steps(a.index, a.links, a.idle);
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].idle_ns + steps[1].idle_ns, a.idle.idle_total_ns());
  EXPECT_EQ(steps[0].gpu_busy_ns + steps[0].idle_ns, (500 - 100) * 1000);  // window from 100
  EXPECT_EQ(steps[1].gpu_busy_ns + steps[1].idle_ns, (805 - 500) * 1000);  // window to 805
  std::int64_t by_cause = 0;
  for (auto ns : steps[1].idle_by_cause_ns) by_cause += ns;
  EXPECT_EQ(by_cause, steps[1].idle_ns);
}

// A serving step (no ProfilerStep#N): its GPU figures are over the span of the GPU work its
// host range launched, which runs after the range when the engine launches asynchronously.
TEST(IdleAttribution, ServingStepsTakeTheGpuWorkTheyLaunched) {
  traceprism::testing::TraceText t;
  t.x("user_annotation", "step[DECODE bs=8]", "0", "50");
  t.x("user_annotation", "step[EXTEND bs=2 toks=512]", "1000", "50");
  launched(t, "cudaLaunchKernel", 10, 1, "kernel", "k1", 100, 300, 1);
  launched(t, "cudaLaunchKernel", 20, 1, "kernel", "k2", 600, 200, 2);
  launched(t, "cudaLaunchKernel", 1010, 1, "kernel", "k3", 1100, 100, 3);
  const Attributed a = attribute(t);
  const auto steps = traceprism::model::profiler_steps(a.index, a.links, a.idle);
  ASSERT_EQ(steps.size(), 2u);
  ASSERT_TRUE(steps[0].serving.has_value());
  EXPECT_EQ(steps[0].serving->generation_requests, 8);
  EXPECT_EQ(steps[0].gpu_start_ns, 100'000);
  EXPECT_EQ(steps[0].gpu_end_ns, 800'000);
  EXPECT_EQ(steps[0].gpu_busy_ns, 500'000);  // k1 and k2; the 200 µs between them idle
  EXPECT_EQ(steps[0].idle_ns, 200'000);
  EXPECT_EQ(steps[1].serving->c_sq, 512);
  EXPECT_EQ(steps[1].gpu_start_ns, 1'100'000);
  EXPECT_EQ(steps[1].gpu_busy_ns, 100'000);
}

// HTA's queue length: +1 at each launch call's start, -1 at each GPU operation's end, sampled at
// every change. Launch calls out of order (55 then 52) and a completion and a launch at the same
// instant (30: completions first) are counted as the reference orders them.
TEST(IdleAttribution, QueueLengthCountsCompletionsBeforeLaunchesAtOneInstant) {
  traceprism::testing::TraceText t;
  launched(t, "cudaLaunchKernel", 0, 1, "kernel", "k1", 10, 10, 1);
  launched(t, "cudaLaunchKernel", 1, 1, "kernel", "k2", 20, 10, 2);
  launched(t, "cudaLaunchKernel", 2, 1, "kernel", "k3", 30, 10, 3);
  launched(t, "cudaLaunchKernel", 30, 1, "kernel", "k4", 45, 5, 4);
  launched(t, "cudaLaunchKernel", 55, 1, "kernel", "k5", 60, 5, 5);
  launched(t, "cudaLaunchKernel", 52, 1, "kernel", "k6", 70, 5, 6);
  const Attributed a = attribute(t);
  ASSERT_EQ(a.idle.queues.size(), 1u);
  EXPECT_EQ(a.idle.queues[0].device, 0);
  EXPECT_EQ(a.idle.queues[0].stream, 7);
  // Changes in time order: +1@0 +1@1 +1@2 -1@20 -1@30 +1@30 -1@40 -1@50 +1@52 +1@55 -1@65
  // -1@75; lengths 1 2 3 2 1 2 1 0 1 2 1 0.
  EXPECT_DOUBLE_EQ(a.idle.queues[0].mean, 16.0 / 12.0);
  EXPECT_EQ(a.idle.queues[0].max, 3u);
}

}  // namespace
