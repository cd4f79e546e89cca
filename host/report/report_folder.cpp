#include <filesystem>

#include "findings/model_identification.hpp"
#include "io/output_file.hpp"
#include "report/multi_rank_heatmap.hpp"
#include "report/report_writers.hpp"
#include "report/sheet_csv.hpp"

namespace traceprism::report {

namespace fs = std::filesystem;

void write_report_folder(const std::string& dir, const AnalysisReport& r) {
  write_perf_sheets(fs::path(dir) / "perf_report_csvs", r.perf_sheets);
  io::write_text_file_atomically((fs::path(dir) / "findings.json").string(), findings_json(r));
  io::write_text_file_atomically((fs::path(dir) / "model_info.json").string(),
                                 findings::model_info_json(r.model));
  io::write_text_file_atomically((fs::path(dir) / kBreakdownChartFile).string(),
                                 perf_breakdown_svg(r));
  io::write_text_file_atomically((fs::path(dir) / "analysis.md").string(), analysis_markdown(r));
}

bool is_csv_in(const std::string& relative_path, const std::string& folder) {
  const std::string prefix = folder.empty() ? "" : folder + "/";
  return relative_path.starts_with(prefix) && relative_path.ends_with(".csv") &&
         relative_path.find('/', prefix.size()) == std::string::npos;
}

bool is_analysis_report_file(const std::string& relative_path) {
  for (const char* name : {"findings.json", "model_info.json", "analysis.md", kBreakdownChartFile,
                           kMultiRankHeatmapFile})
    if (relative_path == name) return true;
  return is_csv_in(relative_path, "perf_report_csvs") ||
         is_csv_in(relative_path, "multi_rank_csvs");
}

bool is_perf_sheets_file(const std::string& relative_path) {
  return is_csv_in(relative_path, "");
}

}  // namespace traceprism::report
