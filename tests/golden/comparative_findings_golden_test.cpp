// The comparative compute tier end to end (analysis-rules.md §11): `traceprism compare
// trace1.json trace2.json --platform-file MI300X.json --reference-platform-file H100.json` on the
// 4 comparative agent cases. findings.json's compute findings, in rank order, must be
// priority_data.json's findings[]: category, category rank (the key), library, impact
// low/mid/high within 0.01, and the members' efficiency (trace 1's speed as % of trace 2's, with
// the roofline cap). The efficiencies come from TraceDiff's speedup / delta columns (ABI 1.8).
//
// The comparative fusion tier (§9.2, §9.5): each kernel_fusion estimate of all_estimates is a
// fusion finding with the measured gap (test01's moe_layer 25.0, medium); the other cases have
// none.
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "support/findings_json.hpp"
#include "support/run_cli.hpp"
#include "support/shared_traces.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;
namespace json = boost::json;
using traceprism::testing::number;

namespace {

struct Case {
  std::string name;
  fs::path dir;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name;
}

std::vector<Case> find_cases() {
  const fs::path root = traceprism::testing::shared_traces() / "agent_unit" / "comparative";
  std::error_code ec;
  if (!fs::is_directory(root, ec)) return {{"shared_traces_absent", {}}};
  std::vector<Case> out;
  for (const auto& e : fs::directory_iterator(root))
    if (fs::exists(e.path() / "expected" / "priority_data.json"))
      out.push_back({traceprism::testing::test_name(e.path().filename().string()), e.path()});
  std::sort(out.begin(), out.end(), [](const Case& a, const Case& b) { return a.name < b.name; });
  return out;
}

// findings.json of one compare run per case, with the platforms the goldens were made with.
const json::object& compared(const Case& c) {
  static traceprism::testing::TempDir dir;
  static std::map<std::string, json::object> done;
  if (auto it = done.find(c.name); it != done.end()) return it->second;
  const fs::path platforms = traceprism::testing::shared_traces() / "platforms_for_goldens";
  const fs::path out = dir.path() / c.name;
  std::string log;
  using traceprism::testing::shell_quote;
  const int rc = traceprism::testing::run_cli(
      "compare " + shell_quote((c.dir / "trace1.json").string()) + " " +
          shell_quote((c.dir / "trace2.json").string()) + " --platform-file " +
          shell_quote((platforms / "MI300X.json").string()) + " --reference-platform-file " +
          shell_quote((platforms / "H100.json").string()) + " -q -o " + shell_quote(out.string()),
      &log);
  EXPECT_EQ(rc, 0) << log;
  json::object findings;
  if (rc == 0) findings = traceprism::testing::read_json(out / "findings.json").as_object();
  return done.emplace(c.name, std::move(findings)).first->second;
}

std::vector<json::object> of_tier(const json::object& root, const char* tier) {
  std::vector<json::object> out;
  for (const json::value& f : root.at("findings").as_array())
    if (f.at("tier").as_string() == tier) out.push_back(f.as_object());
  return out;
}

// The compute-efficiency analyzers' findings with the impact they emitted. Two departures are
// left out of the parity check (docs/compatibility.md): trace 1's layout / precision / recompute
// items that trace 2 does not share (the reference drops them), and the ranker's one finding per
// kernel (diagnosis.md §1.5), which shrinks an item whose kernels a more specific one reports
// (test04's GEMM gives the MIOpen transpose's time to the layout item).
std::vector<json::object> compute_efficiency_as_emitted(const json::object& root) {
  static const std::vector<std::string> kEfficiency = {
      "conv-efficiency",   "elementwise-efficiency", "gemm-efficiency",
      "generic-ops",       "moe-efficiency",         "norm-efficiency",
      "reduce-efficiency", "sdpa-efficiency",        "triton-efficiency"};
  std::vector<json::object> out;
  for (json::object f : of_tier(root, "compute")) {
    const std::string analyzer(f.at("analyzer").as_string());
    if (std::find(kEfficiency.begin(), kEfficiency.end(), analyzer) == kEfficiency.end()) continue;
    if (!f.at("shared_kernels").is_null()) {
      json::object impact = f.at("shared_kernels").at("impact_as_emitted").as_object();
      impact["kind"] = f.at("impact").at("kind");
      f["impact"] = impact;
    }
    out.push_back(std::move(f));
  }
  return out;
}

class ComparativeFindingsGolden : public ::testing::TestWithParam<Case> {};

TEST_P(ComparativeFindingsGolden, ComputeFindingsMatchPriorityData) {
  const Case& c = GetParam();
  if (c.dir.empty()) GTEST_SKIP() << "no reference traces: the comparative cases are absent";
  const json::object& ours = compared(c);
  ASSERT_FALSE(ours.empty());
  EXPECT_EQ(ours.at("mode").as_string(), "comparative");
  const json::value priority =
      traceprism::testing::read_json(c.dir / "expected" / "priority_data.json");
  const json::array& golden = priority.at("findings").as_array();
  const std::vector<json::object> compute = compute_efficiency_as_emitted(ours);
  ASSERT_EQ(compute.size(), golden.size());
  for (std::size_t i = 0; i < golden.size(); ++i) {
    const json::object& g = golden[i].as_object();
    const json::object& f = compute[i];
    SCOPED_TRACE("finding " + std::to_string(i + 1));
    EXPECT_EQ(f.at("category").as_string(), g.at("category").as_string());
    EXPECT_EQ(number(f.at("metrics").at("category_rank")), number(g.at("category_rank")));
    EXPECT_EQ(f.at("library").as_string(), g.at("library").as_string());
    EXPECT_NEAR(number(f.at("impact").at("low")), number(g.at("impact_score_low")), 0.01);
    EXPECT_NEAR(number(f.at("impact").at("mid")), number(g.at("impact_score")), 0.01);
    EXPECT_NEAR(number(f.at("impact").at("high")), number(g.at("impact_score_high")), 0.01);
    double lo = 1e300, hi = -1e300;
    for (const json::value& m : g.at("members").as_array()) {
      lo = std::min(lo, number(m.at("efficiency_pct")));
      hi = std::max(hi, number(m.at("efficiency_pct")));
    }
    EXPECT_NEAR(number(f.at("metrics").at("efficiency_min_percent")), lo, 0.01);
    EXPECT_NEAR(number(f.at("metrics").at("efficiency_max_percent")), hi, 0.01);
  }
}

// priority_data.json's kernel_fusion estimates (all_estimates, §9.2 / §9.5): one fusion finding
// each, in impact order, with the same impact, time, counts, confidence and trace-1 kernels.
TEST_P(ComparativeFindingsGolden, FusionFindingsMatchTheMeasuredEstimates) {
  const Case& c = GetParam();
  if (c.dir.empty()) GTEST_SKIP() << "no reference traces: the comparative cases are absent";
  const json::object& ours = compared(c);
  ASSERT_FALSE(ours.empty());
  const json::value golden =
      traceprism::testing::read_json(c.dir / "expected" / "priority_data.json");
  std::vector<json::object> estimates;
  for (const json::value& e : golden.at("all_estimates").as_array())
    if (e.at("category").as_string() == "kernel_fusion") estimates.push_back(e.as_object());
  const std::vector<json::object> fusion = of_tier(ours, "fusion");
  ASSERT_EQ(fusion.size(), estimates.size());
  static const char* const kConfidence[] = {"low", "medium", "high"};
  for (std::size_t i = 0; i < estimates.size(); ++i) {
    const json::object& g = estimates[i];
    const json::object& f = fusion[i];
    SCOPED_TRACE("estimate " + std::string(g.at("operation").as_string()));
    EXPECT_NE(std::string(f.at("title").as_string()).find(g.at("operation").as_string()),
              std::string::npos);
    EXPECT_EQ(g.at("estimation").as_string(), "measured");
    EXPECT_NEAR(number(f.at("impact").at("low")), number(g.at("impact_score_low")), 0.01);
    EXPECT_NEAR(number(f.at("impact").at("mid")), number(g.at("impact_score")), 0.01);
    EXPECT_NEAR(number(f.at("impact").at("high")), number(g.at("impact_score_high")), 0.01);
    const json::object& m = f.at("metrics").as_object();
    EXPECT_NEAR(number(m.at("time_ms")), number(g.at("time_ms")), 0.001);
    EXPECT_EQ(number(m.at("instance_count")), number(g.at("instance_count")));
    EXPECT_EQ(number(m.at("kernel_count")), number(g.at("kernel_count")));
    EXPECT_EQ(number(m.at("delta_kernel_count")), number(g.at("delta_kernel_count")));
    EXPECT_EQ(kConfidence[static_cast<int>(number(m.at("confidence_level")))],
              g.at("confidence").as_string());
    const json::array& rows = f.at("tables").at(0).at("rows").as_array();
    const json::array& kernels = g.at("affected_gpu_kernels").as_array();
    ASSERT_EQ(rows.size(), kernels.size());
    for (std::size_t k = 0; k < kernels.size(); ++k)
      EXPECT_EQ(rows[k].at(0).as_string(), kernels[k].as_string());
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, ComparativeFindingsGolden, ::testing::ValuesIn(find_cases()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
