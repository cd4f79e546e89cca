// One shared reference trace set up the way the host runs an analyzer: the trace read into the
// index, the call tree, launch links, GPU timeline and op launchers built by the host library,
// RunProducts with the reference's golden perf-report CSVs as its op metrics (ABI 1.5: the
// unified_perf_summary rows and gpu_timeline's total time, typed), the platform file the
// goldens were made with, and a traceprism_run_ctx whose outcome collects what the analyzer
// emits. context() is the plugin's view of it.
#pragma once

#include <traceprism/sdk.hpp>

#include <boost/json.hpp>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "perf_report/perf_report.hpp"
#include "platform/platform_file.hpp"
#include "plugins/host_api.hpp"
#include "support/analyzer_run.hpp"
#include "support/csv_rows.hpp"
#include "support/shared_traces.hpp"

namespace traceprism::plugins::fusion::testing {

namespace fs = std::filesystem;

inline std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A reference case: its trace, its expected/ folder (perf_report_csvs, category_data) and the
// platform file its goldens were made with.
struct CaseFiles {
  std::string name;
  fs::path trace;
  fs::path expected;
  fs::path platform;
};

// gtest prints a failing parameter with this (instead of its bytes).
inline void PrintTo(const CaseFiles& c, std::ostream* os) {
  *os << c.name;
}

// Every case of the shared traces with fusion goldens (standalone unit cases and the model
// traces of both GPUs); empty when the folder is absent.
inline std::vector<CaseFiles> fusion_cases() {
  std::vector<CaseFiles> out;
  const fs::path root = traceprism::testing::shared_traces();
  const fs::path platforms = root / "platforms_for_goldens";
  if (!fs::exists(root)) return out;
  std::vector<fs::path> units;
  for (const auto& e : fs::directory_iterator(root / "agent_unit" / "standalone"))
    units.push_back(e.path());
  std::sort(units.begin(), units.end());
  for (const fs::path& dir : units)
    out.push_back(
        {dir.filename().string(), dir / "trace.json", dir / "expected", platforms / "MI300X.json"});
  for (const char* gpu : {"h100", "mi300"}) {
    std::vector<fs::path> traces;
    for (const auto& e : fs::directory_iterator(root / "tracelens" / gpu))
      if (e.path().string().size() > 8 &&
          e.path().string().substr(e.path().string().size() - 8) == ".json.gz")
        traces.push_back(e.path());
    std::sort(traces.begin(), traces.end());
    for (const fs::path& t : traces) {
      const std::string stem = t.filename().string().substr(0, t.filename().string().size() - 8);
      out.push_back({std::string(gpu) + "_" + stem, t, t.parent_path() / (stem + "_agent_expected"),
                     platforms / (std::string(gpu) == "h100" ? "H100.json" : "MI300X.json")});
    }
  }
  return out;
}

class FusionCase {
 public:
  explicit FusionCase(const CaseFiles& files)
      : files_(files), run_(files.trace.string(), analyzer_, "fusion") {
    const fs::path csvs = files.expected / "perf_report_csvs";
    run_.products().set_op_metrics(
        traceprism::testing::unified_table_from_csv(
            traceprism::testing::parse_csv(slurp(csvs / "unified_perf_summary.csv"))),
        traceprism::testing::gpu_total_ms_from_csv(
            traceprism::testing::parse_csv(slurp(csvs / "gpu_timeline.csv"))));
    run_.set_platform(platform::load_platform_file(files.platform.string()).info());
    run_.add_unified_perf_events((fs::path(TRACEPRISM_BINARY).parent_path() / "plugins").string());
    context_ = std::make_unique<Context>(run_.ctx(), plugins::host_api());
  }

  Context& context() { return *context_; }
  const findings::AnalyzerOutcome& outcome() const { return run_.outcome(); }
  boost::json::value golden(const char* file) const {
    return boost::json::parse(slurp(files_.expected / "category_data" / file));
  }

 private:
  static constexpr traceprism_analyzer_v1 analyzer_{
      sizeof(traceprism_analyzer_v1), 0, "kernel-fusion", "", nullptr, nullptr, nullptr, nullptr};
  CaseFiles files_;
  traceprism::testing::AnalyzerRun run_;
  std::unique_ptr<Context> context_;
};

}  // namespace traceprism::plugins::fusion::testing
