// The memcpy analyzer on every shared real trace (TraceLens H100 / MI300X, HTA, inference and
// agent unit cases), run in-process on the host library's context with the platform the trace's
// device name matches (H100-SXM when none does, so that the host link is known on every trace):
// no action is printed whose precondition the trace does not show. The preconditions are read
// from the host's own products, not from the analyzer: the host's GPU timeline (exposed and
// total memcpy time, E2E) and the copy names in the event index.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "memcpy/memcpy_analyzer.hpp"
#include "platform/platform_file.hpp"
#include "plugins/host_api.hpp"
#include "support/analyzer_run.hpp"
#include "support/shared_traces.hpp"

namespace fs = std::filesystem;

namespace traceprism::plugins::memcpy {
namespace {

struct TraceCase {
  std::string name;
  fs::path path;
};

void PrintTo(const TraceCase& c, std::ostream* os) {
  *os << c.path;
}

std::vector<TraceCase> shared_trace_files() {
  const fs::path root = traceprism::testing::shared_traces();
  if (!fs::is_directory(root)) return {{"shared_traces_absent", {}}};
  std::vector<TraceCase> cases;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    const std::string file = entry.path().filename().string();
    const bool gz = file.size() > 8 && file.substr(file.size() - 8) == ".json.gz";
    const bool agent = file == "trace.json" || file == "trace1.json" || file == "trace2.json";
    if (!entry.is_regular_file() || !(gz || agent)) continue;
    cases.push_back(
        {traceprism::testing::test_name(fs::relative(entry.path(), root).string()), entry.path()});
  }
  std::sort(cases.begin(), cases.end(), [](auto& a, auto& b) { return a.name < b.name; });
  return cases;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

double metric(const findings::Finding& f, const std::string& key) {
  for (const auto& [k, v] : f.metrics)
    if (k == key) return v;
  ADD_FAILURE() << f.key << " has no metric " << key;
  return -1;
}

constexpr traceprism_analyzer_v1 kAnalyzer{
    sizeof(traceprism_analyzer_v1),
    static_cast<std::uint32_t>(sizeof(kMemcpyOptions) / sizeof(kMemcpyOptions[0])),
    "memcpy",
    "",
    nullptr,
    kMemcpyOptions,
    nullptr,
    nullptr};

class MemcpyOnSharedTraces : public ::testing::TestWithParam<TraceCase> {};

TEST_P(MemcpyOnSharedTraces, NoActionWithoutItsPrecondition) {
  const TraceCase& c = GetParam();
  if (c.path.empty()) GTEST_SKIP() << traceprism::testing::shared_traces() << " is absent";
  traceprism::testing::AnalyzerRun run(c.path.string(), kAnalyzer, "memcpy");
  const auto& devices = run.file().index.metadata().devices;
  const std::string device = devices.empty() ? "" : devices.front().name;
  const platform::PlatformSpec* spec = platform::match_device(device);
  if (!spec) spec = platform::find_platform("H100-SXM");
  run.set_platform(spec->info(device));
  Context ctx(run.ctx(), plugins::host_api());
  MemcpyAnalyzer analyzer(ctx);
  ASSERT_EQ(analyzer.run(ctx), Status::kOk);

  // The host's facts: its GPU timeline and the copy names in the index.
  const std::optional<Timeline> timeline = ctx.timeline();
  const double e2e = timeline ? timeline->total_us : 0;
  const double memcpy_percent = e2e > 0 ? timeline->total_memcpy_us / e2e * 100 : 0;
  const double exposed_percent = e2e > 0 ? timeline->exposed_memcpy_us / e2e * 100 : 0;
  bool pageable = false;
  const index::EventIndex& x = run.file().index;
  for (index::Row r : x.rows_of_kind(index::EventKind::kGpuMemcpy))
    pageable = pageable || has(std::string(x.name(r)), "Pageable");

  for (const findings::Finding& f : run.outcome().findings) {
    SCOPED_TRACE(f.key + ": " + f.title);
    EXPECT_EQ(f.cause, "memcpy");
    EXPECT_EQ(f.impact_kind, findings::ImpactKind::kQuantified);
    EXPECT_TRUE(f.key == "d2d" || f.key == "h2d" || f.key == "d2h");
    // No finding below 2 % of E2E: the copies it is about take at least that much of the run.
    EXPECT_GE(f.share_percent, 2.0);
    EXPECT_LE(f.share_percent, memcpy_percent + 1e-6);
    // Impact never above the exposed copy time it is about, nor above all exposed copy time.
    EXPECT_LE(f.impact_low, f.impact_mid);
    EXPECT_LE(f.impact_mid, f.impact_high);
    EXPECT_LE(f.impact_high, metric(f, "exposed_percent_of_e2e") + 1e-9);
    EXPECT_LE(f.impact_high, exposed_percent + 1e-6);
    if (f.key != "d2d") {
      EXPECT_GE(exposed_percent, 2.0 - 1e-6);
    }
    // Pin-memory advice only where a copy's name says pageable.
    if (!pageable) {
      EXPECT_FALSE(has(f.action, "pin_memory"));
      EXPECT_FALSE(has(f.action, "Pin the host memory"));
      EXPECT_FALSE(has(f.action, "pinned host buffers"));
    }
    // The bandwidth is judged only against a link the platform gives.
    if (has(f.action, "Batch the small transfers") || has(f.action, "negotiated")) {
      EXPECT_TRUE(spec->host_link_gbps.has_value());
    }
    // Blocking copies are referred to the GPU-idle finding, with no impact of their own.
    if (has(f.insight, "block the host") || has(f.insight, "blocks the host")) {
      EXPECT_TRUE(has(f.insight, "GPU-idle finding for blocking copies"));
    }
  }
  // Without 2 % of E2E in copies no memcpy finding can exist at all.
  if (memcpy_percent < 2.0) {
    EXPECT_TRUE(run.outcome().findings.empty());
  }
}

INSTANTIATE_TEST_SUITE_P(Shared, MemcpyOnSharedTraces, ::testing::ValuesIn(shared_trace_files()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace traceprism::plugins::memcpy
