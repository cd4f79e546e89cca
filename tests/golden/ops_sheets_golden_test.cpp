// The sheets built from op instances and kernels (ops_summary_by_category, ops_summary,
// ops_unique_args, kernel_summary, short_kernel_histogram, short_kernels_summary) against every
// regression pair of ../shared/traces/tracelens (X.json.gz beside X_perf_report_csvs/, which
// the reference produced with kernel_summary and short_kernel_study on).
//
// Two modes:
// - default: the CLI writes the report (`traceprism perf-report TRACE -o DIR`), with the
//   op-model plugins supplying categories, and every column is compared.
// - TRACEPRISM_GOLDEN_WITHOUT_PLUGINS=1 (for work on the sheets alone): the sheets are built
//   in-process (perf_report::build_launcher_sheets) with no op-model registry, so categories come
//   from names and kernels only. Only what does not depend on categories is compared:
//   ops_summary_by_category is reduced to its totals, and the columns `Categories`
//   (ops_summary), `op category` (ops_unique_args) and `Parent op category` (kernel_summary)
//   are skipped.
//
// Comparison (the reference regression test's rules, tightened): same header, same rows in the
// same order; integer cells exactly; float cells within 1e-4 relative or 1e-6 absolute; other
// cells exactly after rewriting numpy scalars `np.float64(x)` as `x` in both. Where the
// reference sorts on a single key, rows with exactly that key (as printed) may come in any
// order (pandas' quicksort does not keep ties, spec §12): such tie blocks are compared as sets.
#include <gtest/gtest.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "model/kernel_launchers.hpp"
#include "perf_report/perf_sheets.hpp"
#include "pipeline/trace_load.hpp"
#include "report/sheet_csv.hpp"
#include "support/csv.hpp"
#include "support/run_cli.hpp"
#include "support/shared_traces.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;
using traceprism::testing::Csv;

namespace {

const fs::path kTraces = traceprism::testing::shared_traces();

bool categories_mode() {
  const char* v = std::getenv("TRACEPRISM_GOLDEN_WITHOUT_PLUGINS");
  return !(v && std::string(v) == "1");
}

// How one sheet is compared.
struct SheetRule {
  std::string sheet;
  std::set<std::string> category_columns;  // skipped without op models
  std::string tie_column;                  // the single sort key, or "" when fully ordered
  bool totals_only_without_categories = false;
};

const std::vector<SheetRule>& sheet_rules() {
  static const std::vector<SheetRule> rules = {
      {"ops_summary_by_category", {"op category"}, "total_direct_kernel_time_ms", true},
      {"ops_summary", {"Categories"}, "total_direct_kernel_time_sum", false},
      {"ops_unique_args", {"op category"}, "", false},
      {"kernel_summary", {"Parent op category"}, "Kernel duration (µs)_sum", false},
      {"short_kernel_histogram", {}, "", false},
      {"short_kernels_summary", {}, "", false}};
  return rules;
}

struct SheetCase {
  std::string name;
  fs::path trace;
  fs::path golden_dir;
  SheetRule rule;
};

void PrintTo(const SheetCase& c, std::ostream* os) {
  *os << c.trace << " " << c.rule.sheet;
}

std::vector<SheetCase> find_cases() {
  std::vector<SheetCase> cases;
  const fs::path root = kTraces / "tracelens";
  if (!fs::is_directory(root)) return {{"shared_traces_absent", {}, {}, {}}};
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    const std::string file = entry.path().filename().string();
    if (!entry.is_regular_file() || !file.ends_with(".json.gz")) continue;
    const std::string stem = file.substr(0, file.size() - 8);
    const fs::path golden = entry.path().parent_path() / (stem + "_perf_report_csvs");
    if (!fs::is_directory(golden)) continue;
    const std::string trace_name =
        fs::relative(entry.path().parent_path(), root).string() + "_" + stem;
    for (const SheetRule& rule : sheet_rules()) {
      cases.push_back({traceprism::testing::test_name(trace_name + "_" + rule.sheet), entry.path(),
                       golden, rule});
    }
  }
  std::sort(cases.begin(), cases.end(), [](auto& a, auto& b) { return a.name < b.name; });
  return cases;
}

// --- producing our sheets (cached per trace) -------------------------------------------------

using SheetTexts = std::map<std::string, std::string>;  // sheet name -> CSV text

SheetTexts build_in_process(const fs::path& trace) {
  traceprism::pipeline::LoadOptions options;
  options.quiet = true;
  const auto s = traceprism::pipeline::load_trace(trace.string(), options);
  const auto launchers = traceprism::model::KernelLaunchers::build(s.file.index, s.tree, s.links);
  const traceprism::perf_report::LauncherSheetInputs inputs{
      s.file.index, s.tree, s.links, launchers, s.timeline, /*registry_category=*/{}, {}};
  SheetTexts texts;
  for (auto& [name, table] : traceprism::perf_report::build_launcher_sheets(inputs))
    texts[name] = traceprism::report::sheet_csv(table);
  return texts;
}

SheetTexts build_with_cli(const fs::path& trace) {
  static std::vector<std::unique_ptr<traceprism::testing::TempDir>> dirs;
  dirs.push_back(std::make_unique<traceprism::testing::TempDir>());
  const fs::path out = dirs.back()->path() / "csvs";
  std::string output;
  const int rc = traceprism::testing::run_cli(
      "perf-report " + traceprism::testing::shell_quote(trace.string()) + " -o " +
          traceprism::testing::shell_quote(out.string()) + " -q",
      &output);
  EXPECT_EQ(rc, 0) << output;
  SheetTexts texts;
  for (const SheetRule& rule : sheet_rules()) {
    const fs::path csv = out / (rule.sheet + ".csv");
    if (fs::exists(csv)) texts[rule.sheet] = traceprism::testing::read_file(csv.string());
  }
  return texts;
}

const SheetTexts& our_sheets(const fs::path& trace) {
  static std::map<fs::path, SheetTexts> cache;
  auto it = cache.find(trace);
  if (it == cache.end())
    it = cache.emplace(trace, categories_mode() ? build_with_cli(trace) : build_in_process(trace))
             .first;
  return it->second;
}

// --- cell comparison ---------------------------------------------------------------------------

std::string strip_numpy_scalars(const std::string& text) {
  if (text.find("np.") == std::string::npos) return text;
  static const std::regex numpy_scalar(R"(np\.(float|int)\d*\((.*?)\))");
  return std::regex_replace(text, numpy_scalar, "$2");
}

enum class CellKind { kEmpty, kInteger, kFloat, kText };

CellKind kind_of(const std::string& cell, double& value) {
  if (cell.empty()) return CellKind::kEmpty;
  const char* end = cell.data() + cell.size();
  auto [ptr, ec] = std::from_chars(cell.data(), end, value);
  if (ec != std::errc() || ptr != end) return CellKind::kText;
  return cell.find_first_of(".eEn") == std::string::npos ? CellKind::kInteger : CellKind::kFloat;
}

struct CellStats {
  double max_relative_error = 0;
};

bool cells_match(const std::string& golden, const std::string& ours, CellStats& stats) {
  double g = 0, o = 0;
  switch (kind_of(golden, g)) {
    case CellKind::kEmpty:
    case CellKind::kInteger:
      return golden == ours;
    case CellKind::kFloat: {
      if (kind_of(ours, o) == CellKind::kText || ours.empty()) return false;
      if (std::isnan(g) || std::isinf(g)) return golden == ours;
      const double diff = std::fabs(g - o);
      if (g != 0)
        stats.max_relative_error = std::max(stats.max_relative_error, diff / std::fabs(g));
      return diff <= 1e-6 || diff <= 1e-4 * std::fabs(g);
    }
    case CellKind::kText:
      return strip_numpy_scalars(golden) == strip_numpy_scalars(ours);
  }
  return false;
}

// --- row alignment -------------------------------------------------------------------------------

// The text that orders rows inside a tie block: every compared non-float cell.
std::string row_identity(const std::vector<std::string>& row, const std::vector<bool>& compared) {
  std::string id;
  for (std::size_t c = 0; c < row.size(); ++c) {
    double v = 0;
    if (c < compared.size() && compared[c] && kind_of(row[c], v) != CellKind::kFloat)
      id += strip_numpy_scalars(row[c]) + '\x1f';
  }
  return id;
}

// Blocks [begin, end) of golden rows printing the same value in the tie column.
std::vector<std::pair<std::size_t, std::size_t>> tie_blocks(const Csv& golden,
                                                            const std::string& tie_column) {
  std::vector<std::pair<std::size_t, std::size_t>> blocks;
  const std::size_t key = golden.column(tie_column);
  if (tie_column.empty() || key >= golden.header.size()) return blocks;
  for (std::size_t begin = 0; begin < golden.rows.size();) {
    std::size_t end = begin + 1;
    while (end < golden.rows.size() && golden.rows[end][key] == golden.rows[begin][key]) ++end;
    if (end - begin > 1) blocks.emplace_back(begin, end);
    begin = end;
  }
  return blocks;
}

// Rows with each tie block sorted by identity, so that tied rows pair up whatever order the
// reference's unstable sort left them in.
std::vector<std::vector<std::string>> with_sorted_ties(
    std::vector<std::vector<std::string>> rows,
    const std::vector<std::pair<std::size_t, std::size_t>>& blocks,
    const std::vector<bool>& compared) {
  auto by_identity = [&](const auto& a, const auto& b) {
    return row_identity(a, compared) < row_identity(b, compared);
  };
  for (const auto& [begin, end] : blocks) {
    if (end > rows.size()) break;
    std::sort(rows.begin() + static_cast<std::ptrdiff_t>(begin),
              rows.begin() + static_cast<std::ptrdiff_t>(end), by_identity);
  }
  return rows;
}

// --- the comparisons
// -------------------------------------------------------------------------------

// Without categories, ops_summary_by_category still has to account for every op instance and
// all of their direct kernel time.
void compare_category_totals(const Csv& golden, const Csv& ours) {
  auto totals = [](const Csv& csv) {
    std::pair<long, double> t{0, 0};
    const std::size_t count = csv.column("Count"), ms = csv.column("total_direct_kernel_time_ms");
    for (const auto& row : csv.rows) {
      t.first += std::stol(row.at(count));
      t.second += std::stod(row.at(ms));
    }
    return t;
  };
  const auto g = totals(golden), o = totals(ours);
  EXPECT_EQ(g.first, o.first) << "op instances";
  EXPECT_NEAR(g.second, o.second, 1e-6 + 1e-9 * g.second) << "direct kernel time (ms)";
  std::cout << "  totals only (categories need the op models): " << o.first << " op instances, "
            << o.second << " ms\n";
}

void compare_sheet(const Csv& golden, const Csv& ours, const SheetRule& rule, bool categories) {
  ASSERT_EQ(golden.header, ours.header);
  ASSERT_EQ(golden.rows.size(), ours.rows.size()) << "row count";
  std::vector<bool> compared(golden.header.size(), true);
  for (std::size_t c = 0; c < golden.header.size(); ++c)
    compared[c] = categories || !rule.category_columns.count(golden.header[c]);
  const auto blocks = tie_blocks(golden, rule.tie_column);
  const auto golden_rows = with_sorted_ties(golden.rows, blocks, compared);
  const auto our_rows = with_sorted_ties(ours.rows, blocks, compared);

  std::vector<std::size_t> mismatches(golden.header.size(), 0);
  std::vector<CellStats> stats(golden.header.size());
  for (std::size_t r = 0; r < golden_rows.size(); ++r) {
    ASSERT_EQ(golden_rows[r].size(), our_rows[r].size()) << "row " << r;
    for (std::size_t c = 0; c < golden.header.size(); ++c) {
      if (!compared[c] || cells_match(golden_rows[r][c], our_rows[r][c], stats[c])) continue;
      if (mismatches[c]++ < 3)
        ADD_FAILURE() << rule.sheet << " row " << r << " column '" << golden.header[c]
                      << "'\n  golden: " << golden_rows[r][c] << "\n  ours:   " << our_rows[r][c];
    }
  }
  std::cout << "  " << golden_rows.size() << " rows;";
  if (!blocks.empty()) {
    // Whether the tied rows also came in the reference's order (not required).
    bool same_order = true;
    for (const auto& [begin, end] : blocks)
      for (std::size_t r = begin; r < end; ++r)
        same_order &=
            row_identity(golden.rows[r], compared) == row_identity(ours.rows[r], compared);
    std::cout << " " << blocks.size() << " tie block(s), "
              << (same_order ? "in the reference's order;" : "in another order;");
  }
  for (std::size_t c = 0; c < golden.header.size(); ++c) {
    std::cout << " " << golden.header[c] << "=";
    if (!compared[c])
      std::cout << "skipped";
    else if (mismatches[c])
      std::cout << mismatches[c] << " mismatches";
    else
      std::cout << "ok";
    if (compared[c] && stats[c].max_relative_error > 0)
      std::cout << "(rel " << stats[c].max_relative_error << ")";
    std::cout << ";";
  }
  std::cout << "\n";
}

class OpsSheetsGolden : public ::testing::TestWithParam<SheetCase> {};

TEST_P(OpsSheetsGolden, MatchesReference) {
  const SheetCase& c = GetParam();
  if (c.trace.empty()) GTEST_SKIP() << "no reference traces: " << kTraces << " is absent";
  const bool categories = categories_mode();
  const SheetTexts& sheets = our_sheets(c.trace);
  const fs::path golden_csv = c.golden_dir / (c.rule.sheet + ".csv");
  const auto ours = sheets.find(c.rule.sheet);
  if (!fs::exists(golden_csv)) {
    // The reference leaves out ops sheets of GPU-only traces.
    EXPECT_EQ(ours, sheets.end()) << "the reference has no " << c.rule.sheet << " here";
    return;
  }
  ASSERT_NE(ours, sheets.end()) << c.rule.sheet << " not produced"
                                << (categories ? " by traceprism perf-report" : "");
  const Csv golden = traceprism::testing::parse_csv(traceprism::testing::read_file(golden_csv));
  const Csv mine = traceprism::testing::parse_csv(ours->second);
  std::cout << "[" << c.name << "]" << (categories ? " (with categories)" : "") << "\n";
  if (!categories && c.rule.totals_only_without_categories) {
    compare_category_totals(golden, mine);
    return;
  }
  compare_sheet(golden, mine, c.rule, categories);
}

INSTANTIATE_TEST_SUITE_P(Traces, OpsSheetsGolden, ::testing::ValuesIn(find_cases()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
