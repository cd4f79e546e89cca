#include <filesystem>
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "cli/trace_options.hpp"
#include "comparison/report_diff.hpp"
#include "io/folder_replacement.hpp"
#include "io/input_error.hpp"
#include "io/output_file.hpp"
#include "io/small_file.hpp"
#include "report/report_writers.hpp"
#include "text/csv_parse.hpp"

namespace traceprism::cli {

namespace {

namespace fs = std::filesystem;

struct CompareReportsOptions {
  std::vector<std::string> reports;
  std::vector<std::string> names;
  std::vector<std::string> sheets = {"all"};
  std::string output_dir = "report_diff_csvs";
  bool quiet = false;
};

// <folder>/<sheet>.csv, as TraceLens' --output_csvs_dir and `traceprism perf-report` write them.
comparison::SheetSource folder_sheets(const fs::path& folder) {
  return [folder](const std::string& sheet) -> std::optional<comparison::SheetFrame> {
    const std::string path = (folder / (sheet + ".csv")).string();
    io::SmallFile file = io::read_small_file(path, io::kMaxSheetBytes);
    if (file.status == io::SmallFile::Status::kCannotOpen) return std::nullopt;
    if (file.status == io::SmallFile::Status::kTooLarge)
      throw io::InputError(io::too_large_sentence(path, "a perf report sheet", io::kMaxSheetBytes));
    return comparison::read_sheet_frame(text::parse_csv_sheet(file.text));
  };
}

// One sentence when `folder` is not a perf report's CSV folder.
std::optional<std::string> report_folder_problem(const fs::path& folder) {
  std::error_code ec;
  if (!fs::exists(folder, ec)) return folder.string() + ": no such folder.";
  if (!fs::is_directory(folder, ec))
    return folder.string() +
           ": expected a perf report's CSV folder (traceprism perf-report -o DIR, or TraceLens' "
           "--output_csvs_dir); .xlsx workbooks are not read.";
  for (const char* sheet : {"gpu_timeline", "ops_summary", "kernel_summary", "ops_unique_args"})
    if (fs::exists(folder / (std::string(sheet) + ".csv"), ec)) return std::nullopt;
  return folder.string() +
         ": not a perf report folder (it has none of gpu_timeline.csv, ops_summary.csv, "
         "kernel_summary.csv, ops_unique_args.csv).";
}

// The folder's name, as the reference tags a report by its file stem.
std::string default_tag(const std::string& report) {
  fs::path p = fs::path(report).lexically_normal();
  if (p.filename().empty()) p = p.parent_path();
  return p.filename().string();
}

int run_compare_reports(const CompareReportsOptions& o) {
  if (!o.names.empty() && o.names.size() != o.reports.size()) {
    print_error("--names gives " + std::to_string(o.names.size()) + " names for " +
                std::to_string(o.reports.size()) + " reports; give one per report.");
    return kExitUsage;
  }
  const auto groups = comparison::parse_sheet_groups(o.sheets);
  std::vector<comparison::TaggedReport> reports;
  for (std::size_t i = 0; i < o.reports.size(); ++i) {
    if (auto problem = report_folder_problem(o.reports[i])) {
      print_error(*problem);
      return kExitBadInput;
    }
    reports.push_back(
        {o.names.empty() ? default_tag(o.reports[i]) : o.names[i], folder_sheets(o.reports[i])});
  }
  comparison::ReportDiff diff;
  try {
    diff = comparison::diff_perf_reports(reports, *groups);
  } catch (const std::invalid_argument& e) {
    print_error(std::string(e.what()) + " Use --names.");
    return kExitUsage;
  }
  for (const std::string& note : diff.skipped) std::cerr << "note: " << note << "\n";
  try {
    // A folder of CSV sheets, like perf-report's; it may not hold a report being compared.
    io::FolderReplacement output(o.output_dir, report::is_perf_sheets_file);
    for (const comparison::DiffSheet& sheet : diff.sheets)
      io::write_text_file_atomically((output.staging() / (sheet.name + ".csv")).string(),
                                     comparison::write_sheet_frame(sheet.frame).to_csv());
    output.commit();
  } catch (const std::exception& e) {
    print_error(e.what());
    return kExitOutput;
  }
  if (!o.quiet)
    std::cout << "wrote " << diff.sheets.size() << " sheets to " << o.output_dir << " (baseline '"
              << reports[0].tag << "')\n";
  return kExitOk;
}

}  // namespace

void add_compare_reports_command(CLI::App& app) {
  auto o = std::make_shared<CompareReportsOptions>();
  CLI::App* cmd = app.add_subcommand(
      "compare-reports",
      "Diff two or more perf reports' CSV folders sheet by sheet, as TraceLens'\n"
      "compare_perf_reports_pytorch does (no traces needed). The first report is the\n"
      "baseline. Rows are matched by exact keys (op name and argument strings, kernel name,\n"
      "perf-model parameters); each compared column c gets c__<tag>_diff (report - baseline)\n"
      "and c__<tag>_pct (100 * diff / baseline, empty where the baseline is 0). Writes into\n"
      "DIR: gpu_timeline, ops_summary, kernel_summary, and per other report <tag>:\n"
      "<sheet>_intersect_<tag>, <sheet>_only_baseline_<tag> and <sheet>_only_variant_<tag>\n"
      "for ops_unique_args, unified_perf_summary, GEMM, SDPA_fwd/bwd, CONV_fwd/bwd,\n"
      "un_eltwise and bin_eltwise. For a structural (call-tree) comparison of two traces use\n"
      "'traceprism compare', which also writes this diff (DIR/report_diff_csvs/).");
  cmd->add_option("REPORTS", o->reports,
                  "Perf report CSV folders (traceprism perf-report -o DIR, or TraceLens' "
                  "--output_csvs_dir); the first is the baseline")
      ->required()
      ->expected(2, -1);
  cmd->add_option("--names", o->names,
                  "One tag per report for the column prefixes (default: the folder names)");
  cmd->add_option("--sheets", o->sheets,
                  "Sheet groups: gpu_timeline, ops_summary, kernel_summary, ops_all "
                  "(ops_unique_args, unified_perf_summary), roofline (the perf-model sheets), all")
      ->check(CLI::IsMember(
          {"gpu_timeline", "ops_summary", "kernel_summary", "ops_all", "roofline", "all"}))
      ->capture_default_str();
  cmd->add_option("-o,--output", o->output_dir, "Output folder (created if missing)")
      ->capture_default_str()
      ->check(output_folder_check());
  cmd->add_flag("-q,--quiet", o->quiet, "Print nothing but errors and notes");
  cmd->footer(
      "Examples:\n"
      "  traceprism compare-reports h100_csvs mi300_csvs --names h100 mi300 -o h100_vs_mi300\n"
      "      the MI300X report against the H100 baseline: mi300 - h100 in every _diff column\n"
      "  traceprism compare-reports v1 v2 v3 --sheets ops_all roofline -o versions\n"
      "      two later versions against v1, ops and perf-model sheets only\n"
      "Exit status: 0 written, 2 a report folder cannot be read, 3 an output cannot be\n"
      "written, 64 wrong command line.");
  cmd->callback([o] {
    const int code = run_compare_reports(*o);
    if (code != kExitOk) throw CLI::RuntimeError(code);
  });
}

}  // namespace traceprism::cli
