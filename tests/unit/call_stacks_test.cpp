// Call stacks as the reference prints them (inference-mode spec §4 "Call stacks"): module
// stacks for --group_by_parent_module, kernel stacks, call_stack_full and entry_point for
// --include_call_stack. Expected values follow the spec's rules by hand.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/call_tree.hpp"
#include "perf_report/call_stacks.hpp"
#include "pipeline/trace_load.hpp"
#include "support/temp_dir.hpp"
#include "support/trace_builder.hpp"

namespace traceprism::perf_report {
namespace {

using Frames = std::vector<std::string_view>;
// A FullCallStack views its summary's kernel names: the summary outlives it.
using Summary = std::vector<KernelSummaryEntry>;

KernelSummaryEntry entry(std::string_view kernel, Frames stack) {
  KernelSummaryEntry e;
  e.name = std::string(kernel);
  e.call_stack = std::move(stack);
  return e;
}

TEST(CallStacks, WithoutCountersDropsEveryUnderscoreNumber) {
  EXPECT_EQ(without_counters("nn.Module: Linear_0"), "nn.Module: Linear");
  EXPECT_EQ(without_counters("nn.Module: Block_12_3"), "nn.Module: Block");
  EXPECT_EQ(without_counters("model.py(12): _forward_impl"), "model.py(12): _forward_impl");
  EXPECT_EQ(without_counters("x_"), "x_");
}

TEST(CallStacks, FullStackOfOneKernelIsItsChain) {
  const Summary summary = {entry("gemm", {"a.py(1): f", "aten::mm"})};
  const FullCallStack s = full_call_stack(summary);
  EXPECT_EQ(full_call_stack_repr(s), "['a.py(1): f', 'aten::mm', 'gemm']");
}

TEST(CallStacks, SeveralKernelsShareTheirCommonPrefixAndListTheirTails) {
  const Summary summary = {entry("k1", {"a.py(1): f", "op::x", "b.py(2): g"}),
                           entry("k2", {"a.py(1): f", "op::x"}),
                           entry("k1", {"a.py(1): f", "op::x", "b.py(2): g"})};
  const FullCallStack s = full_call_stack(summary);
  EXPECT_EQ(full_call_stack_repr(s), "['a.py(1): f', 'op::x', ['b.py(2): g', 'k1'], ['k2']]");
  EXPECT_EQ(full_call_stack_repr(full_call_stack({})), "Not found");
}

TEST(CallStacks, EntryPointLooksInwardForTheOpsOwnFunctionFirst) {
  // The first later .py frame whose function contains the op's local name.
  const Summary summary = {
      entry("k", {"serve.py(9): step", "vllm::unified_attention", "torch/_ops.py(1): __call__",
                  "attention.py(685): unified_attention_with_output"})};
  const FullCallStack s = full_call_stack(summary);
  EXPECT_EQ(entry_point("vllm::unified_attention", s),
            "attention.py(685): unified_attention_with_output");
}

TEST(CallStacks, EntryPointElseTakesTheNearestCallerThatIsNotAWrapper) {
  const Summary summary = {
      entry("k", {"model.py(40): forward", "nn.Module: Linear",
                  "torch/nn/modules/module.py(1): "
                  "_call_impl",
                  "utils.py(3): decorate_context", "aten::linear", "aten::addmm"})};
  const FullCallStack s = full_call_stack(summary);
  EXPECT_EQ(entry_point("aten::addmm", s), "model.py(40): forward");
  // The op's name with its trailing counter dropped, as the stack stores it.
  EXPECT_EQ(entry_point("aten::addmm_3", s), "model.py(40): forward");
  EXPECT_EQ(entry_point("aten::bmm", s), "Not found");
  const Summary only_the_op = {entry("k", {"aten::mm"})};
  EXPECT_EQ(entry_point("aten::mm", full_call_stack(only_the_op)), "Not found");
}

// A kernel's stack: the collected op's frames from the root, then the frames between the
// kernel's launch and the op; <built-in ...> and runtime calls are not frames.
TEST(CallStacks, KernelStacksRunFromTheRootThroughTheCollectedOpToTheLaunch) {
  testing::TraceText t;
  t.x("python_function", "scripts/train.py(10): step_0", "0", "1000");
  t.x("python_function", "helper.py(3): outer", "5", "990");  // no "/": not a frame
  t.x("python_function", "nn.Module: Net_0", "10", "900");
  t.x("python_function", "<built-in method mm>", "20", "800");
  t.x("cpu_op", "my::fused_op", "30", "700");
  t.x("python_function", "ops/fused.py(7): launch_1", "40", "600");
  t.launch("aten::mm", 50, 100, "gemm_k", 2000, 10, 7, 1);
  testing::TempDir dir;
  pipeline::LoadOptions options;
  options.quiet = true;
  const auto session = pipeline::load_trace(dir.write("t.json", t.str()), options);
  const auto& index = session.file.index;
  model::CallTreeOptions with_python;
  with_python.include_python = true;
  const auto parents = model::CallTree::parents(index, with_python);
  index::Row op = 0, kernel = 0;
  for (index::Row r = 0; r < index.size(); ++r) {
    if (index.name(r) == "my::fused_op") op = r;
    if (index.name(r) == "gemm_k") kernel = r;
  }
  KernelDetails details(1);
  KernelCallStacks stacks(index, session.links, parents);
  const std::vector<index::Row> kernels = {kernel};
  stacks.annotate(op, kernels, details);
  EXPECT_EQ(details[0].call_stack, (Frames{"scripts/train.py(10): step", "nn.Module: Net",
                                           "my::fused_op", "ops/fused.py(7): launch", "aten::mm"}));
}

}  // namespace
}  // namespace traceprism::perf_report
