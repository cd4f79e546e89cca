// `traceprism analyze` on every shared reference trace (and a synthetic one) writes reports
// that `validate-report` accepts: the structure, markers, P-item counts, findings.json
// consistency and Args traceability of analysis-rules.md §12.3.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "support/run_cli.hpp"
#include "support/shared_traces.hpp"
#include "support/temp_dir.hpp"
#include "validate/report_validator.hpp"

namespace traceprism::testing {
namespace {

namespace fs = std::filesystem;

struct Case {
  fs::path trace;
  std::string platform_flags;
};

// The agent unit cases run on MI300X; the model traces with the arch files their goldens used
// (shared/traces/README.md).
std::vector<Case> shared_cases() {
  std::vector<Case> cases;
  const fs::path root = shared_traces();
  const fs::path standalone = root / "agent_unit" / "standalone";
  if (fs::is_directory(standalone))
    for (const auto& entry : fs::directory_iterator(standalone))
      if (fs::exists(entry.path() / "trace.json"))
        cases.push_back({entry.path() / "trace.json", "--platform MI300X"});
  const fs::path platforms = root / "platforms_for_goldens";
  for (const auto& [folder, arch] : {std::pair{"h100", "H100.json"}, {"mi300", "MI300X.json"}}) {
    const fs::path dir = root / "tracelens" / folder;
    if (!fs::is_directory(dir)) continue;
    for (const auto& entry : fs::directory_iterator(dir))
      if (entry.path().string().ends_with(".json.gz"))
        cases.push_back(
            {entry.path(), "--platform-file " + shell_quote((platforms / arch).string())});
  }
  std::sort(cases.begin(), cases.end(),
            [](const Case& a, const Case& b) { return a.trace < b.trace; });
  return cases;
}

std::string problems_of(const fs::path& dir) {
  std::string out;
  for (const auto& p : validate::validate_report(dir)) out += p.to_string() + "\n";
  return out;
}

TEST(ValidateReport, EverySharedTraceGivesAValidReport) {
  const auto cases = shared_cases();
  if (cases.empty()) GTEST_SKIP() << "no reference traces under " << shared_traces();
  TempDir tmp;
  for (const Case& c : cases) {
    const fs::path out = tmp.path() / test_name(c.trace.parent_path().filename().string() + "_" +
                                                c.trace.filename().string());
    std::string log;
    ASSERT_EQ(run_cli("analyze -q " + shell_quote(c.trace.string()) + " -o " +
                          shell_quote(out.string()) + " " + c.platform_flags,
                      &log),
              0)
        << c.trace << "\n"
        << log;
    EXPECT_EQ(problems_of(out), "") << c.trace;
    EXPECT_TRUE(fs::exists(out / "model_info.json")) << c.trace;
    EXPECT_TRUE(fs::exists(out / "perf_breakdown.svg")) << c.trace;
  }
}

// Every other trace of the shared folder (the rest of tracelens/, both sides of the comparative
// unit cases, the HTA traces: CPU-only, graph replays, multi-stream, AMD, MTIA...), with the
// platform detected from the trace: whatever the input, the report keeps its structure.
std::vector<fs::path> other_shared_traces() {
  std::vector<fs::path> traces;
  const fs::path root = shared_traces();
  if (!fs::is_directory(root)) return traces;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file()) continue;
    const fs::path& p = entry.path();
    const std::string rel = fs::relative(p, root).string();
    const bool comparative = rel.starts_with("agent_unit/comparative/") &&
                             (p.filename() == "trace1.json" || p.filename() == "trace2.json");
    const bool gz_trace = p.string().ends_with(".json.gz") &&
                          (rel.starts_with("hta/") || rel.starts_with("tracelens/")) &&
                          !rel.starts_with("tracelens/h100/") &&
                          !rel.starts_with("tracelens/mi300/") &&
                          rel.find("capture") == std::string::npos;
    if (comparative || gz_trace) traces.push_back(p);
  }
  std::sort(traces.begin(), traces.end());
  return traces;
}

TEST(ValidateReport, EveryOtherSharedTraceGivesAValidReport) {
  const auto traces = other_shared_traces();
  if (traces.empty()) GTEST_SKIP() << "no reference traces under " << shared_traces();
  TempDir tmp;
  int n = 0;
  for (const fs::path& trace : traces) {
    const fs::path out = tmp.path() / ("report_" + std::to_string(++n));
    std::string log;
    ASSERT_EQ(
        run_cli("analyze -q " + shell_quote(trace.string()) + " -o " + shell_quote(out.string()),
                &log),
        0)
        << trace << "\n"
        << log;
    EXPECT_EQ(problems_of(out), "") << trace;
  }
}

TEST(ValidateReport, SyntheticTraceGivesAValidReport) {
  TempDir tmp;
  const fs::path trace = tmp.path() / "sample.json.gz";
  ASSERT_EQ(run_cli("synth -o " + shell_quote(trace.string()) + " --layers 2 --steps 2 --seed 7"),
            0);
  ASSERT_EQ(run_cli("analyze -q " + shell_quote(trace.string()) + " -o " +
                    shell_quote((tmp.path() / "out").string())),
            0);
  EXPECT_EQ(problems_of(tmp.path() / "out"), "");
}

TEST(ValidateReport, CommandExitCodesAndOutput) {
  TempDir tmp;
  const fs::path trace = tmp.path() / "sample.json";
  ASSERT_EQ(run_cli("synth -o " + shell_quote(trace.string()) + " --layers 1 --steps 1 --seed 3"),
            0);
  const fs::path out = tmp.path() / "out";
  ASSERT_EQ(
      run_cli("analyze -q " + shell_quote(trace.string()) + " -o " + shell_quote(out.string())), 0);
  std::string output;
  EXPECT_EQ(run_cli("validate-report " + shell_quote(out.string()), &output), 0) << output;
  fs::remove(out / "perf_breakdown.svg");
  EXPECT_EQ(run_cli("validate-report " + shell_quote(out.string()), &output), 1);
  EXPECT_NE(output.find("image `perf_breakdown.svg` does not exist"), std::string::npos) << output;
  EXPECT_EQ(output.rfind("analysis.md:", 0), 0u) << output;
  EXPECT_EQ(run_cli("validate-report " + shell_quote((tmp.path() / "nope").string()), &output), 2);
  EXPECT_EQ(run_cli("validate-report", &output), 2);
  EXPECT_EQ(run_cli("validate-report --help", &output), 0);
  EXPECT_NE(output.find("Exit status: 0 valid, 1 problems found"), std::string::npos);
}

}  // namespace
}  // namespace traceprism::testing
