// unified_perf_summary and the per-category perf-model sheets against the reference's CSVs, for
// every regression pair (X.json.gz with X_perf_report_csvs/): `traceprism perf-report` writes
// the sheets (when the command does not write one yet, the test builds it in-process from the
// same inputs). Same rows in the same order; numbers within 1e-4 relative (1e-6 absolute near
// 0); other cells exactly once np.float64(x) / np.int64(x) are unwrapped, Python literals
// (kernel summaries, tuples, dicts) compared as parsed structures. Like the reference's test,
// an empty golden cell is not checked where the reference itself prints a None/NaN parameter
// inconsistently (`param:` columns: empty, "None" or "nan" for the same value).
//
// AgentSheetsGolden: the reference agent's perf reports (every agent unit case, standalone and
// both sides of each comparative one, and every real trace with an agent golden), made with
// --group_by_num_kernels and the platform files in platforms_for_goldens/: `perf-report
// --group-by-num-kernels --platform-file P` against their ops_unique_args and perf-model sheets
// (the num_kernels key and column), and with --include-call-stack their unified_perf_summary
// (entry_point and call_stack_full), except a comparison's trace-1 sheet, which holds TraceDiff's
// columns (comparative_sheets_golden_test.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>

#include "cli/plugin_loading.hpp"
#include "config/run_config.hpp"
#include "model/forward_backward.hpp"
#include "model/kernel_launchers.hpp"
#include "perf_report/category_sheets.hpp"
#include "perf_report/unified_perf_table.hpp"
#include "pipeline/trace_load.hpp"
#include "plugins/op_model_runner.hpp"
#include "plugins/run_products.hpp"
#include "report/sheet_csv.hpp"
#include "support/csv.hpp"
#include "support/findings_json.hpp"
#include "support/run_cli.hpp"
#include "support/shared_traces.hpp"
#include "support/sheet_compare.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;
using traceprism::testing::compare_sheet;
using traceprism::testing::Csv;

namespace {

const fs::path kTraces = traceprism::testing::shared_traces();

// Sheets of the report that are not made from the op models.
const std::set<std::string> kOtherSheets = {
    "gpu_timeline",   "ops_summary_by_category", "ops_summary",           "ops_unique_args",
    "kernel_summary", "short_kernel_histogram",  "short_kernels_summary", "coll_analysis"};

struct PerfCase {
  std::string name;
  fs::path trace;
  fs::path golden;  // the X_perf_report_csvs folder
};

void PrintTo(const PerfCase& c, std::ostream* os) {
  *os << c.golden;
}

std::vector<std::string> golden_sheets(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string file = e.path().filename().string();
    if (!file.ends_with(".csv")) continue;
    const std::string sheet = file.substr(0, file.size() - 4);
    if (!kOtherSheets.count(sheet)) out.push_back(sheet);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<PerfCase> find_cases() {
  std::vector<PerfCase> cases;
  const fs::path root = kTraces / "tracelens";
  if (!fs::is_directory(root)) return {{"shared_traces_absent", {}, {}}};
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    const std::string file = entry.path().filename().string();
    if (!entry.is_regular_file() || !file.ends_with(".json.gz")) continue;
    const std::string stem = file.substr(0, file.size() - 8);
    const fs::path golden = entry.path().parent_path() / (stem + "_perf_report_csvs");
    if (!fs::is_directory(golden)) continue;
    std::string name = fs::relative(entry.path().parent_path(), root).string() + "_" + stem;
    cases.push_back({traceprism::testing::test_name(name), entry.path(), golden});
  }
  std::sort(cases.begin(), cases.end(), [](auto& a, auto& b) { return a.name < b.name; });
  return cases;
}

// ---- our sheets -----------------------------------------------------------------------------

// The sheets built in-process, for those `perf-report` does not write (yet).
std::map<std::string, std::string> build_in_process(const fs::path& trace) {
  traceprism::plugins::PluginRegistry registry;
  const fs::path plugin_dir = fs::path(TRACEPRISM_BINARY).parent_path() / "plugins";
  traceprism::cli::load_plugins(registry, {plugin_dir.string()});
  traceprism::pipeline::LoadOptions options;
  options.quiet = true;
  auto session = traceprism::pipeline::load_trace(trace.string(), options);
  const auto& index = session.file.index;
  const auto launchers =
      traceprism::model::KernelLaunchers::build(index, session.tree, session.links);
  traceprism::plugins::RunProducts products(index, session.tree, session.links, session.timeline,
                                            launchers);
  const traceprism::config::RunConfig config;
  const std::string path = trace.string();
  const traceprism::plugins::OpModelInputs model_inputs{&registry, &config, nullptr, &path, 0};
  const auto op_run = traceprism::plugins::run_op_models(model_inputs, products);
  const auto fwd_bwd = traceprism::model::ForwardBackwardLinks::build(index);
  traceprism::perf_report::PerfSheetInputs in;
  in.index = &index;
  in.tree = &session.tree;
  in.links = &session.links;
  in.fwd_bwd = &fwd_bwd;
  in.op_work = &op_run.table;
  in.launchers = &launchers;
  std::map<std::string, std::string> out;
  const auto table = traceprism::perf_report::build_unified_perf_table(in);
  if (!table.groups.empty())
    out["unified_perf_summary"] =
        traceprism::report::sheet_csv(traceprism::perf_report::unified_perf_summary_sheet(table));
  for (auto& [name, sheet] : traceprism::perf_report::build_category_sheets(in))
    out[name] = traceprism::report::sheet_csv(sheet);
  return out;
}

// With TRACEPRISM_PERF_SHEETS_DUMP=<folder>, our sheets are also written there (one folder per
// trace) for a closer look at the differences the tolerances allow.
void dump_for_inspection(const std::string& trace, const std::string& sheet,
                         const std::string& csv) {
  const char* dir = std::getenv("TRACEPRISM_PERF_SHEETS_DUMP");
  if (!dir) return;
  const fs::path folder = fs::path(dir) / trace;
  fs::create_directories(folder);
  std::ofstream(folder / (sheet + ".csv"), std::ios::binary) << csv;
}

class PerfSheetsGolden : public ::testing::TestWithParam<PerfCase> {};

TEST_P(PerfSheetsGolden, MatchTheReference) {
  const PerfCase& c = GetParam();
  if (c.trace.empty()) GTEST_SKIP() << kTraces << " is absent";
  traceprism::testing::TempDir out;
  std::string log;
  const int rc = traceprism::testing::run_cli(
      "perf-report -q " + traceprism::testing::shell_quote(c.trace.string()) + " -o " +
          traceprism::testing::shell_quote(out.path().string()),
      &log);
  ASSERT_EQ(rc, 0) << log;

  std::optional<std::map<std::string, std::string>> in_process;
  auto ours = [&](const std::string& sheet) -> std::optional<std::string> {
    const fs::path file = out.path() / (sheet + ".csv");
    if (fs::exists(file)) return traceprism::testing::read_file(file.string());
    if (fs::exists(out.path() / "unified_perf_summary.csv")) return std::nullopt;  // wired
    if (!in_process) in_process = build_in_process(c.trace);
    auto it = in_process->find(sheet);
    if (it == in_process->end()) return std::nullopt;
    return it->second;
  };

  const std::vector<std::string> expected = golden_sheets(c.golden);
  std::string compared;
  for (const std::string& sheet : expected) {
    SCOPED_TRACE(sheet);
    auto text = ours(sheet);
    if (!text) {
      ADD_FAILURE() << sheet << ".csv not produced";
      continue;
    }
    const Csv golden = traceprism::testing::parse_csv(
        traceprism::testing::read_file((c.golden / (sheet + ".csv")).string()));
    compare_sheet(sheet, golden, traceprism::testing::parse_csv(*text));
    dump_for_inspection(c.name, sheet, *text);
    compared += " " + sheet + " (" + std::to_string(golden.rows.size()) + " rows)";
  }
  std::cout << "[ compared ]" << (compared.empty() ? " no perf sheet" : compared)
            << (in_process ? " [built in-process]" : " [written by perf-report]") << "\n";
  // No perf sheet the reference does not have.
  std::set<std::string> produced;
  if (in_process) {
    for (const auto& [name, csv] : *in_process) produced.insert(name);
  } else {
    for (const auto& e : fs::directory_iterator(out.path())) {
      const std::string file = e.path().filename().string();
      if (file.ends_with(".csv")) produced.insert(file.substr(0, file.size() - 4));
    }
  }
  for (const std::string& sheet : produced) {
    const bool known = kOtherSheets.count(sheet) ||
                       std::find(expected.begin(), expected.end(), sheet) != expected.end();
    EXPECT_TRUE(known) << "extra sheet " << sheet;
  }
}

INSTANTIATE_TEST_SUITE_P(Traces, PerfSheetsGolden, ::testing::ValuesIn(find_cases()),
                         [](const auto& info) { return info.param.name; });

struct AgentCase {
  std::string name;
  fs::path trace;
  fs::path golden;    // the perf report CSV folder
  fs::path platform;  // the platform file the golden was made with
};

void PrintTo(const AgentCase& c, std::ostream* os) {
  *os << c.golden;
}

std::vector<AgentCase> find_agent_cases() {
  const fs::path platforms = kTraces / "platforms_for_goldens";
  const fs::path mi300 = platforms / "MI300X.json", h100 = platforms / "H100.json";
  std::vector<AgentCase> cases;
  auto add = [&](const std::string& name, const fs::path& trace, const fs::path& golden,
                 const fs::path& platform) {
    if (fs::exists(trace) && fs::is_directory(golden))
      cases.push_back({traceprism::testing::test_name(name), trace, golden, platform});
  };
  const fs::path units = kTraces / "agent_unit";
  if (fs::is_directory(units / "standalone"))
    for (const auto& e : fs::directory_iterator(units / "standalone"))
      add("unit_" + e.path().filename().string(), e.path() / "trace.json",
          e.path() / "expected" / "perf_report_csvs", mi300);
  // Comparative cases: both traces on MI300X (the reference skill loads no platform for trace 2).
  if (fs::is_directory(units / "comparative"))
    for (const auto& e : fs::directory_iterator(units / "comparative")) {
      const std::string name = e.path().filename().string();
      add(name + "_trace1", e.path() / "trace1.json",
          e.path() / "expected" / "perf_report_trace1_csvs", mi300);
      add(name + "_trace2", e.path() / "trace2.json",
          e.path() / "expected" / "perf_report_trace2_csvs", mi300);
    }
  for (const auto& g : traceprism::testing::tracelens_agent_goldens(kTraces / "tracelens"))
    add(g.name, g.trace, g.expected / "perf_report_csvs",
        g.name.rfind("h100", 0) == 0 ? h100 : mi300);
  if (cases.empty()) return {{"shared_traces_absent", {}, {}, {}}};
  std::sort(cases.begin(), cases.end(), [](auto& a, auto& b) { return a.name < b.name; });
  return cases;
}

class AgentSheetsGolden : public ::testing::TestWithParam<AgentCase> {};

TEST_P(AgentSheetsGolden, MatchTheReferenceGroupedByNumKernels) {
  const AgentCase& c = GetParam();
  if (c.trace.empty()) GTEST_SKIP() << kTraces << " has no agent goldens";
  traceprism::testing::TempDir out;
  std::string log;
  const int rc = traceprism::testing::run_cli(
      "perf-report -q --group-by-num-kernels --include-call-stack " +
          traceprism::testing::shell_quote(c.trace.string()) + " --platform-file " +
          traceprism::testing::shell_quote(c.platform.string()) + " -o " +
          traceprism::testing::shell_quote(out.path().string()),
      &log);
  ASSERT_EQ(rc, 0) << log;
  std::vector<std::string> sheets = golden_sheets(c.golden);
  // Not perf-report sheets of one trace: diff_stats is TraceDiff's (comparative_sheets_golden_
  // test.cpp). MoE_aux_fwd models aiter::moe_sorting_fwd with maths the specs do not give
  // (docs/compatibility.md, comparative mode).
  for (const char* other : {"diff_stats", "MoE_aux_fwd"}) std::erase(sheets, other);
  if (fs::exists(c.golden / "ops_unique_args.csv")) sheets.push_back("ops_unique_args");
  std::string compared;
  for (const std::string& sheet : sheets) {
    SCOPED_TRACE(sheet);
    const fs::path ours = out.path() / (sheet + ".csv");
    if (!fs::exists(ours)) {
      ADD_FAILURE() << sheet << ".csv not produced";
      continue;
    }
    const Csv golden = traceprism::testing::parse_csv(
        traceprism::testing::read_file((c.golden / (sheet + ".csv")).string()));
    if (sheet == "unified_perf_summary") {  // which has no num_kernels key (spec §5.5)
      // A comparison's trace-1 sheet carries TraceDiff's columns: compare builds it
      // (comparative_sheets_golden_test.cpp), not perf-report.
      if (golden.column("speedup (trace2/trace1)") < golden.header.size()) continue;
    } else {
      ASSERT_LT(golden.column("num_kernels"), golden.header.size())
          << sheet << ": the golden has no num_kernels column";
    }
    compare_sheet(sheet, golden,
                  traceprism::testing::parse_csv(traceprism::testing::read_file(ours.string())));
    compared += " " + sheet + " (" + std::to_string(golden.rows.size()) + " rows)";
  }
  std::cout << "[ compared ]" << compared << "\n";
}

INSTANTIATE_TEST_SUITE_P(Agent, AgentSheetsGolden, ::testing::ValuesIn(find_agent_cases()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
