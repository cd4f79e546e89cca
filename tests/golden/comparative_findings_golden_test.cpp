// The comparative compute tier end to end (analysis-rules.md §11): `traceprism compare
// trace1.json trace2.json --platform-file MI300X.json --reference-platform-file H100.json` on the
// 4 comparative agent cases. findings.json's compute findings, in rank order, must be
// priority_data.json's findings[]: category, category rank (the key), library, impact
// low/mid/high within 0.01, and the members' efficiency (trace 1's speed as % of trace 2's, with
// the roofline cap). The efficiencies come from TraceDiff's speedup / delta columns (ABI 1.8).
//
// The reference's comparative fusion estimates (§9.2, §9.5: diff_stats LCAs with fewer kernels in
// trace 2) are not built yet: a case whose golden has one is reported as a known gap, and until
// then no fusion item may appear in a comparative report.
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
  const std::vector<json::object> compute = of_tier(ours, "compute");
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

TEST_P(ComparativeFindingsGolden, NoFusionItemUntilComparativeFusionIsBuilt) {
  const Case& c = GetParam();
  if (c.dir.empty()) GTEST_SKIP() << "no reference traces: the comparative cases are absent";
  const json::object& ours = compared(c);
  ASSERT_FALSE(ours.empty());
  EXPECT_TRUE(of_tier(ours, "fusion").empty());
  const json::value golden =
      traceprism::testing::read_json(c.dir / "expected" / "priority_data.json");
  for (const json::value& e : golden.at("all_estimates").as_array())
    if (e.at("category").as_string() == "kernel_fusion")
      GTEST_SKIP() << "known gap: the reference estimates fusion candidate `"
                   << e.at("operation").as_string()
                   << "` from trace 2's fewer kernels (analysis-rules.md §9.2), not built yet";
}

INSTANTIATE_TEST_SUITE_P(Cases, ComparativeFindingsGolden, ::testing::ValuesIn(find_cases()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
