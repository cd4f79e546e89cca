// The layout-transform analyzer on every shared real trace, run in-process on the host library's
// context: shares are parts of the host's own GPU timeline (at most 100 % of computation and of
// E2E), the impact never exceeds the share, a finding exists only above 2 % of computation, and
// channels-last is advised only where NCHW <-> NHWC conversion kernels ran.
#include <gtest/gtest.h>

#include <string>

#include "layout_transform/layout_transform_analyzer.hpp"
#include "platform/platform_file.hpp"
#include "plugins/host_api.hpp"
#include "support/analyzer_run.hpp"
#include "support/shared_traces.hpp"

namespace traceprism::plugins::layout_transform {
namespace {

using traceprism::testing::SharedTrace;

double metric(const findings::Finding& f, const std::string& key) {
  for (const auto& [k, v] : f.metrics)
    if (k == key) return v;
  ADD_FAILURE() << f.key << " has no metric " << key;
  return -1;
}

constexpr traceprism_analyzer_v1 kAnalyzer{
    sizeof(traceprism_analyzer_v1),
    static_cast<std::uint32_t>(sizeof(kLayoutOptions) / sizeof(kLayoutOptions[0])),
    "layout-transform",
    "",
    nullptr,
    kLayoutOptions,
    nullptr,
    nullptr};

class LayoutOnSharedTraces : public ::testing::TestWithParam<SharedTrace> {};

TEST_P(LayoutOnSharedTraces, SharesArePartsOfTheTimelineAndAdviceHasItsEvidence) {
  const SharedTrace& c = GetParam();
  if (c.path.empty()) GTEST_SKIP() << traceprism::testing::shared_traces() << " is absent";
  traceprism::testing::AnalyzerRun run(c.path.string(), kAnalyzer, "layout_transform");
  const auto& devices = run.file().index.metadata().devices;
  const std::string device = devices.empty() ? "" : devices.front().name;
  const platform::PlatformSpec* spec = platform::match_device(device);
  if (!spec) spec = platform::find_platform("H100-SXM");
  run.set_platform(spec->info(device));
  Context ctx(run.ctx(), plugins::host_api());
  LayoutTransformAnalyzer analyzer(ctx);
  ASSERT_EQ(analyzer.run(ctx), Status::kOk);

  const std::optional<Timeline> timeline = ctx.timeline();
  const double computation = timeline ? timeline->computation_us : 0;
  const double e2e = timeline ? timeline->total_us : 0;
  ASSERT_LE(run.outcome().findings.size(), 1u);
  for (const findings::Finding& f : run.outcome().findings) {
    SCOPED_TRACE(f.title);
    EXPECT_EQ(f.cause, "layout");
    EXPECT_EQ(f.impact_kind, findings::ImpactKind::kQuantified);
    const double time_us = metric(f, "time_us");
    EXPECT_LE(time_us, computation + 1e-6);
    EXPECT_GT(metric(f, "percent_of_computation"), 2.0);
    EXPECT_LE(metric(f, "percent_of_computation"), 100.0 + 1e-9);
    EXPECT_NEAR(metric(f, "percent_of_e2e"), time_us / e2e * 100, 0.01);
    EXPECT_LE(f.share_percent, 100.0);
    EXPECT_LE(f.impact_low, f.impact_mid);
    EXPECT_LE(f.impact_mid, f.impact_high);
    EXPECT_LE(f.impact_high, f.share_percent + 1e-9);
    // Channels-last only where the kernels are NCHW <-> NHWC conversions.
    if (f.action.find("channels_last") != std::string::npos) {
      EXPECT_GT(metric(f, "format_conversion_time_us"), 0.0);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Shared, LayoutOnSharedTraces,
                         ::testing::ValuesIn(traceprism::testing::all_shared_traces()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace traceprism::plugins::layout_transform
