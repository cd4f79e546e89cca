// The capture merge's pairing on the shared inference cases (inference-mode spec §3.2-§3.7, the
// spec's "merge structure" tests up to the alignment): each step's graph launches, the capture
// chosen for it, the capture's launch lists per stream-capture window, their pairing with the
// launches, and the alignment of every pair. vllm_decode_full: 1 launch, 421 kernels aligned
// exactly; piecewise: 25 windows with 25 launches, 23 x 15 + 4 + 12 kernels, all exact;
// sglang_decode: 1 launch, 544 kernels exact.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "index/row_copies.hpp"
#include "ingest/trace_reader.hpp"
#include "model/call_tree.hpp"
#include "model/capture_alignment.hpp"
#include "model/capture_folder.hpp"
#include "model/capture_lists.hpp"
#include "model/capture_merge.hpp"
#include "model/launch_links.hpp"
#include "model/step_annotation.hpp"
#include "pipeline/capture_sources.hpp"
#include "support/shared_traces.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;
namespace model = traceprism::model;

namespace {

struct Case {
  std::string name, replay;
  std::size_t launches;
  std::map<std::size_t, std::size_t> kernels_per_launch;  // kernel count -> launches with it
  model::Row last_uid;  // of the merged tree (spec §3.8), python frames copied
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name;
}

const std::vector<Case>& cases() {
  static const std::vector<Case> kCases = {
      {"vllm_decode_full", "graph_execution.json.gz", 1, {{421, 1}}, 127778},
      {"vllm_prefilldecode_piecewise",
       "graph_execution.json.gz",
       25,
       {{15, 23}, {4, 1}, {12, 1}},
       125344},
      {"sglang_decode", "sglang_Qwen3-8B_decode.json.gz", 1, {{544, 1}}, 60463},
  };
  return kCases;
}

class CaptureMergeStructure : public ::testing::TestWithParam<Case> {};

TEST_P(CaptureMergeStructure, EveryReplayedKernelAlignsWithItsCapturedLaunch) {
  const Case& c = GetParam();
  const fs::path dir = traceprism::testing::shared_traces() / "tracelens" / "inference" / c.name;
  if (!fs::exists(dir / c.replay)) GTEST_SKIP() << dir << " is absent";
  const auto replay = traceprism::ingest::read_trace((dir / c.replay).string());
  const auto links = model::LaunchLinks::build(replay.index);
  const std::vector<model::ServingStep> steps = model::serving_steps(replay.index);
  ASSERT_EQ(steps.size(), 1u);
  const std::vector<model::Row> launches =
      model::graph_launches_in(replay.index, model::graph_launches(replay.index), steps[0].row);
  ASSERT_EQ(launches.size(), c.launches);

  const fs::path folder = dir / "capture_traces";
  const auto entries = model::parse_execution_details(
      traceprism::testing::read_file((folder / "execution_details.json").string()), "details");
  const auto chosen =
      model::choose_capture(entries, steps[0].annotation.batch_size, launches.size());
  ASSERT_TRUE(chosen.has_value());
  const auto capture = traceprism::ingest::read_trace((folder / chosen->file).string());
  model::CallTreeOptions options;
  options.include_python = true;
  const auto tree = model::CallTree::build(capture.index, options);
  const std::vector<std::vector<model::Row>> lists =
      model::capture_launch_lists(capture.index, tree);
  // One captured graph replayed by every launch, or one captured piece per replayed piece.
  ASSERT_TRUE(lists.size() == 1 || lists.size() == launches.size()) << lists.size();

  std::map<std::size_t, std::size_t> kernels_per_launch;
  for (std::size_t i = 0; i < launches.size(); ++i) {
    const auto& calls = lists.size() == 1 ? lists[0] : lists[i];
    const std::vector<model::Row> events =
        model::replayed_gpu_events(replay.index, links, launches[i]);
    const model::Alignment a = model::align_capture(model::captured_calls(capture.index, calls),
                                                    model::replayed_events(replay.index, events));
    EXPECT_EQ(a.code, model::AlignmentCode::kExact) << "launch " << i;
    EXPECT_EQ(a.pairs.size(), events.size()) << "launch " << i;
    ++kernels_per_launch[events.size()];
  }
  EXPECT_EQ(kernels_per_launch, c.kernels_per_launch);
}

// The merge applied (spec §3.8-§3.9, the spec's merge-structure rows): copies numbered from
// the replay's last UID + 1 exactly as the reference numbers them, every replayed kernel
// relinked, and vllm_decode_full's kernel 1571 under the captured hipExtModuleLaunchKernel
// 2408, whose op is aten::addmm 2403.
TEST_P(CaptureMergeStructure, MergedTreeNumbersAndPlacesTheCopiesAsTheReference) {
  const Case& c = GetParam();
  const fs::path dir = traceprism::testing::shared_traces() / "tracelens" / "inference" / c.name;
  if (!fs::exists(dir / c.replay)) GTEST_SKIP() << dir << " is absent";
  auto replay = traceprism::ingest::read_trace((dir / c.replay).string());
  const auto replay_links = model::LaunchLinks::build(replay.index);
  traceprism::pipeline::CaptureSources sources(dir / "capture_traces", true);
  model::CaptureMergePlan plan = model::plan_capture_merge(
      replay.index, replay_links, sources.entries(),
      [&](const model::CaptureTrace& e) { return sources.load(e); }, {.include_python = true});
  std::size_t kernels = 0;
  for (const auto& [count, launches] : c.kernels_per_launch) kernels += count * launches;
  EXPECT_EQ(plan.summary.merged_launches, c.launches);
  EXPECT_EQ(plan.summary.attributed_events, kernels);
  EXPECT_EQ(plan.relinks.size(), kernels);
  const model::Row first = static_cast<model::Row>(replay.index.size());
  const auto merged = traceprism::index::append_row_copies(std::move(replay.index), plan.sources,
                                                           plan.copies, model::kCaptureRootName);
  EXPECT_EQ(merged.size() - 1, c.last_uid);
  EXPECT_EQ(merged.name(first), "CaptureRoot");
  model::CallTreeOptions options;
  options.include_python = true;
  options.grafts = std::make_shared<const model::Grafts>(std::move(plan.grafts));
  const auto tree = model::CallTree::build(merged, options);
  const auto links = model::LaunchLinks::build(merged, plan.relinks);
  if (c.name != "vllm_decode_full") return;
  EXPECT_EQ(first, 1993u);
  EXPECT_EQ(tree.parent(first), 1097);
  ASSERT_EQ(tree.children(1097).size(), 1u);
  EXPECT_EQ(tree.children(1097)[0], first);
  EXPECT_EQ(links.launcher(1571), 2408);
  EXPECT_EQ(merged.name(2408), "hipExtModuleLaunchKernel");
  EXPECT_EQ(tree.parent(2408), 2403);
  EXPECT_EQ(merged.name(2403), "aten::addmm");
  EXPECT_EQ(merged.ts_ns(2403), merged.ts_ns(1097));
}

INSTANTIATE_TEST_SUITE_P(Cases, CaptureMergeStructure, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
