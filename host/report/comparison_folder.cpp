#include <filesystem>

#include "comparison/report_diff.hpp"
#include "findings/model_identification.hpp"
#include "io/output_file.hpp"
#include "report/comparison_writers.hpp"
#include "report/report_writers.hpp"
#include "report/sheet_csv.hpp"

namespace traceprism::report {

namespace fs = std::filesystem;

namespace {

// TraceDiff's sheet of trace 1's perf report (the reference writes it whenever it has rows),
// streamed: it has a row per GPU event under a divergence point, both traces' events.
void write_diff_stats(const fs::path& path, const ComparativeReport& c) {
  if (c.diff.trace_diff.empty()) return;
  io::OutputFile out(path.string());
  comparison::write_diff_stats_csv(c.diff.trace_diff, *c.trace1->index, *c.trace2->index,
                                   [&](std::string_view chunk) { out.write(chunk); });
  out.commit();
}

// The report-level diff of the two perf reports (trace-format spec §14.1), trace 1 the
// baseline: each `_diff` column is trace 2 - trace 1, as TraceDiff's delta_us.
void write_report_diff(const fs::path& dir, const ComparativeReport& c) {
  auto sheets_of = [](const AnalysisReport& r) -> comparison::SheetSource {
    return [&r](const std::string& name) -> std::optional<comparison::SheetFrame> {
      for (const perf_report::PerfSheet& sheet : r.perf_sheets)
        if (sheet.name == name) return comparison::read_sheet_frame(sheet.table);
      return std::nullopt;
    };
  };
  const comparison::ReportDiff diff = comparison::diff_perf_reports(
      {{"trace1", sheets_of(*c.trace1)}, {"trace2", sheets_of(*c.trace2)}},
      *comparison::parse_sheet_groups({"all"}));
  io::create_output_folder(dir);
  for (const comparison::DiffSheet& sheet : diff.sheets)
    io::write_text_file_atomically((dir / (sheet.name + ".csv")).string(),
                                   comparison::write_sheet_frame(sheet.frame).to_csv());
}

}  // namespace

void write_comparison_folder(const std::string& dir, const ComparativeReport& c) {
  const fs::path root(dir);
  io::create_output_folder(root);
  write_perf_sheets(root / "perf_report_trace1_csvs", c.trace1->perf_sheets);
  write_diff_stats(root / "perf_report_trace1_csvs" / "diff_stats.csv", c);
  write_perf_sheets(root / "perf_report_trace2_csvs", c.trace2->perf_sheets);
  write_report_diff(root / "report_diff_csvs", c);
  io::write_text_file_atomically((root / "kernel_diff.csv").string(),
                                 comparison::kernel_diff_csv(c.diff.kernels));
  io::write_text_file_atomically((root / "time_breakdown.csv").string(), time_breakdown_csv(c));
  io::write_text_file_atomically((root / "findings.json").string(), comparative_findings_json(c));
  io::write_text_file_atomically((root / "model_info.json").string(),
                                 findings::model_info_json(c.trace1->model));
  io::write_text_file_atomically((root / kBreakdownChartFile).string(),
                                 perf_breakdown_svg(*c.trace1));
  io::write_text_file_atomically((root / "analysis.md").string(), comparative_markdown(c));
}

bool is_comparison_report_file(const std::string& relative_path) {
  for (const char* name : {"kernel_diff.csv", "time_breakdown.csv", "findings.json",
                           "model_info.json", kBreakdownChartFile, "analysis.md"})
    if (relative_path == name) return true;
  for (const char* folder :
       {"perf_report_trace1_csvs", "perf_report_trace2_csvs", "report_diff_csvs"})
    if (is_csv_in(relative_path, folder)) return true;
  return false;
}

}  // namespace traceprism::report
