// Op instances ("kernel launchers", trace-format spec §6) against the reference's ops_summary
// sheet: per op name, the number of instances and the sums of direct and subtree busy kernel
// time. Categories and percentages need perf models and are checked with that sheet later.
// Tolerance: 1e-6 µs absolute (the reference regression test's own bound on float columns).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>

#include "model/kernel_launchers.hpp"
#include "pipeline/trace_load.hpp"
#include "support/csv.hpp"
#include "support/shared_traces.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;

namespace {

const fs::path kTraces = traceprism::testing::shared_traces();

struct OpsCase {
  std::string name;
  fs::path trace;
  fs::path golden;
};

void PrintTo(const OpsCase& c, std::ostream* os) {
  *os << c.golden;
}

std::vector<OpsCase> find_cases() {
  std::vector<OpsCase> cases;
  const fs::path root = kTraces / "tracelens";
  if (!fs::is_directory(root)) return {{"shared_traces_absent", {}, {}}};
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    const std::string file = entry.path().filename().string();
    if (!entry.is_regular_file() || !file.ends_with(".json.gz")) continue;
    const std::string stem = file.substr(0, file.size() - 8);
    const fs::path golden =
        entry.path().parent_path() / (stem + "_perf_report_csvs") / "ops_summary.csv";
    if (!fs::exists(golden)) continue;
    std::string name = fs::relative(entry.path().parent_path(), root).string() + "_" + stem;
    name = traceprism::testing::test_name(name);
    cases.push_back({name, entry.path(), golden});
  }
  std::sort(cases.begin(), cases.end(), [](auto& a, auto& b) { return a.name < b.name; });
  return cases;
}

struct OpTotals {
  double direct = 0, subtree = 0;
  long count = 0;
};

class OpsSummaryGolden : public ::testing::TestWithParam<OpsCase> {};

TEST_P(OpsSummaryGolden, LaunchersMatchTheReference) {
  const OpsCase& c = GetParam();
  if (c.trace.empty()) GTEST_SKIP() << kTraces << " is absent";
  traceprism::pipeline::LoadOptions options;
  options.quiet = true;
  auto s = traceprism::pipeline::load_trace(c.trace.string(), options);
  auto launchers = traceprism::model::KernelLaunchers::build(s.file.index, s.tree, s.links);

  std::map<std::string, OpTotals> ours;
  for (const auto& l : launchers.all()) {
    auto& t = ours[std::string(s.file.index.name(l.row))];
    t.direct += l.direct_busy_us;
    t.subtree += l.subtree_busy_us;
    ++t.count;
  }
  auto csv = traceprism::testing::parse_csv(traceprism::testing::read_file(c.golden.string()));
  const auto name = csv.column("name"), direct = csv.column("total_direct_kernel_time_sum"),
             subtree = csv.column("total_subtree_kernel_time_sum"), count = csv.column("Count");
  ASSERT_LT(count, csv.header.size());
  EXPECT_EQ(ours.size(), csv.rows.size());
  for (const auto& row : csv.rows) {
    auto it = ours.find(row[name]);
    ASSERT_NE(it, ours.end()) << "missing op " << row[name];
    EXPECT_EQ(it->second.count, std::stol(row[count])) << row[name];
    EXPECT_NEAR(it->second.direct, std::stod(row[direct]), 1e-6) << row[name];
    EXPECT_NEAR(it->second.subtree, std::stod(row[subtree]), 1e-6) << row[name];
  }
}

INSTANTIATE_TEST_SUITE_P(Traces, OpsSummaryGolden, ::testing::ValuesIn(find_cases()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
