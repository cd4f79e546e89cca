// gpu_timeline.csv against the reference (TraceLens) goldens beside the real traces in
// ../shared/traces. Tolerance: the reference computes in doubles on absolute microseconds; we
// rebuild the same doubles from exact nanoseconds (traceprism/reference_time.hpp), so values should
// agree to the last bit. We allow |a - b| <= 1e-6 ms (1 ns) or 1e-9 relative: anything larger
// would mean a different event set or a different algorithm, not rounding.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "perf_report/gpu_timeline_sheet.hpp"
#include "pipeline/trace_load.hpp"
#include "report/sheet_csv.hpp"
#include "support/shared_traces.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;

namespace {

const fs::path kTraces = traceprism::testing::shared_traces();

struct GoldenCase {
  std::string name;  // test name
  fs::path trace;
  fs::path golden_csv;
};

// Every trace under tracelens/ with a `<stem>_perf_report_csvs/gpu_timeline.csv` (upstream
// regression goldens) or `<stem>_agent_expected/perf_report_csvs/gpu_timeline.csv` beside it,
// plus the inference folders whose `perf_csvs/gpu_timeline.csv` sits next to one trace.
std::vector<GoldenCase> find_cases() {
  std::vector<GoldenCase> cases;
  const fs::path root = kTraces / "tracelens";
  if (!fs::is_directory(root)) return cases;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file()) continue;
    const std::string file = entry.path().filename().string();
    const std::string suffix = ".json.gz";
    if (file.size() <= suffix.size() || file.substr(file.size() - suffix.size()) != suffix)
      continue;
    const std::string stem = file.substr(0, file.size() - suffix.size());
    const fs::path dir = entry.path().parent_path();
    auto add = [&](const fs::path& csv, const std::string& kind) {
      if (!fs::exists(csv)) return;
      std::string name = fs::relative(dir, root).string() + "_" + stem + "_" + kind;
      name = traceprism::testing::test_name(name);
      cases.push_back({name, entry.path(), csv});
    };
    add(dir / (stem + "_perf_report_csvs") / "gpu_timeline.csv", "regression");
    add(dir / (stem + "_agent_expected") / "perf_report_csvs" / "gpu_timeline.csv", "agent");
    if (dir.filename() != "capture_traces")
      add(dir / "perf_csvs" / "gpu_timeline.csv", "inference");
  }
  // Hand-written agent unit cases: <case>/trace.json or trace{1,2}.json with expected/ beside.
  const fs::path agent = kTraces / "agent_unit";
  if (fs::is_directory(agent)) {
    for (const auto& entry : fs::recursive_directory_iterator(agent)) {
      const std::string file = entry.path().filename().string();
      if (!entry.is_regular_file() || file.rfind("trace", 0) != 0 ||
          entry.path().extension() != ".json")
        continue;
      const fs::path dir = entry.path().parent_path();
      const std::string stem = entry.path().stem().string();  // trace, trace1, trace2
      const fs::path csv =
          stem == "trace"
              ? dir / "expected" / "perf_report_csvs" / "gpu_timeline.csv"
              : dir / "expected" / ("perf_report_" + stem + "_csvs") / "gpu_timeline.csv";
      if (!fs::exists(csv)) continue;
      std::string name = "agent_unit_" + dir.filename().string() + "_" + stem;
      name = traceprism::testing::test_name(name);
      cases.push_back({name, entry.path(), csv});
    }
  }
  std::sort(cases.begin(), cases.end(), [](auto& a, auto& b) { return a.name < b.name; });
  return cases;
}

struct Row {
  std::string type;
  std::string time_ms;
  std::string percent;
};

std::vector<Row> parse_csv(const std::string& text) {
  std::vector<Row> rows;
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::istringstream fields(line);
    Row r;
    std::getline(fields, r.type, ',');
    std::getline(fields, r.time_ms, ',');
    std::getline(fields, r.percent, ',');
    rows.push_back(r);
  }
  return rows;
}

bool close_enough(const std::string& expected, const std::string& actual, double absolute) {
  if (expected.empty() || actual.empty()) return expected == actual;
  double e = std::stod(expected), a = std::stod(actual);
  return std::fabs(e - a) <= absolute || std::fabs(e - a) <= 1e-9 * std::fabs(e);
}

// gtest prints the parameter in failure messages: show the trace, not its bytes.
void PrintTo(const GoldenCase& c, std::ostream* os) {
  *os << c.trace;
}

class GpuTimelineGolden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(GpuTimelineGolden, MatchesReference) {
  const GoldenCase& c = GetParam();
  if (c.trace.empty()) GTEST_SKIP() << "no reference traces: " << kTraces << " is absent";
  traceprism::pipeline::LoadOptions options;
  options.quiet = true;
  auto session = traceprism::pipeline::load_trace(c.trace.string(), options);
  const std::string ours =
      traceprism::report::sheet_csv(traceprism::perf_report::gpu_timeline_sheet(session.timeline));
  const std::string theirs = traceprism::testing::read_file(c.golden_csv.string());

  auto expected = parse_csv(theirs);
  auto actual = parse_csv(ours);
  ASSERT_EQ(expected.size(), actual.size()) << ours;
  EXPECT_EQ(theirs.substr(0, theirs.find('\n')), ours.substr(0, ours.find('\n')));
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(expected[i].type, actual[i].type);
    // time ms: 1 ns = 1e-6 ms absolute; percent: the same relative bound on a percentage.
    EXPECT_TRUE(close_enough(expected[i].time_ms, actual[i].time_ms, 1e-6))
        << expected[i].type << ": expected " << expected[i].time_ms << " ms, got "
        << actual[i].time_ms;
    EXPECT_TRUE(close_enough(expected[i].percent, actual[i].percent, 1e-9))
        << expected[i].type << ": expected " << expected[i].percent << " %, got "
        << actual[i].percent;
  }
}

std::vector<GoldenCase> cases_or_placeholder() {
  auto cases = find_cases();
  if (cases.empty()) cases.push_back({"shared_traces_absent", {}, {}});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Traces, GpuTimelineGolden, ::testing::ValuesIn(cases_or_placeholder()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
