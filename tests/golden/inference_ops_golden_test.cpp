// The capture merge's attribution against the reference (inference-mode spec §5.3, §11): with
// the capture folder merged, every op name's direct and subtree kernel time and count in
// perf-report's ops_summary equal the shared inference goldens' ops_summary summed over
// parent_module (traceprism does not write the module variant yet). 1e-6 µs, counts exact.
// perf-report --capture-dir drops SGLang's `sglang_profiler::<name>_<n>` call counter (spec §4.2
// step 1), as the goldens do.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "support/csv.hpp"
#include "support/run_cli.hpp"
#include "support/shared_traces.hpp"
#include "support/temp_dir.hpp"

namespace traceprism::testing {
namespace {

namespace fs = std::filesystem;

struct OpTimes {
  double direct = 0, subtree = 0;
  long count = 0;
};

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::map<std::string, OpTimes> ops_by_name(const fs::path& ops_summary) {
  const Csv csv = parse_csv(read_text(ops_summary));
  const std::size_t name = csv.column("name"), direct = csv.column("total_direct_kernel_time_sum"),
                    subtree = csv.column("total_subtree_kernel_time_sum"),
                    count = csv.column("Count");
  std::map<std::string, OpTimes> out;
  for (const auto& row : csv.rows) {
    OpTimes& t = out[row.at(name)];
    t.direct += std::stod(row.at(direct));
    t.subtree += std::stod(row.at(subtree));
    t.count += std::stol(row.at(count));
  }
  return out;
}

struct Case {
  std::string name, replay;
};

class InferenceOpsGolden : public ::testing::TestWithParam<Case> {};

TEST_P(InferenceOpsGolden, MergedOpsSummaryMatchesTheReferencePerOpName) {
  const fs::path dir = shared_traces() / "tracelens" / "inference" / GetParam().name;
  if (!fs::exists(dir / GetParam().replay)) GTEST_SKIP() << dir << " is absent";
  TempDir tmp;
  std::string log;
  ASSERT_EQ(run_cli("perf-report -q " + shell_quote((dir / GetParam().replay).string()) +
                        " --capture-dir " + shell_quote((dir / "capture_traces").string()) +
                        " -o " + shell_quote(tmp.path().string()),
                    &log),
            0)
      << log;
  const auto ours = ops_by_name(tmp.path() / "ops_summary.csv");
  const auto golden = ops_by_name(dir / "perf_csvs" / "ops_summary.csv");
  ASSERT_EQ(ours.size(), golden.size());
  for (const auto& [name, want] : golden) {
    const auto it = ours.find(name);
    ASSERT_NE(it, ours.end()) << name;
    EXPECT_NEAR(it->second.direct, want.direct, 1e-6) << name;
    EXPECT_NEAR(it->second.subtree, want.subtree, 1e-6) << name;
    EXPECT_EQ(it->second.count, want.count) << name;
  }
}

// Spec §6 against the goldens: every InferenceAttention_fwd row has the golden's GFLOPS and data
// moved (attention ops bound to their step's annotation; SGLang's store_cache by its shape).
TEST_P(InferenceOpsGolden, AttentionRowsHaveTheGoldensWork) {
  const fs::path dir = shared_traces() / "tracelens" / "inference" / GetParam().name;
  if (!fs::exists(dir / GetParam().replay)) GTEST_SKIP() << dir << " is absent";
  TempDir tmp;
  std::string log;
  ASSERT_EQ(run_cli("perf-report -q " + shell_quote((dir / GetParam().replay).string()) +
                        " --capture-dir " + shell_quote((dir / "capture_traces").string()) +
                        " -o " + shell_quote(tmp.path().string()),
                    &log),
            0)
      << log;
  auto work = [](const fs::path& sheet) {
    const Csv csv = parse_csv(read_text(sheet));
    std::set<std::pair<double, double>> out;  // (GFLOPS, MiB) per row
    for (const auto& row : csv.rows)
      out.insert({std::stod(row.at(csv.column("GFLOPS_first"))),
                  std::stod(row.at(csv.column("Data Moved (MB)_first")))});
    return out;
  };
  const auto ours = work(tmp.path() / "InferenceAttention_fwd.csv");
  const auto golden = work(dir / "perf_csvs" / "InferenceAttention_fwd.csv");
  ASSERT_EQ(ours.size(), golden.size());
  for (auto o = ours.begin(), g = golden.begin(); o != ours.end(); ++o, ++g) {
    EXPECT_NEAR(o->first, g->first, 1e-9 * g->first);
    EXPECT_NEAR(o->second, g->second, 1e-9 * g->second);
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, InferenceOpsGolden,
                         ::testing::Values(Case{"vllm_decode_full", "graph_execution.json.gz"},
                                           Case{"vllm_prefilldecode_piecewise",
                                                "graph_execution.json.gz"},
                                           Case{"sglang_decode", "sglang_Qwen3-8B_decode.json.gz"}),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace traceprism::testing
