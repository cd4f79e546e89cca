// The recompute analyzer on every shared real trace (TraceLens H100 / MI300X, HTA, inference and
// agent unit cases), run in-process on the host library's context. None of these traces uses
// activation checkpointing: the test reads that from the event names of the host's index (no
// CheckpointFunctionBackward op, no torch/utils/checkpoint.py frame) and then expects no
// recompute kernel and no finding. A trace that does checkpoint is held to the finding's
// invariants instead.
#include <gtest/gtest.h>

#include <string>

#include "plugins/host_api.hpp"
#include "recompute/recompute_analyzer.hpp"
#include "support/analyzer_run.hpp"
#include "support/shared_traces.hpp"

namespace traceprism::plugins::recompute {
namespace {

using traceprism::testing::SharedTrace;

constexpr traceprism_analyzer_v1 kAnalyzer{
    sizeof(traceprism_analyzer_v1),
    static_cast<std::uint32_t>(sizeof(kRecomputeOptions) / sizeof(kRecomputeOptions[0])),
    "recompute",
    "",
    nullptr,
    kRecomputeOptions,
    nullptr,
    nullptr};

bool has(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

// Whether the trace shows activation checkpointing at all, from the index's names.
bool checkpoints(const index::EventIndex& x) {
  for (index::Row r : x.rows_of_kind(index::EventKind::kCpuOp))
    if (has(x.name(r), "CheckpointFunction")) return true;
  for (index::Row r : x.rows_of_kind(index::EventKind::kPythonFunction))
    if (has(x.name(r), "torch/utils/checkpoint.py") || has(x.name(r), "torch.utils.checkpoint"))
      return true;
  return false;
}

double figure(const findings::AnalyzerOutcome& o, const std::string& key) {
  for (const auto& [k, v] : o.figures)
    if (k == key) return v;
  ADD_FAILURE() << "no figure " << key;
  return -1;
}

class RecomputeOnSharedTraces : public ::testing::TestWithParam<SharedTrace> {};

TEST_P(RecomputeOnSharedTraces, NoRecomputeWithoutCheckpointing) {
  const SharedTrace& c = GetParam();
  if (c.path.empty()) GTEST_SKIP() << traceprism::testing::shared_traces() << " is absent";
  traceprism::testing::AnalyzerRun run(c.path.string(), kAnalyzer, "recompute");
  Context ctx(run.ctx(), plugins::host_api());
  RecomputeAnalyzer analyzer(ctx);
  ASSERT_EQ(analyzer.run(ctx), Status::kOk);
  const findings::AnalyzerOutcome& out = run.outcome();
  if (!checkpoints(run.file().index)) {
    EXPECT_EQ(figure(out, "recompute.has_checkpoint"), 0.0);
    EXPECT_EQ(figure(out, "recompute.kernel_count"), 0.0);
    EXPECT_TRUE(out.findings.empty());
    return;
  }
  for (const findings::Finding& f : out.findings) {
    EXPECT_EQ(f.cause, "recompute");
    EXPECT_LE(f.share_percent, 100.0);
    EXPECT_LE(f.impact_high, f.share_percent + 1e-9);
    EXPECT_GE(figure(out, "recompute.percent_of_computation"), 2.0);
  }
}

INSTANTIATE_TEST_SUITE_P(Shared, RecomputeOnSharedTraces,
                         ::testing::ValuesIn(traceprism::testing::all_shared_traces()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace traceprism::plugins::recompute
