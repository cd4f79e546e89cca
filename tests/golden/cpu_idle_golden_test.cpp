// cpu-idle figures against the reference's agent goldens (TraceLens cpu_idle_analysis.py and the
// gpu_utilization object of orchestrator_prepare.py) beside the real traces in ../shared/traces.
// Runs `traceprism analyze TRACE -o DIR` and reads DIR/findings.json.
//
// Compared: category_data/cpu_idle_metrics.json `gpu_utilization` (rounded as the reference
// rounds) and `idle_flagged`; metadata/cpu_idle_metadata.json `gpu_utilization` (unrounded);
// for the second trace of a comparative case, metadata/trace2_gpu_utilization.json. Not
// compared: `kernel_analysis` (the reference's fields are always 0 by a quirk; traceprism
// computes them, docs/compatibility.md). Tolerance: 1e-9 relative (or 1e-12 absolute for
// zeros), since the figures are the same doubles computed the same way.
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cmath>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "support/findings_json.hpp"
#include "support/shared_traces.hpp"

namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

const fs::path kTraces = traceprism::testing::shared_traces();

struct GoldenCase {
  std::string name;
  fs::path trace;
  fs::path metrics;                      // cpu_idle_metrics.json; empty for a comparative trace 2
  fs::path metadata;                     // cpu_idle_metadata.json, or trace2_gpu_utilization.json
  bool metadata_is_utilization = false;  // the file is the gpu_utilization object itself
};

std::vector<GoldenCase> find_cases() {
  std::vector<GoldenCase> cases;
  // Hand-written agent unit cases: standalone/<case>/trace.json, comparative/<case>/trace{1,2}.
  for (const char* scope : {"standalone", "comparative"}) {
    const fs::path root = kTraces / "agent_unit" / scope;
    if (!fs::is_directory(root)) continue;
    for (const auto& entry : fs::directory_iterator(root)) {
      const fs::path dir = entry.path();
      const fs::path expected = dir / "expected";
      if (!fs::is_directory(expected)) continue;
      const std::string base = "agent_unit_" + dir.filename().string();
      const fs::path metrics = expected / "category_data" / "cpu_idle_metrics.json";
      const fs::path metadata = expected / "metadata" / "cpu_idle_metadata.json";
      if (fs::exists(dir / "trace.json")) {
        cases.push_back(
            {traceprism::testing::test_name(base), dir / "trace.json", metrics, metadata});
      }
      if (fs::exists(dir / "trace1.json")) {
        cases.push_back({traceprism::testing::test_name(base + "_trace1"), dir / "trace1.json",
                         metrics, metadata});
      }
      const fs::path trace2_util = expected / "metadata" / "trace2_gpu_utilization.json";
      if (fs::exists(dir / "trace2.json") && fs::exists(trace2_util)) {
        cases.push_back({traceprism::testing::test_name(base + "_trace2"),
                         dir / "trace2.json",
                         {},
                         trace2_util,
                         true});
      }
    }
  }
  // Real model traces with an agent golden: tracelens/<gpu>/<stem>.json.gz + <stem>_agent_expected.
  for (const auto& g : traceprism::testing::tracelens_agent_goldens(kTraces / "tracelens")) {
    cases.push_back({traceprism::testing::test_name(g.name), g.trace,
                     g.expected / "category_data" / "cpu_idle_metrics.json",
                     g.expected / "metadata" / "cpu_idle_metadata.json"});
  }
  std::sort(cases.begin(), cases.end(), [](auto& a, auto& b) { return a.name < b.name; });
  return cases;
}

void PrintTo(const GoldenCase& c, std::ostream* os) {
  *os << c.trace;
}

using traceprism::testing::number;
using traceprism::testing::read_json;

bool close(double expected, double actual) {
  return std::fabs(expected - actual) <= 1e-12 ||
         std::fabs(expected - actual) <= 1e-9 * std::fabs(expected);
}

// figures["cpu-idle"][key], or nullopt (with a failure) when missing.
std::optional<double> figure(const json::object& report, const std::string& key) {
  std::optional<double> v = traceprism::testing::figure(report, "cpu-idle", key);
  if (!v) ADD_FAILURE() << "figure " << key << " missing";
  return v;
}

class CpuIdleGolden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(CpuIdleGolden, FiguresMatchReference) {
  const GoldenCase& c = GetParam();
  if (c.trace.empty()) GTEST_SKIP() << "no reference traces: " << kTraces << " is absent";

  std::string log;
  const json::object root = traceprism::testing::analyze_findings(c.trace, &log);
  ASSERT_FALSE(root.empty());

  // The analyzer ran and succeeded.
  bool ran = false;
  for (const json::value& a : root.at("analyzers").as_array()) {
    if (a.at("name").as_string() != "cpu-idle") continue;
    ran = true;
    EXPECT_EQ(a.at("status").as_string(), "ok") << json::serialize(a);
  }
  ASSERT_TRUE(ran) << "cpu-idle did not run; output:\n" << log;

  double idle_percent = 0;
  bool flagged = false;
  if (!c.metrics.empty()) {
    const json::value metrics = read_json(c.metrics);
    const json::object& util = metrics.at("gpu_utilization").as_object();
    for (const char* key : {"total_time_ms", "idle_time_ms", "idle_time_percent",
                            "computation_percent", "communication_percent", "memcpy_percent"}) {
      const double expected = number(util.at(key));
      if (auto actual = figure(root, std::string("gpu_utilization.") + key)) {
        EXPECT_TRUE(close(expected, *actual))
            << key << ": expected " << expected << ", got " << *actual;
      }
    }
    flagged = metrics.at("idle_flagged").as_bool();
    if (auto actual = figure(root, "idle_flagged")) {
      EXPECT_EQ(*actual, flagged ? 1.0 : 0.0);
    }
  }

  const json::value metadata = read_json(c.metadata);
  const json::object& util =
      c.metadata_is_utilization ? metadata.as_object() : metadata.at("gpu_utilization").as_object();
  for (const char* key : {"total_time_ms", "computation_time_percent", "exposed_comm_time_percent",
                          "exposed_memcpy_time_percent", "idle_time_percent"}) {
    const double expected = number(util.at(key));
    if (auto actual = figure(root, std::string("metadata.gpu_utilization.") + key)) {
      EXPECT_TRUE(close(expected, *actual))
          << "metadata " << key << ": expected " << expected << ", got " << *actual;
    }
  }
  idle_percent = number(util.at("idle_time_percent"));
  if (c.metrics.empty()) flagged = idle_percent > 15;

  // One cpu-idle finding exactly when idle > 15% (the reference's gate), none otherwise.
  const auto findings = traceprism::testing::findings_of(root, "cpu-idle");
  for (const json::object* finding : findings) {
    const json::object& f = *finding;
    EXPECT_EQ(f.at("category").as_string(), "cpu_idle");
    EXPECT_EQ(f.at("key").as_string(), "gpu-idle");
    EXPECT_EQ(f.at("tier").as_string(), "system");
    EXPECT_TRUE(close(idle_percent, number(f.at("share_percent"))));
    EXPECT_FALSE(f.at("insight").as_string().empty());
    EXPECT_FALSE(f.at("action").as_string().empty());
    EXPECT_FALSE(f.at("evidence").as_array().empty());
  }
  EXPECT_EQ(findings.size(), flagged ? 1u : 0u) << "idle " << idle_percent << "%";
}

std::vector<GoldenCase> cases_or_placeholder() {
  auto cases = find_cases();
  if (cases.empty()) cases.push_back({"shared_traces_absent", {}, {}, {}});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Traces, CpuIdleGolden, ::testing::ValuesIn(cases_or_placeholder()),
                         [](const auto& info) { return info.param.name; });

// The worked case of the analysis spec (§7): conv_07_transposed is 47.6% idle, so exactly one
// system finding, with its utilization table and the largest gaps.
TEST(CpuIdleGoldenCase, Conv07TransposedHasOneIdleFinding) {
  const fs::path trace =
      kTraces / "agent_unit" / "standalone" / "conv_07_transposed" / "trace.json";
  if (!fs::exists(trace)) GTEST_SKIP() << "no reference traces: " << trace << " is absent";
  const json::object report = traceprism::testing::analyze_findings(trace);
  ASSERT_FALSE(report.empty());
  const auto ours = traceprism::testing::findings_of(report, "cpu-idle");
  ASSERT_EQ(ours.size(), 1u);
  const json::object& f = *ours.front();
  EXPECT_EQ(f.at("title").as_string(), "GPU idle 47.6% of end-to-end time");
  EXPECT_EQ(f.at("impact").at("kind").as_string(), "not_quantifiable");
  bool utilization = false, gaps = false;
  for (const json::value& t : f.at("tables").as_array()) {
    const json::string& title = t.at("title").as_string();
    if (title == "Utilization") {
      utilization = true;
      const json::array& columns = t.at("columns").as_array();
      ASSERT_EQ(columns.size(), 3u);
      EXPECT_EQ(columns[0].as_string(), "Metric");
      EXPECT_EQ(columns[1].as_string(), "Value");
      EXPECT_EQ(columns[2].as_string(), "Flagged");
    }
    if (title == "Largest idle gaps") gaps = !t.at("rows").as_array().empty();
  }
  EXPECT_TRUE(utilization);
  EXPECT_TRUE(gaps);
}

}  // namespace
