// The inference perf report sheet by sheet (inference-mode spec §5, §11 "golden regression"):
// `perf-report --capture-dir DIR --group-by-num-kernels --group-by-parent-module
// --include-call-stack` (the goldens' options) on each shared inference case against its
// perf_csvs/, with the tolerances of support/sheet_compare.hpp. Every golden sheet is compared.
#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>
#include <set>
#include <string>

#include "support/csv.hpp"
#include "support/run_cli.hpp"
#include "support/shared_traces.hpp"
#include "support/sheet_compare.hpp"
#include "support/temp_dir.hpp"

namespace traceprism::testing {
namespace {

namespace fs = std::filesystem;

struct Case {
  std::string name, replay;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name;
}

std::vector<Case> cases() {
  return {
      {"sglang_decode", "sglang_Qwen3-8B_decode.json.gz"},
      {"vllm_decode_full", "graph_execution.json.gz"},
      {"vllm_prefilldecode_piecewise", "graph_execution.json.gz"},
  };
}

class InferenceSheetsGolden : public ::testing::TestWithParam<Case> {
 protected:
  fs::path case_dir() const {
    return shared_traces() / "tracelens" / "inference" / GetParam().name;
  }
  bool absent() const { return !fs::exists(case_dir() / GetParam().replay); }
  // perf-report with `flags` on the case and its capture folder, into out_.
  bool perf_report(const std::string& flags) {
    std::string log;
    const int rc = run_cli(
        "perf-report -q " + flags + " " + shell_quote((case_dir() / GetParam().replay).string()) +
            " --capture-dir " + shell_quote((case_dir() / "capture_traces").string()) + " -o " +
            shell_quote(out_.path().string()),
        &log);
    EXPECT_EQ(rc, 0) << log;
    return rc == 0;
  }
  TempDir out_;
};

TEST_P(InferenceSheetsGolden, EverySheetMatchesTheReference) {
  if (absent()) GTEST_SKIP() << case_dir() << " is absent";
  ASSERT_TRUE(perf_report("--group-by-num-kernels --group-by-parent-module --include-call-stack"));
  const fs::path dir = case_dir();
  std::set<fs::path> golden_files;
  for (const auto& entry : fs::directory_iterator(dir / "perf_csvs")) golden_files.insert(entry);
  std::string compared;
  for (const fs::path& golden_file : golden_files) {
    const std::string file = golden_file.filename().string();
    const std::string sheet = file.substr(0, file.size() - 4);
    SCOPED_TRACE(sheet);
    const fs::path ours = out_.path() / file;
    if (!fs::exists(ours)) {
      ADD_FAILURE() << file << " not written";
      continue;
    }
    const Csv golden = parse_csv(read_file(golden_file.string()));
    compare_sheet(sheet, golden, parse_csv(read_file(ours.string())));
    compared += " " + sheet + " (" + std::to_string(golden.rows.size()) + " rows)";
  }
  std::cout << "[ compared ]" << compared << "\n";
}

INSTANTIATE_TEST_SUITE_P(Cases, InferenceSheetsGolden, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace traceprism::testing
