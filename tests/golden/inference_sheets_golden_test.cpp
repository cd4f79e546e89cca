// The inference perf report sheet by sheet (inference-mode spec §5, §11 "golden regression"):
// `perf-report --capture-dir DIR --group-by-num-kernels --group-by-parent-module` (the goldens'
// options but --include_call_stack) on each shared inference case against its perf_csvs/, with
// the tolerances of support/sheet_compare.hpp. The two columns --include_call_stack adds are
// listed below as not written, and the sheets that hold the vLLM MoE pseudo ops as gaps with
// the reason; each is printed, none silently passes.
#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>
#include <map>
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

// unified_perf_summary's --include_call_stack columns (spec §4 "Call stacks").
const std::set<std::string> kCallStackColumns = {"entry_point", "call_stack_full"};

struct Case {
  std::string name, replay;
  // Golden sheets not compared yet, with why (docs/compatibility.md, inference mode).
  std::map<std::string, std::string> gaps;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name;
}

const std::string kMoePseudoOps =
    "vLLM GPT-OSS MoE pseudo ops (pseudo_op::moe_triton_unfused_*) not built";

std::vector<Case> cases() {
  return {
      {"sglang_decode", "sglang_Qwen3-8B_decode.json.gz", {}},
      {"vllm_decode_full",
       "graph_execution.json.gz",
       {{"MoE_unfused_fwd", kMoePseudoOps}, {"unified_perf_summary", kMoePseudoOps}}},
      {"vllm_prefilldecode_piecewise",
       "graph_execution.json.gz",
       {{"MoE_unfused_fwd", kMoePseudoOps}, {"unified_perf_summary", kMoePseudoOps}}},
  };
}

class InferenceSheetsGolden : public ::testing::TestWithParam<Case> {};

TEST_P(InferenceSheetsGolden, EverySheetMatchesTheReference) {
  const Case& c = GetParam();
  const fs::path dir = shared_traces() / "tracelens" / "inference" / c.name;
  if (!fs::exists(dir / c.replay)) GTEST_SKIP() << dir << " is absent";
  TempDir out;
  std::string log;
  ASSERT_EQ(run_cli("perf-report -q --group-by-num-kernels --group-by-parent-module " +
                        shell_quote((dir / c.replay).string()) + " --capture-dir " +
                        shell_quote((dir / "capture_traces").string()) + " -o " +
                        shell_quote(out.path().string()),
                    &log),
            0)
      << log;
  std::set<fs::path> golden_files;
  for (const auto& entry : fs::directory_iterator(dir / "perf_csvs")) golden_files.insert(entry);
  std::string compared, skipped;
  for (const fs::path& golden_file : golden_files) {
    const std::string file = golden_file.filename().string();
    const std::string sheet = file.substr(0, file.size() - 4);
    SCOPED_TRACE(sheet);
    if (const auto gap = c.gaps.find(sheet); gap != c.gaps.end()) {
      skipped += "\n  " + sheet + ": " + gap->second;
      continue;
    }
    const fs::path ours = out.path() / file;
    if (!fs::exists(ours)) {
      ADD_FAILURE() << file << " not written";
      continue;
    }
    const Csv golden = parse_csv(read_file(golden_file.string()));
    compare_sheet(sheet, golden, parse_csv(read_file(ours.string())), kCallStackColumns);
    compared += " " + sheet + " (" + std::to_string(golden.rows.size()) + " rows)";
  }
  std::cout << "[ compared ]" << compared << "\n[ not yet  ]" << skipped << "\n";
}

INSTANTIATE_TEST_SUITE_P(Cases, InferenceSheetsGolden, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace traceprism::testing
