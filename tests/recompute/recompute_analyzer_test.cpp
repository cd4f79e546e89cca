// The recompute analyzer on the SDK's fake host (diagnosis.md §6.3): forward ops rerun inside a
// checkpoint region of the backward pass are counted, each kernel once; gradient ops, the
// checkpointed block's first forward and traces without a backward pass or without a
// checkpoint region give nothing; the 2 % of computation threshold. Expected numbers are worked
// out by hand from the events each test builds.
#include "recompute/recompute_analyzer.hpp"

#include <gtest/gtest.h>

#include <traceprism/testing.hpp>

#include <string>
#include <vector>

namespace traceprism::plugins::recompute {
namespace {

using traceprism::testing::FakeTrace;
using traceprism::testing::Finding;
using traceprism::testing::RunResult;

constexpr std::uint32_t kMainThread = 0;
constexpr std::uint32_t kAutogradThread = 1;

// A trace built as nested host events: open() pushes an event under the current one, close()
// pops it; launch() adds a runtime call under the current event and the kernel it launches.
class Trace {
 public:
  Trace& open(Kind kind, const std::string& name, double ts, double dur) {
    const Row parent = stack_.empty() ? kNoRow : stack_.back();
    stack_.push_back(trace.add(kind, name, ts, dur).parent(parent).thread(thread_));
    return *this;
  }
  Trace& op(const std::string& name, double ts, double dur) {
    return open(Kind::kCpuOp, name, ts, dur);
  }
  Trace& frame(const std::string& name, double ts, double dur) {
    return open(Kind::kPythonFunction, name, ts, dur);
  }
  Trace& close(std::size_t n = 1) {
    for (std::size_t i = 0; i < n; ++i) stack_.pop_back();
    return *this;
  }
  // A kernel [ts, ts + dur) µs launched at ts - 5 under the current event.
  Trace& launch(const std::string& kernel, double ts, double dur, std::int32_t stream = 7) {
    const Row call = trace.runtime("cudaLaunchKernel", ts - 5, 2)
                         .parent(stack_.back())
                         .thread(thread_)
                         .correlation(next_);
    trace.kernel(kernel, ts, dur).launcher(call).correlation(next_++).stream(stream);
    return *this;
  }
  Trace& on_thread(std::uint32_t t) {
    thread_ = t;
    return *this;
  }
  RunResult run() const { return traceprism::testing::run<RecomputeAnalyzer>(trace, "recompute"); }

  FakeTrace trace;

 private:
  std::vector<Row> stack_;
  std::uint32_t thread_ = kMainThread;
  std::int64_t next_ = 1;
};

// One training step of a one-block model: forward (1000 µs of kernels, the block optionally
// under torch.utils.checkpoint), then the backward pass on the autograd thread: the block's
// gradient (addmm backward, 300 µs), optionally preceded by the checkpoint node that reruns the
// block's forward (linear 100 µs + gelu 20 µs) and backpropagates through it (mm 200 µs).
struct Step {
  bool checkpoint = true;
  bool backward = true;
  bool second_stream = false;  // the rerun gemm also launches a 30 µs kernel on stream 8 under it
};

Trace training_step(const Step& s) {
  Trace t;
  t.frame("train.py(10): step", 0, 5000);
  if (s.checkpoint) t.frame("torch/utils/checkpoint.py(489): checkpoint", 10, 1100);
  t.op("aten::linear", 20, 900).op("aten::addmm", 21, 890).launch("sm90_gemm_bf16", 30, 900);
  t.close(2).op("aten::gelu", 930, 100).launch("gelu_kernel", 950, 100).close();
  if (s.checkpoint) t.close();
  t.close();
  if (!s.backward) return t;
  t.on_thread(kAutogradThread);
  if (s.checkpoint) {
    t.op("autograd::engine::evaluate_function: CheckpointFunctionBackward", 2000, 1000)
        .op("CheckpointFunctionBackward", 2001, 998)
        .frame("torch/utils/checkpoint.py(288): backward", 2002, 996);
    // The rerun of the block's forward.
    t.op("aten::linear", 2010, 200)
        .op("aten::addmm", 2011, 198)
        .launch("sm90_gemm_bf16", 2020, 100);
    if (s.second_stream) t.launch("splitk_reduce", 2050, 30, 8);
    t.close(2).op("aten::gelu", 2130, 40).launch("gelu_kernel", 2140, 20).close();
    // Backpropagation through the rerun block: gradient ops, not recompute.
    t.frame("torch/autograd/__init__.py(267): backward", 2200, 700)
        .op("autograd::engine::evaluate_function: AddmmBackward0", 2210, 600)
        .op("AddmmBackward0", 2211, 598)
        .op("aten::mm", 2212, 590)
        .launch("sm90_gemm_bf16", 2220, 200)
        .close(4);
    t.op("aten::gelu_backward", 2500, 60).launch("gelu_backward_kernel", 2510, 40).close();
    t.close(3);
  }
  t.op("autograd::engine::evaluate_function: AddmmBackward0", 3100, 400)
      .op("AddmmBackward0", 3101, 398)
      .op("aten::mm", 3102, 390)
      .launch("sm90_gemm_bf16", 3110, 300)
      .close(3);
  return t;
}

const Finding* recompute_finding(const RunResult& r) {
  for (const Finding& f : r.findings)
    if (f.cause == "recompute") return &f;
  return nullptr;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(RecomputeAnalyzer, CountsTheForwardRerunUnderTheCheckpointNode) {
  const RunResult r = training_step({}).run();
  ASSERT_EQ(r.status, Status::kOk) << r.error;
  ASSERT_EQ(r.findings.size(), 1u);
  const Finding& f = r.findings.front();
  EXPECT_EQ(f.tier, Tier::kCompute);
  EXPECT_EQ(f.category, "recompute");
  EXPECT_EQ(f.cause, "recompute");
  // Rerun: gemm 100 µs + gelu 20 µs; not the first forward (900 + 100), not the gradient ops
  // under the checkpoint node (mm 200, gelu_backward 40) nor outside it (mm 300).
  EXPECT_DOUBLE_EQ(f.metric("recompute_us"), 120.0);
  EXPECT_DOUBLE_EQ(f.metric("kernel_count"), 2.0);
  EXPECT_DOUBLE_EQ(f.metric("region_count"), 1.0);
  // Computation: 900 + 100 + 100 + 20 + 200 + 40 + 300 = 1660 µs; the window 30 .. 3410 µs.
  EXPECT_NEAR(f.metric("percent_of_computation"), 120.0 / 1660 * 100, 0.01);
  EXPECT_NEAR(f.metric("percent_of_e2e"), 120.0 / 3380 * 100, 0.01);
  EXPECT_NEAR(f.impact_low, 120.0 / 3380 * 100 * 0.50, 1e-3);
  EXPECT_NEAR(f.impact_mid, 120.0 / 3380 * 100 * 0.75, 1e-3);
  EXPECT_NEAR(f.impact_high, 120.0 / 3380 * 100 * 0.95, 1e-3);
  // The gemm (100 µs) of the 120 µs: what a policy saving matrix outputs stops rerunning.
  EXPECT_NEAR(f.metric("matrix_attention_percent"), 100.0 / 120 * 100, 0.01);
  EXPECT_LE(f.impact_low, f.impact_mid);
  EXPECT_LE(f.impact_mid, f.impact_high);
  EXPECT_LE(f.impact_high, f.metric("percent_of_e2e"));
  EXPECT_TRUE(has(f.action, "selective activation checkpointing")) << f.action;
  EXPECT_TRUE(has(f.title, "recompute")) << f.title;
  // The table: one row per recomputed op, most GPU time first, the canonical compute columns.
  ASSERT_EQ(f.tables.size(), 1u);
  const auto& table = f.tables.front();
  ASSERT_EQ(table.columns.size(), 10u);
  EXPECT_EQ(table.columns[0], "Operation");
  EXPECT_EQ(table.columns[9], "Bound");
  ASSERT_EQ(table.rows.size(), 2u);
  EXPECT_EQ(table.rows[0][0], "aten::addmm");
  EXPECT_EQ(table.rows[0][2], "recomputed in aten::linear");
  EXPECT_EQ(table.rows[0][4], "0.1");  // ms
  EXPECT_EQ(table.rows[0][6], "1");    // calls
  EXPECT_EQ(table.rows[1][0], "aten::gelu");
  EXPECT_EQ(table.rows[1][2], "recomputed");
  EXPECT_EQ(table.rows[1][4], "0.02");
  EXPECT_EQ(f.rows.size(), 2u);  // the two recomputed kernels
}

TEST(RecomputeAnalyzer, NoCheckpointRegionNoFinding) {
  const RunResult r = training_step({.checkpoint = false}).run();
  ASSERT_EQ(r.status, Status::kOk) << r.error;
  EXPECT_EQ(recompute_finding(r), nullptr);
  EXPECT_EQ(r.figure("recompute.has_backward"), 1.0);
  EXPECT_EQ(r.figure("recompute.has_checkpoint"), 0.0);
  EXPECT_EQ(r.figure("recompute.kernel_count"), 0.0);
}

// The checkpointed block's first forward runs under torch/utils/checkpoint.py too: without a
// backward pass nothing is recomputed.
TEST(RecomputeAnalyzer, ForwardUnderCheckpointWithoutBackwardIsNoRecompute) {
  const RunResult r = training_step({.checkpoint = true, .backward = false}).run();
  ASSERT_EQ(r.status, Status::kOk) << r.error;
  EXPECT_EQ(recompute_finding(r), nullptr);
  EXPECT_EQ(r.figure("recompute.has_checkpoint"), 1.0);
  EXPECT_EQ(r.figure("recompute.has_backward"), 0.0);
  EXPECT_EQ(r.figure("recompute.kernel_count"), 0.0);
}

// Non-reentrant checkpointing: the gradient node unpacks a saved tensor, whose hook reruns the
// block's forward under torch/utils/checkpoint.py frames.
TEST(RecomputeAnalyzer, CountsTheRerunOfTheUnpackHook) {
  Trace t;
  t.frame("torch/utils/checkpoint.py(1500): checkpoint", 0, 500)
      .op("aten::gelu", 10, 400)
      .launch("gelu_kernel", 20, 300)
      .close(2);
  t.on_thread(kAutogradThread)
      .op("autograd::engine::evaluate_function: GeluBackward0", 1000, 800)
      .op("GeluBackward0", 1001, 798)
      .frame("torch/utils/checkpoint.py(1125): unpack_hook", 1002, 300)
      .frame("torch/utils/checkpoint.py(1090): recompute_fn", 1003, 290)
      .frame("nn.Module: GELU_0", 1004, 280)
      .op("aten::gelu", 1005, 270)
      .launch("gelu_kernel", 1010, 250)
      .close(4)
      .op("aten::gelu_backward", 1400, 300)
      .launch("gelu_backward_kernel", 1410, 250)
      .close(3);
  const RunResult r = t.run();
  ASSERT_EQ(r.status, Status::kOk) << r.error;
  const Finding* f = recompute_finding(r);
  ASSERT_NE(f, nullptr);
  EXPECT_DOUBLE_EQ(f->metric("recompute_us"), 250.0);
  EXPECT_DOUBLE_EQ(f->metric("region_count"), 1.0);  // the unpack hook
  ASSERT_EQ(f->tables.front().rows.size(), 1u);
  EXPECT_EQ(f->tables.front().rows[0][0], "aten::gelu");
}

// A checkpoint frame whose autograd node the call tree lost still counts on the engine's own
// thread (every outermost op there is autograd work); on the main thread it is a forward.
TEST(RecomputeAnalyzer, CheckpointFrameOnTheAutogradThread) {
  Trace t;
  t.frame("torch/utils/checkpoint.py(1500): checkpoint", 0, 500)
      .op("aten::gelu", 10, 400)
      .launch("gelu_kernel", 20, 300)
      .close(2);
  t.on_thread(kAutogradThread)
      .op("autograd::engine::evaluate_function: GeluBackward0", 1000, 100)
      .op("aten::gelu_backward", 1001, 98)
      .launch("gelu_backward_kernel", 1010, 50)
      .close(2)
      .frame("torch/utils/checkpoint.py(1090): recompute_fn", 1200, 290)
      .op("aten::gelu", 1205, 270)
      .launch("gelu_kernel", 1210, 250)
      .close(2);
  const RunResult r = t.run();
  const Finding* f = recompute_finding(r);
  ASSERT_NE(f, nullptr);
  EXPECT_DOUBLE_EQ(f->metric("recompute_us"), 250.0);
}

// The same frame on the main thread, outside any autograd node, is the block's first forward.
TEST(RecomputeAnalyzer, CheckpointFrameOnTheMainThreadIsAForward) {
  Trace t;
  t.op("autograd::engine::evaluate_function: GeluBackward0", 0, 100)
      .op("aten::gelu_backward", 1, 98)
      .launch("gelu_backward_kernel", 10, 50)
      .close(2)
      .frame("torch/utils/checkpoint.py(1500): checkpoint", 200, 500)
      .op("aten::gelu", 210, 400)
      .launch("gelu_kernel", 220, 300)
      .close(2)
      .op("aten::mm", 800, 100)
      .launch("sm90_gemm_bf16", 810, 50)
      .close();
  const RunResult r = t.run();
  EXPECT_EQ(recompute_finding(r), nullptr);
  EXPECT_EQ(r.figure("recompute.kernel_count"), 0.0);
}

// Two kernels of one recomputed op overlapping on two streams: their union, each once.
// A second stream's kernel inside the rerun gemm's interval [2020, 2120), launched by the same
// rerun op: the union does not grow, the op is one call.
TEST(RecomputeAnalyzer, OverlappingKernelsCountOnce) {
  const RunResult r = training_step({.second_stream = true}).run();
  const Finding* f = recompute_finding(r);
  ASSERT_NE(f, nullptr);
  EXPECT_DOUBLE_EQ(f->metric("recompute_us"), 120.0);
  EXPECT_DOUBLE_EQ(f->metric("kernel_count"), 3.0);
  EXPECT_EQ(f->tables.front().rows[0][6], "1");
}

TEST(RecomputeAnalyzer, Threshold) {
  // 120 µs of 1660 µs computation is 7.2 %: under a 10 % threshold, no finding.
  Trace t = training_step({});
  t.trace.set_option("recompute.ComputationPercentThreshold", "10");
  const RunResult r = t.run();
  EXPECT_EQ(recompute_finding(r), nullptr);
  EXPECT_NEAR(r.figure("recompute.percent_of_computation"), 120.0 / 1660 * 100, 0.01);
  t.trace.set_option("recompute.ComputationPercentThreshold", "7");
  EXPECT_NE(recompute_finding(t.run()), nullptr);
}

// Below the default 2 %: a long forward makes the same rerun a small share.
TEST(RecomputeAnalyzer, DefaultThresholdIsTwoPercentOfComputation) {
  Trace t = training_step({});
  t.on_thread(kMainThread).op("aten::mm", 4000, 6000).launch("sm90_gemm_bf16", 4010, 5000).close();
  const RunResult r = t.run();  // 120 / 6660 = 1.8 %
  EXPECT_NEAR(r.figure("recompute.percent_of_computation"), 120.0 / 6660 * 100, 0.01);
  EXPECT_EQ(recompute_finding(r), nullptr);
}

TEST(RecomputeMarkers, GradientOpsAndCheckpointCode) {
  EXPECT_EQ(marker_of(Kind::kCpuOp, "AddmmBackward0"), Marker::kGradient);
  EXPECT_EQ(marker_of(Kind::kCpuOp, "aten::convolution_backward"), Marker::kGradient);
  EXPECT_EQ(marker_of(Kind::kCpuOp, "aten::cudnn_convolution_backward_input"), Marker::kGradient);
  EXPECT_EQ(marker_of(Kind::kCpuOp, "torch::autograd::AccumulateGrad"), Marker::kGradient);
  EXPECT_EQ(marker_of(Kind::kCpuOp, "autograd::engine::evaluate_function: MmBackward0"),
            Marker::kEngineEvaluation);
  EXPECT_EQ(marker_of(Kind::kCpuOp, "CheckpointFunctionBackward"), Marker::kCheckpointNode);
  EXPECT_EQ(
      marker_of(Kind::kCpuOp, "autograd::engine::evaluate_function: CheckpointFunctionBackward"),
      Marker::kCheckpointNode);
  EXPECT_EQ(marker_of(Kind::kPythonFunction, "torch/utils/checkpoint.py(303): backward"),
            Marker::kCheckpointFrame);
  EXPECT_EQ(marker_of(Kind::kPythonFunction, "torch/autograd/__init__.py(267): backward"),
            Marker::kGradient);
  EXPECT_EQ(marker_of(Kind::kPythonFunction, "torch/autograd/graph.py(768): _engine_run_backward"),
            Marker::kGradient);
  EXPECT_EQ(marker_of(Kind::kPythonFunction, "torch/autograd/function.py(575): apply"),
            Marker::kNone);
  EXPECT_EQ(marker_of(Kind::kCpuOp, "aten::linear"), Marker::kNone);
  EXPECT_EQ(marker_of(Kind::kPythonFunction, "nn.Module: Linear_0"), Marker::kNone);
}

}  // namespace
}  // namespace traceprism::plugins::recompute
