// The capture merge's pairing on the shared inference cases (inference-mode spec §3.2-§3.7, the
// spec's "merge structure" tests up to the alignment): each step's graph launches, the capture
// chosen for it, the capture's launch lists per stream-capture window, their pairing with the
// launches, and the alignment of every pair. vllm_decode_full: 1 launch, 421 kernels aligned
// exactly; piecewise: 25 windows with 25 launches, 23 x 15 + 4 + 12 kernels, all exact;
// sglang_decode: 1 launch, 544 kernels exact.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "ingest/trace_reader.hpp"
#include "model/call_tree.hpp"
#include "model/capture_alignment.hpp"
#include "model/capture_folder.hpp"
#include "model/capture_lists.hpp"
#include "model/launch_links.hpp"
#include "model/step_annotation.hpp"
#include "support/shared_traces.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;
namespace model = traceprism::model;

namespace {

struct Case {
  std::string name, replay;
  std::size_t launches;
  std::map<std::size_t, std::size_t> kernels_per_launch;  // kernel count -> launches with it
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name;
}

const std::vector<Case>& cases() {
  static const std::vector<Case> kCases = {
      {"vllm_decode_full", "graph_execution.json.gz", 1, {{421, 1}}},
      {"vllm_prefilldecode_piecewise", "graph_execution.json.gz", 25, {{15, 23}, {4, 1}, {12, 1}}},
      {"sglang_decode", "sglang_Qwen3-8B_decode.json.gz", 1, {{544, 1}}},
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
  const std::vector<model::Row> launches = model::graph_launches_in(replay.index, steps[0].row);
  ASSERT_EQ(launches.size(), c.launches);

  const fs::path folder = dir / "capture_traces";
  const auto entries = model::parse_execution_details(
      traceprism::testing::read_file((folder / "execution_details.json").string()), "details");
  const auto chosen =
      model::choose_capture(entries, steps[0].annotation.batch_size, launches.size());
  ASSERT_TRUE(chosen.has_value());
  const auto capture = traceprism::ingest::read_trace((folder / chosen->file).string());
  const auto tree = model::CallTree::build(capture.index, {.include_python = true});
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

INSTANTIATE_TEST_SUITE_P(Cases, CaptureMergeStructure, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
