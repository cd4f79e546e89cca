#include <filesystem>
#include <stdexcept>
#include <system_error>

#include "findings/model_identification.hpp"
#include "io/output_file.hpp"
#include "report/report_writers.hpp"

namespace traceprism::report {

namespace fs = std::filesystem;

void write_report_folder(const std::string& dir, const AnalysisReport& r) {
  std::error_code ec;
  fs::create_directories(fs::path(dir) / "perf_report_csvs", ec);
  if (ec || !fs::is_directory(fs::path(dir) / "perf_report_csvs"))
    throw std::runtime_error(dir + ": cannot create the output folder: " +
                             (ec ? ec.message() : std::string("a file of that name exists")) + ".");
  for (const perf_report::PerfSheet& sheet : r.perf_sheets)
    io::write_file_atomically((fs::path(dir) / "perf_report_csvs" / (sheet.name + ".csv")).string(),
                              sheet.csv);
  io::write_file_atomically((fs::path(dir) / "findings.json").string(), findings_json(r));
  io::write_file_atomically((fs::path(dir) / "model_info.json").string(),
                            findings::model_info_json(r.model));
  io::write_file_atomically((fs::path(dir) / kBreakdownChartFile).string(), perf_breakdown_svg(r));
  io::write_file_atomically((fs::path(dir) / "analysis.md").string(), analysis_markdown(r));
}

}  // namespace traceprism::report
