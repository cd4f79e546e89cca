// The capture merge end to end on hand-made traces (inference-mode spec §3): a replay trace
// with one serving step whose graph launch ran two kernels, a capture trace that recorded the
// two ops launching them, the plan, and the merged index, call tree and launch links.
#include "model/capture_merge.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "index/row_copies.hpp"
#include "ingest/trace_reader.hpp"
#include "model/call_tree.hpp"
#include "model/kernel_launchers.hpp"
#include "model/launch_links.hpp"
#include "support/temp_dir.hpp"
#include "support/trace_builder.hpp"

namespace model = traceprism::model;
namespace ix = traceprism::index;
using traceprism::testing::TraceText;

namespace {

ix::EventIndex read(const std::string& text) {
  traceprism::testing::TempDir dir;
  return traceprism::ingest::read_trace(dir.write("t.json", text)).index;
}

constexpr const char* kStep =
    "execute_2_context_0(sq0sk0sqsq0sqsk0)_generation_2(sq2sk10sqsq2sqsk10)";

// Rows: 0 step, 1 graph launch, 2 kernel k_a, 3 kernel k_b, then an eager copy: 4 aten::copy_,
// 5 its launch, 6 the memcpy, 7-8 their flow.
std::string replay_text(const std::string& step = kStep, const std::string& second = "k_b") {
  TraceText t;
  t.x("user_annotation", step, "0", "1000");
  t.x("cuda_runtime", "hipGraphLaunch", "100", "50", R"({"correlation": 50})");
  t.x("kernel", "k_a", "200", "10", R"({"correlation": 50, "stream": 0, "device": 0})", "0", "0");
  t.x("kernel", second, "215", "20", R"({"correlation": 50, "stream": 0, "device": 0})", "0", "0");
  t.launch("aten::copy_", 500, 40, "Memcpy HtoD", 600, 5, 0, 51, "gpu_memcpy");
  return t.str();
}

// Rows: 0 outer frame, 1 begin capture, 2 python module, 3 aten::mm, 4 its launch, 5 aten::add,
// 6 its launch, 7 end capture. The module frame's parent (row 0) lies outside the window.
std::string capture_text(bool with_view = false) {
  TraceText t;
  t.x("python_function", "vllm/worker.py(1): capture_model", "0", "10000");
  t.x("cuda_runtime", "hipStreamBeginCapture", "100", "2");
  t.x("python_function", "nn.Module: Linear_0", "200", "300");
  t.x("cpu_op", "aten::mm", "210", "100",
      R"({"Input Dims": [[2, 64], [64, 128]], "Input type": ["c10::BFloat16", "c10::BFloat16"]})");
  t.x("cuda_runtime", "hipLaunchKernel", "220", "5", R"({"correlation": 7, "kernel": "k_a"})");
  // with_view: row 5 is an aten::view without a kernel (add and its launch become 6 and 7).
  if (with_view) t.x("cpu_op", "aten::view", "320", "10");
  t.x("cpu_op", "aten::add", "350", "100", R"({"Input Dims": [[2, 128], [2, 128]]})");
  t.x("cuda_runtime", "hipLaunchKernel", "360", "5", R"({"correlation": 8, "kernel": "k_b"})");
  t.x("cuda_runtime", "hipStreamEndCapture", "900", "2");
  return t.str();
}

struct Capture {
  ix::EventIndex index;
  model::CaptureSource source;
  explicit Capture(const std::string& text) : index(read(text)) {
    model::CallTreeOptions options;
    options.include_python = true;
    source.index = &index;
    source.windows = model::capture_windows(index, model::CallTree::build(index, options));
  }
};

const std::vector<model::CaptureTrace> kEntries = {{"cap.json", 2, "FULL"}};

model::CaptureMergePlan plan(const ix::EventIndex& replay, const Capture& capture,
                             bool include_python = false) {
  const auto links = model::LaunchLinks::build(replay);
  return model::plan_capture_merge(replay, links, kEntries,
                                   [&](const model::CaptureTrace&) { return &capture.source; },
                                   {include_python});
}

TEST(CaptureMerge, WindowListsTheCapturedSubtreeParentsFirst) {
  const Capture capture(capture_text());
  ASSERT_EQ(capture.source.windows.size(), 1u);
  const model::CaptureWindow& w = capture.source.windows[0];
  EXPECT_EQ(w.members, (std::vector<ix::Row>{2, 3, 4, 5, 6}));
  EXPECT_EQ(w.parent, (std::vector<std::int32_t>{-1, 0, 1, 0, 3}));
  EXPECT_EQ(w.launch_calls, (std::vector<ix::Row>{4, 6}));
  EXPECT_EQ(w.launch_positions, (std::vector<std::uint32_t>{2, 4}));
}

TEST(CaptureMerge, PlanCopiesTheCaptureUnderTheLaunchAndRelinksEachKernel) {
  const ix::EventIndex replay = read(replay_text());
  const Capture capture(capture_text());
  const model::CaptureMergePlan p = plan(replay, capture);
  const ix::Row first = static_cast<ix::Row>(replay.size());
  // CaptureRoot, then the window without its python frame: aten::mm, launch, aten::add, launch.
  ASSERT_EQ(p.copies.size(), 5u);
  EXPECT_EQ(p.copies[0].row, ix::kSyntheticRoot);
  EXPECT_EQ(p.copies[1].row, 3u);
  EXPECT_EQ(p.copies[4].row, 6u);
  for (const ix::RowCopy& c : p.copies) EXPECT_EQ(c.timing, 1u);  // the graph launch
  EXPECT_EQ(p.grafts.first_row, first);
  EXPECT_EQ(p.grafts.parent,
            (std::vector<std::int32_t>{
                1, static_cast<std::int32_t>(first), static_cast<std::int32_t>(first + 1),
                static_cast<std::int32_t>(first), static_cast<std::int32_t>(first + 3)}));
  EXPECT_EQ(p.relinks, (std::vector<std::pair<ix::Row, ix::Row>>{{2, first + 2}, {3, first + 4}}));
  EXPECT_EQ(p.summary.steps, 1u);
  EXPECT_EQ(p.summary.merged_launches, 1u);
  EXPECT_EQ(p.summary.attributed_events, 2u);
  EXPECT_EQ(p.summary.captures_used, std::vector<std::string>{"cap.json"});

  // With python frames the module frame is copied too, between the root and aten::mm.
  const model::CaptureMergePlan with_python = plan(replay, capture, true);
  ASSERT_EQ(with_python.copies.size(), 6u);
  EXPECT_EQ(with_python.copies[1].row, 2u);
  EXPECT_EQ(with_python.grafts.parent[2], static_cast<std::int32_t>(first + 1));
}

TEST(CaptureMerge, MergedIndexTreeAndLinksAttributeReplayedKernelsToCapturedOps) {
  ix::EventIndex replay = read(replay_text());
  const Capture capture(capture_text());
  model::CaptureMergePlan p = plan(replay, capture);
  const ix::Row first = static_cast<ix::Row>(replay.size());
  const ix::EventIndex merged =
      ix::append_row_copies(std::move(replay), p.sources, p.copies, model::kCaptureRootName);
  ASSERT_EQ(merged.size(), first + 5);
  EXPECT_EQ(merged.name(first), "CaptureRoot");
  EXPECT_EQ(merged.kind(first), ix::EventKind::kCudaRuntime);
  const ix::Row mm = first + 1, mm_launch = first + 2;
  EXPECT_EQ(merged.name(mm), "aten::mm");
  EXPECT_EQ(merged.ts_ns(mm), merged.ts_ns(1));  // every copy takes the launch's time
  EXPECT_EQ(merged.dur_ns(mm), merged.dur_ns(1));
  EXPECT_EQ(merged.pid(mm), merged.pid(1));
  ASSERT_NE(merged.input_shapes(mm), nullptr);
  EXPECT_EQ(merged.input_shapes(mm)->arg_dims(1)[1], 128);
  EXPECT_EQ(merged.launch_kernel(mm_launch), std::optional<std::string_view>("k_a"));
  EXPECT_EQ(merged.correlation(mm_launch), ix::kNoId);  // the capture's ids stay behind
  EXPECT_EQ(merged.rows_of_kind(ix::EventKind::kCpuOp).size(), 3u);

  model::CallTreeOptions options;
  options.grafts = std::make_shared<const model::Grafts>(std::move(p.grafts));
  const auto tree = model::CallTree::build(merged, options);
  EXPECT_EQ(tree.parent(first), 1);
  EXPECT_EQ(tree.parent(mm), static_cast<std::int32_t>(first));
  EXPECT_EQ(tree.parent(mm_launch), static_cast<std::int32_t>(mm));
  ASSERT_EQ(tree.children(1).size(), 1u);
  EXPECT_EQ(tree.children(1)[0], first);
  // The copied ops have no cpu_op above them: they are cpu-op roots, after the replay's own.
  EXPECT_EQ(tree.cpu_op_roots(), (std::vector<ix::Row>{4, mm, first + 3}));

  const auto links = model::LaunchLinks::build(merged, p.relinks);
  EXPECT_EQ(links.launcher(2), static_cast<std::int32_t>(mm_launch));
  EXPECT_EQ(links.launcher(3), static_cast<std::int32_t>(first + 4));
  EXPECT_TRUE(links.launched(1).empty());
  ASSERT_EQ(links.launched(mm_launch).size(), 1u);
  EXPECT_EQ(links.launcher(6), 5);  // the eager copy keeps its own launch
  // The launcher of k_a (perf report's op instance) is the copied aten::mm.
  const auto launchers = model::KernelLaunchers::build(merged, tree, links);
  bool found = false;
  for (const model::KernelLauncher& l : launchers.all())
    if (std::find(l.kernels.begin(), l.kernels.end(), 2u) != l.kernels.end()) {
      EXPECT_EQ(l.row, mm);
      found = true;
    }
  EXPECT_TRUE(found);
}

// CUDA launch calls carry no kernel name (spec §3.7 QUIRK): a single-stream capture aligns by
// position when the counts agree, and not at all when they differ.
TEST(CaptureMerge, CudaCapturesAlignByPosition) {
  auto to_cuda = [](std::string text) {
    for (const auto& [from, to] :
         {std::pair<std::string, std::string>{"hipGraphLaunch", "cudaGraphLaunch"},
          {"hipStreamBeginCapture", "cudaStreamBeginCapture"},
          {"hipStreamEndCapture", "cudaStreamEndCapture"},
          {"hipLaunchKernel", "cudaLaunchKernel"},
          {R"(, "kernel": "k_a")", ""},
          {R"(, "kernel": "k_b")", ""}})
      for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from))
        text.replace(at, from.size(), to);
    return text;
  };
  const ix::EventIndex replay = read(to_cuda(replay_text()));
  const Capture capture(to_cuda(capture_text()));
  const model::CaptureMergePlan p = plan(replay, capture);
  EXPECT_EQ(p.summary.merged_launches, 1u);
  const ix::Row first = static_cast<ix::Row>(replay.size());
  EXPECT_EQ(p.relinks, (std::vector<std::pair<ix::Row, ix::Row>>{{2, first + 2}, {3, first + 4}}));
  // One captured launch fewer than replayed kernels: the greedy walk cannot match names.
  std::string shorter = to_cuda(capture_text());
  const std::string second_launch = R"("cudaLaunchKernel","pid":100,"tid":100,"ts":360)";
  shorter.replace(shorter.find(second_launch) + 1, 16, "cudaFuncGetAttrs");
  const Capture short_capture(shorter);
  EXPECT_EQ(plan(replay, short_capture)
                .summary.skipped[static_cast<std::size_t>(model::MergeSkip::kNotAligned)],
            1u);
}

// only_launch_paths leaves out captured events with no launch call below them.
TEST(CaptureMerge, OnlyLaunchPathsLeavesKernelLessOpsOut) {
  const ix::EventIndex replay = read(replay_text());
  const Capture capture(capture_text(true));
  const model::CaptureWindow& w = capture.source.windows[0];
  ASSERT_EQ(w.members.size(), 6u);
  EXPECT_EQ(w.leads_to_launch, (std::vector<bool>{true, true, true, false, true, true}));
  const auto links = model::LaunchLinks::build(replay);
  auto plan_with = [&](bool only) {
    return model::plan_capture_merge(replay, links, kEntries,
                                     [&](const model::CaptureTrace&) { return &capture.source; },
                                     {.include_python = false, .only_launch_paths = only});
  };
  const model::CaptureMergePlan full = plan_with(false), pruned = plan_with(true);
  EXPECT_EQ(full.copies.size(), 6u);  // CaptureRoot, mm, launch, view, add, launch
  ASSERT_EQ(pruned.copies.size(), 5u);
  EXPECT_EQ(full.copies[3].row, 5u);  // the view
  for (const ix::RowCopy& c : pruned.copies) EXPECT_NE(c.row, 5u);
  EXPECT_EQ(pruned.relinks.size(), 2u);
}

// prune_above_rows: past the threshold (rows of a copy without python frames), the plan is the
// launch paths' one and records the full size; at or below it, the options' plan.
TEST(CaptureMerge, PrunesOnlyAMergeLargerThanTheThreshold) {
  const ix::EventIndex replay = read(replay_text());
  const Capture capture(capture_text(true));
  const auto links = model::LaunchLinks::build(replay);
  auto plan_with = [&](model::CaptureMergeOptions options) {
    return model::plan_capture_merge(
        replay, links, kEntries, [&](const model::CaptureTrace&) { return &capture.source; },
        options);
  };
  const model::CaptureMergePlan pruned = plan_with({.only_launch_paths = true});
  const model::CaptureMergePlan whole = plan_with({.include_python = true});
  ASSERT_EQ(plan_with({}).copies.size(), 6u);  // the size the threshold is compared with

  const model::CaptureMergePlan over = plan_with({.include_python = true, .prune_above_rows = 5});
  EXPECT_EQ(over.summary.full_copy_rows, 6u);
  EXPECT_EQ(over.summary.copied_rows, pruned.copies.size());
  ASSERT_EQ(over.copies.size(), pruned.copies.size());
  for (std::size_t i = 0; i < over.copies.size(); ++i)
    EXPECT_EQ(over.copies[i].row, pruned.copies[i].row);
  EXPECT_EQ(over.grafts.parent, pruned.grafts.parent);
  EXPECT_EQ(over.relinks, pruned.relinks);

  const model::CaptureMergePlan within = plan_with({.include_python = true, .prune_above_rows = 6});
  EXPECT_EQ(within.summary.full_copy_rows, 0u);
  EXPECT_EQ(within.copies.size(), whole.copies.size());
  EXPECT_EQ(within.grafts.parent, whole.grafts.parent);
  EXPECT_EQ(within.relinks, whole.relinks);
}

TEST(CaptureMerge, StepsThatCannotBeMergedAreCountedByReason) {
  const Capture capture(capture_text());
  // A step of 64 tokens: no capture of that batch size or larger.
  const ix::EventIndex big = read(
      replay_text("execute_64_context_0(sq0sk0sqsq0sqsk0)_generation_64(sq64sk10sqsq64sqsk10)"));
  model::CaptureMergePlan p = plan(big, capture);
  EXPECT_TRUE(p.copies.empty());
  EXPECT_EQ(p.summary.skipped[static_cast<std::size_t>(model::MergeSkip::kNoCapture)], 1u);
  // The second replayed kernel is not the captured one: the pair does not align.
  const ix::EventIndex other = read(replay_text(kStep, "k_other"));
  p = plan(other, capture);
  EXPECT_TRUE(p.copies.empty());
  EXPECT_TRUE(p.relinks.empty());
  EXPECT_EQ(p.summary.skipped[static_cast<std::size_t>(model::MergeSkip::kNotAligned)], 1u);
  // An unreadable capture.
  const ix::EventIndex replay = read(replay_text());
  const auto links = model::LaunchLinks::build(replay);
  p = model::plan_capture_merge(replay, links, kEntries,
                                [](const model::CaptureTrace&) { return nullptr; });
  EXPECT_EQ(p.summary.skipped[static_cast<std::size_t>(model::MergeSkip::kCaptureUnread)], 1u);
}

}  // namespace
