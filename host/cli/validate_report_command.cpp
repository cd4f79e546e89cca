#include <filesystem>
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "validate/report_validator.hpp"

namespace traceprism::cli {

namespace {

// validate-report's own exit codes (documented in --help): 2 is "could not check at all".
constexpr int kReportValid = 0, kReportInvalid = 1, kReportUnreadable = 2;

int run_validate_report(const std::string& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    std::cerr << "error: " << dir
              << ": not a folder; pass the -o folder of `traceprism analyze`.\n";
    return kReportUnreadable;
  }
  const auto problems = validate::validate_report(dir);
  for (const auto& p : problems) std::cout << p.to_string() << "\n";
  if (problems.empty()) std::cerr << dir << ": the report is valid.\n";
  return problems.empty() ? kReportValid : kReportInvalid;
}

}  // namespace

void add_validate_report_command(CLI::App& app) {
  auto dir = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand(
      "validate-report",
      "Check an analyze or compare output folder the way TraceLens validates its agent\n"
      "reports, so tools that parse those reports can rely on it:\n"
      "  - analysis.md exists, has the six `## ` sections in order and the Executive Summary\n"
      "    table (Total Time, Compute %, Idle %, Exposed Communication %, Top Bottleneck)\n"
      "  - no unfilled template placeholders (<Brief Title>, <model>, ...)\n"
      "  - impact markers balanced, of a known kind, with their low/mid/high values; one\n"
      "    Top Operations block whose every row carries a top-ops-row marker\n"
      "  - per tier: as many P-item cards as p_item markers and findings.json findings (same\n"
      "    impact values within 0.005, same categories), as many detailed blocks as\n"
      "    reasoning-candidate markers, every card link resolving to its anchor\n"
      "  - compute blocks: **Data:** alone on its line, then the 10 canonical columns, every\n"
      "    Args cell equal to a rendering of perf_report_csvs/unified_perf_summary.csv\n"
      "  - fusion Impact lines `impact_score: X (perf-model coverage M/N kernels)`\n"
      "  - every image the report shows exists in DIR\n"
      "  - every file of DIR comes from one run: report_manifest.json lists each with its\n"
      "    size and CRC-32, and no other file is there\n"
      "A comparative report (`# ... - Comparative Analysis: P1 vs P2`, from compare) is checked\n"
      "with its own layout: 4-cell Executive Summary rows whose Difference is Trace 2 - Trace 1,\n"
      "fusion Impact lines without the coverage, Args from perf_report_trace1_csvs/, and\n"
      "kernel_diff.csv and both perf reports present.");
  cmd->add_option("DIR", *dir, "The folder `traceprism analyze -o DIR` or `compare -o DIR` wrote")
      ->required();
  cmd->footer(
      "Prints one line per problem, `analysis.md:<line>: <what is wrong>` (line 0: the whole\n"
      "file), and nothing on stdout when the report is valid.\n"
      "Examples:\n"
      "  traceprism analyze trace.json.gz -o report && traceprism validate-report report\n"
      "Exit status: 0 valid, 1 problems found, 2 DIR is not a folder or the command line is\n"
      "wrong.");
  cmd->callback([dir] {
    const int code = run_validate_report(*dir);
    if (code != kReportValid) throw CLI::RuntimeError(code);
  });
}

}  // namespace traceprism::cli
