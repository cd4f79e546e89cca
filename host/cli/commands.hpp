#pragma once

#include <CLI/CLI.hpp>

namespace traceprism::cli {

// Exit codes shared by every subcommand.
enum ExitCode : int {
  kExitOk = 0,
  kExitFindings = 1,   // analyze --fail-on: a finding at or above the severity
  kExitPlugin = 4,     // analyze --strict: a plugin was refused or an analyzer failed
  kExitBadInput = 2,   // the trace (or another input) cannot be read
  kExitUsage = 64,     // wrong command line (CLI11 reports it)
  kExitOutput = 3,     // an output could not be written
  kExitInternal = 70,  // a bug or resource exhaustion (EX_SOFTWARE)
};

// Parses and runs one traceprism command line; returns the exit code. `may_restart`: the
// process may re-execute itself with huge-page malloc settings first (huge_page_malloc.hpp);
// traceprism-mpi, already inside MPI, may not.
int run_command_line(int argc, char** argv, bool may_restart);

// Each subcommand registers itself on the app and runs through the callback it installs.
void add_analyze_command(CLI::App& app);
void add_merge_command(CLI::App& app);
void add_summary_command(CLI::App& app);
void add_compare_command(CLI::App& app);
void add_compare_reports_command(CLI::App& app);
void add_inspect_command(CLI::App& app);
void add_plugins_command(CLI::App& app);
void add_perf_report_command(CLI::App& app);
void add_synth_command(CLI::App& app);
void add_platforms_command(CLI::App& app);
void add_validate_report_command(CLI::App& app);

}  // namespace traceprism::cli
