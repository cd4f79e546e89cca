#include <filesystem>

#include "findings/model_identification.hpp"
#include "io/output_file.hpp"
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

}  // namespace traceprism::report
