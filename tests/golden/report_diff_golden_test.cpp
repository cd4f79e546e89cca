// `traceprism compare-reports` on the reference's report-level comparison (trace-format spec
// §14.1): TraceLens' own e2e case, the H100 and MI300X Qwen perf reports
// (../shared/traces/tracelens/compare_test_e2e/reference/{h100,mi300}_perf_report_csvs) compared
// with names h100, mi300 and sheets "all"; every sheet of compare_h100_mi300_qwen_csvs/.
//
// Comparison: same header, rows in the same order; cells that both read as numbers within
// 1e-9 relative or 1e-12 absolute, other cells exactly. The tolerance only absorbs the
// reference's copies of its inputs: its reports were xlsx workbooks whose `_std` cells differ
// from the CSV reports in the last digits (0.0953509917895861 vs 0.09535099178958618). Rows
// tied on kernel_summary's sort column are compared as a set (see tie_column).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "support/csv.hpp"
#include "support/run_cli.hpp"
#include "support/shared_traces.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;
using traceprism::testing::Csv;

namespace {

fs::path reference_dir() {
  return traceprism::testing::shared_traces() / "tracelens" / "compare_test_e2e" / "reference";
}

std::vector<std::string> golden_sheets() {
  const fs::path dir = reference_dir() / "compare_h100_mi300_qwen_csvs";
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return {"shared_traces_absent"};
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".csv") out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

// One run for every sheet.
const fs::path& compared() {
  static traceprism::testing::TempDir dir;
  static const fs::path out = [] {
    const fs::path o = dir.path() / "diff";
    std::string log;
    const int rc = traceprism::testing::run_cli(
        "compare-reports " +
            traceprism::testing::shell_quote((reference_dir() / "h100_perf_report_csvs").string()) +
            " " +
            traceprism::testing::shell_quote(
                (reference_dir() / "mi300_perf_report_csvs").string()) +
            " --names h100 mi300 -q -o " + traceprism::testing::shell_quote(o.string()),
        &log);
    EXPECT_EQ(rc, 0) << log;
    return o;
  }();
  return out;
}

bool cells_match(const std::string& golden, const std::string& ours) {
  const auto g = traceprism::testing::cell_number(golden);
  const auto o = traceprism::testing::cell_number(ours);
  if (g && o) return std::fabs(*g - *o) <= std::max(1e-12, 1e-9 * std::fabs(*g));
  return golden == ours;
}

bool rows_match(const Csv& golden, std::size_t g, const Csv& ours, std::size_t o) {
  for (std::size_t col = 0; col < golden.header.size(); ++col) {
    const std::string& a = col < golden.rows[g].size() ? golden.rows[g][col] : "";
    const std::string& b = col < ours.rows[o].size() ? ours.rows[o][col] : "";
    if (!cells_match(a, b)) return false;
  }
  return true;
}

// The reference sorts with numpy's unstable quicksort, so rows tied on the sort column (a
// kernel name that several rows of both reports share gives every pair, all with the same
// baseline time) come in an order that depends on the machine; traceprism keeps merge order.
// In those sheets each run of tied rows is compared as a set.
std::string tie_column(const std::string& sheet) {
  if (sheet == "kernel_summary") return "h100::Kernel duration (µs)_sum";
  return {};
}

void expect_same_rows_up_to_ties(const Csv& golden, const Csv& ours, const std::string& tie) {
  const std::size_t t = golden.column(tie);
  ASSERT_LT(t, golden.header.size());
  for (std::size_t begin = 0; begin < golden.rows.size();) {
    std::size_t end = begin + 1;
    while (end < golden.rows.size() && golden.rows[end][t] == golden.rows[begin][t]) ++end;
    std::vector<bool> used(end - begin, false);
    for (std::size_t g = begin; g < end; ++g) {
      bool found = false;
      for (std::size_t o = begin; o < end && !found; ++o)
        if (!used[o - begin] && rows_match(golden, g, ours, o)) found = used[o - begin] = true;
      EXPECT_TRUE(found) << "golden row " << g << " (" << golden.rows[g][0]
                         << ") has no match among our rows " << begin << ".." << end - 1;
    }
    begin = end;
  }
}

class ReportDiffGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(ReportDiffGolden, MatchesReference) {
  const std::string& sheet = GetParam();
  if (sheet == "shared_traces_absent")
    GTEST_SKIP() << "no reference traces: compare_test_e2e is absent";
  const std::string golden_text = traceprism::testing::read_file(
      (reference_dir() / "compare_h100_mi300_qwen_csvs" / (sheet + ".csv")).string());
  const fs::path ours_path = compared() / (sheet + ".csv");
  ASSERT_TRUE(fs::exists(ours_path)) << "compare-reports wrote no " << sheet << ".csv";
  const std::string ours_text = traceprism::testing::read_file(ours_path.string());
  if (golden_text == "\n") {  // the reference's empty sheet: no rows, every column dropped
    EXPECT_EQ(ours_text, golden_text);
    return;
  }
  const Csv golden = traceprism::testing::parse_csv(golden_text);
  const Csv ours = traceprism::testing::parse_csv(ours_text);
  ASSERT_EQ(ours.header, golden.header);
  ASSERT_EQ(ours.rows.size(), golden.rows.size());
  if (const std::string tie = tie_column(sheet); !tie.empty()) {
    expect_same_rows_up_to_ties(golden, ours, tie);
    return;
  }
  for (std::size_t r = 0; r < golden.rows.size(); ++r)
    for (std::size_t col = 0; col < golden.header.size(); ++col) {
      const std::string& g = col < golden.rows[r].size() ? golden.rows[r][col] : "";
      const std::string& o = col < ours.rows[r].size() ? ours.rows[r][col] : "";
      EXPECT_TRUE(cells_match(g, o)) << "row " << r << " column " << golden.header[col]
                                     << ": golden `" << g << "`, ours `" << o << "`";
    }
}

INSTANTIATE_TEST_SUITE_P(Sheets, ReportDiffGolden, ::testing::ValuesIn(golden_sheets()),
                         [](const auto& info) {
                           return traceprism::testing::test_name(info.param);
                         });

}  // namespace
