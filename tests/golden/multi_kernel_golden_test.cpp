// The memcpy and comm analyzers' figures against the reference (TraceLens agent) goldens
// multi_kernel_data.json and multi_kernel_metrics.json, through the CLI: `traceprism analyze
// TRACE -o DIR`, then DIR/findings.json "figures" {"memcpy": {...}, "comm": {...}}.
//
// Figure keys are the golden JSON paths joined with '.'; list elements are addressed by index
// (nccl_summary.top_ops.0.duration_us), except memcpy_assessment.issues, addressed by direction
// (memcpy_assessment.issues.D2H.time_ms). Every numeric leaf must match within 1e-9 relative
// (the reference rounds with Python's round(); the analyzers reproduce the same doubles), a null
// leaf must be absent, booleans are 1/0. In the other direction, every figure under
// memcpy_summary, nccl_summary, overlap_analysis and the three assessments must exist in the
// golden, so a value the reference leaves out (a null ratio, avg/max of zero collectives, the
// numbers of an assessment that did not apply) is left out too.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
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
  fs::path category_data;  // folder holding multi_kernel_data.json and multi_kernel_metrics.json
};

void PrintTo(const GoldenCase& c, std::ostream* os) {
  *os << c.trace;
}

bool has_goldens(const fs::path& dir) {
  return fs::exists(dir / "multi_kernel_data.json") &&
         fs::exists(dir / "multi_kernel_metrics.json");
}

// Every tracelens trace with `<stem>_agent_expected/` beside it, and every agent unit case
// (standalone: trace.json; comparative: trace1.json, the primary trace the goldens describe).
std::vector<GoldenCase> find_cases() {
  std::vector<GoldenCase> cases;
  for (const auto& g : traceprism::testing::tracelens_agent_goldens(kTraces / "tracelens")) {
    const fs::path dir = g.expected / "category_data";
    if (!has_goldens(dir)) continue;
    cases.push_back({traceprism::testing::test_name("tracelens_" + g.name), g.trace, dir});
  }
  const fs::path agent = kTraces / "agent_unit";
  if (fs::is_directory(agent)) {
    for (const auto& entry : fs::recursive_directory_iterator(agent)) {
      const std::string file = entry.path().filename().string();
      if (!entry.is_regular_file() || (file != "trace.json" && file != "trace1.json")) continue;
      const fs::path dir = entry.path().parent_path();
      if (!has_goldens(dir / "expected" / "category_data")) continue;
      cases.push_back({traceprism::testing::test_name("agent_unit_" + dir.filename().string()),
                       entry.path(), dir / "expected" / "category_data"});
    }
  }
  std::sort(cases.begin(), cases.end(), [](auto& a, auto& b) { return a.name < b.name; });
  return cases;
}

using traceprism::testing::number;
using traceprism::testing::read_json;

// Golden lists addressed by a field instead of the index: memcpy_assessment.issues by direction.
const std::vector<traceprism::testing::ListKeyField> kKeyedLists = {{".issues", "direction"}};

bool is_number(const json::value& v) {
  return v.is_int64() || v.is_uint64() || v.is_double();
}

bool close(double expected, double actual) {
  if (expected == actual) return true;
  return std::fabs(expected - actual) <= 1e-9 * std::max(std::fabs(expected), std::fabs(actual));
}

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

// The sections of the two golden files that the analyzers reproduce.
const std::vector<std::string> kDataSections = {"memcpy_summary", "nccl_summary",
                                                "overlap_analysis"};
const std::vector<std::string> kMetricSections = {"memcpy_assessment", "nccl_blocking_assessment",
                                                  "overlap_assessment"};

class MultiKernelGolden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(MultiKernelGolden, FiguresMatchReference) {
  const GoldenCase& c = GetParam();
  if (c.trace.empty()) GTEST_SKIP() << "no reference traces: " << kTraces << " is absent";

  std::string log;
  const json::object findings = traceprism::testing::analyze_findings(c.trace, &log);
  ASSERT_TRUE(findings.contains("figures")) << log;
  const json::object& all_figures = findings.at("figures").as_object();

  // figures["memcpy"] and figures["comm"], merged; no key may come from both.
  std::map<std::string, double> figures;
  for (const char* analyzer : {"memcpy", "comm"}) {
    ASSERT_TRUE(all_figures.contains(analyzer)) << "no figures from analyzer " << analyzer;
    for (const auto& [key, value] : all_figures.at(analyzer).as_object()) {
      const bool inserted = figures.emplace(std::string(key), number(value)).second;
      EXPECT_TRUE(inserted) << key << " recorded by both analyzers";
    }
  }

  std::map<std::string, const json::value*> golden;
  const json::value data = read_json(c.category_data / "multi_kernel_data.json");
  for (const auto& s : kDataSections)
    traceprism::testing::flatten(data.as_object().at(s), s, golden, kKeyedLists);
  const json::value metrics = read_json(c.category_data / "multi_kernel_metrics.json");
  for (const auto& s : kMetricSections)
    traceprism::testing::flatten(metrics.as_object().at(s), s, golden, kKeyedLists);

  int compared = 0;
  for (const auto& [path, value] : golden) {
    auto it = figures.find(path);
    if (value->is_null()) {
      EXPECT_TRUE(it == figures.end())
          << path << " is null in the golden but recorded as " << it->second;
    } else if (is_number(*value) || value->is_bool()) {
      if (it == figures.end()) {
        ADD_FAILURE() << path << " = " << json::serialize(*value) << " is not recorded";
        continue;
      }
      EXPECT_TRUE(close(number(*value), it->second))
          << path << ": expected " << json::serialize(*value) << ", got " << it->second;
      ++compared;
    }  // strings (names, descriptions, details) are not figures
  }
  EXPECT_GT(compared, 0);

  // Nothing beyond the golden under its sections, except the per-direction flags.
  std::vector<std::string> sections = kDataSections;
  sections.insert(sections.end(), kMetricSections.begin(), kMetricSections.end());
  for (const auto& entry : figures) {
    const std::string& key = entry.first;
    const double value = entry.second;
    const bool in_section =
        std::any_of(sections.begin(), sections.end(),
                    [&](const std::string& s) { return starts_with(key, s + "."); });
    if (!in_section || starts_with(key, "memcpy_assessment.by_direction.")) continue;
    EXPECT_TRUE(golden.count(key)) << key << " = " << value << " is not in the golden";
  }

  // memcpy_assessment.by_direction.<D2H|H2D>.flagged agrees with the golden's issues list.
  if (metrics.as_object().at("memcpy_assessment").as_object().contains("total_count")) {
    for (const std::string dir : {"D2H", "H2D"}) {
      const bool present = golden.count("memcpy_summary.by_direction." + dir + ".count") > 0;
      auto it = figures.find("memcpy_assessment.by_direction." + dir + ".flagged");
      if (!present) {
        EXPECT_TRUE(it == figures.end()) << dir;
        continue;
      }
      ASSERT_TRUE(it != figures.end()) << dir;
      const bool issue = golden.count("memcpy_assessment.issues." + dir + ".count") > 0;
      EXPECT_EQ(it->second, issue ? 1.0 : 0.0) << dir;
    }
  }
}

std::vector<GoldenCase> cases_or_placeholder() {
  auto cases = find_cases();
  if (cases.empty()) cases.push_back({"shared_traces_absent", {}, {}});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Traces, MultiKernelGolden, ::testing::ValuesIn(cases_or_placeholder()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
