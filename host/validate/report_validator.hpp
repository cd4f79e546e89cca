// `traceprism validate-report`: checks an analyze output folder the way the reference
// validates its agent reports (analysis-rules.md §12.3 with the marker rules of §12.1 item 5
// and R1-R5), so tools that parse TraceLens reports can rely on what traceprism writes.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace traceprism::validate {

struct ReportProblem {
  std::string file;      // "analysis.md", "findings.json", ...
  std::size_t line = 0;  // 1-based line in `file`; 0 when the problem is about the whole file
  std::string message;

  // "analysis.md:12: the Top Operations row has no top-ops-row marker"
  std::string to_string() const;
};

// Every problem of DIR/analysis.md (checked against DIR/findings.json,
// DIR/perf_report_csvs/unified_perf_summary.csv and the files it links to), in line order;
// empty when the report is valid.
std::vector<ReportProblem> validate_report(const std::filesystem::path& dir);

}  // namespace traceprism::validate
