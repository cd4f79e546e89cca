// The traceprism command line: its commands, help, and what each failure exits with.
#include <CLI/CLI.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

#include "cli/commands.hpp"
#include "cli/heap_reuse.hpp"
#include "cli/huge_page_malloc.hpp"
#include "io/run_inputs.hpp"
#include "io/signal_cleanup.hpp"

namespace {

bool is_command(CLI::App& app, const std::string& word) {
  for (const CLI::App* command : app.get_subcommands({}))
    if (command->check_name(word)) return true;
  return false;
}

std::string command_names(CLI::App& app) {
  std::string names;
  for (const CLI::App* command : app.get_subcommands({}))
    names += (names.empty() ? "" : ", ") + command->get_name();
  return names;
}

// A report printed to a full disk or a closed pipe is not a success: the exit status says so.
int checked_stdout(int code) {
  std::cout.flush();
  if (std::fflush(stdout) == 0 && !std::ferror(stdout) && std::cout) return code;
  std::cerr << "error: cannot write to standard output (" << std::strerror(errno) << ").\n";
  return code == traceprism::cli::kExitOk ? traceprism::cli::kExitOutput : code;
}

int run(int argc, char** argv, bool may_restart) {
  traceprism::io::protect_run_inputs();
  traceprism::io::remove_temporaries_on_signals();
  if (may_restart) traceprism::cli::restart_with_huge_page_malloc(argc, argv);
  traceprism::cli::keep_freed_memory_for_reuse();
  CLI::App app{
      "traceprism turns PyTorch profiler (Kineto) traces into a ranked optimization report.\n"
      "Traces may be .json, .json.gz or .json.zst (detected from the first bytes), or - for stdin.",
      "traceprism"};
  app.set_version_flag("--version", std::string("traceprism ") + TRACEPRISM_VERSION);
  app.require_subcommand(1);
  app.footer(
      "Examples:\n"
      "  traceprism synth -o sample.json.gz          write a synthetic transformer trace\n"
      "  traceprism analyze sample.json.gz -o out    write out/analysis.md and out/findings.json\n"
      "  traceprism compare slow.json.gz fast.json.gz -o out  why the first run is slower\n"
      "  traceprism compare-reports a_csvs b_csvs -o diff   diff two perf reports sheet by sheet\n"
      "  traceprism inspect sample.json.gz           summarize a trace\n"
      "  traceprism perf-report trace.json.gz -o out write out/gpu_timeline.csv\n"
      "  traceprism platforms                        list the bundled GPU platform files\n"
      "  traceprism validate-report out              check out/analysis.md against the template\n"
      "Run 'traceprism COMMAND --help' for the options of each command.");
  traceprism::cli::add_analyze_command(app);
  traceprism::cli::add_compare_command(app);
  traceprism::cli::add_compare_reports_command(app);
  traceprism::cli::add_inspect_command(app);
  traceprism::cli::add_plugins_command(app);
  traceprism::cli::add_perf_report_command(app);
  traceprism::cli::add_synth_command(app);
  traceprism::cli::add_platforms_command(app);
  traceprism::cli::add_validate_report_command(app);
  traceprism::cli::add_merge_command(app);
  traceprism::cli::add_summary_command(app);
  // CLI11 would only say "A subcommand is required" for a mistyped command.
  if (argc > 1 && argv[1][0] != '-' && !is_command(app, argv[1])) {
    std::cerr << "error: '" << argv[1] << "' is not a traceprism command; the commands are "
              << command_names(app) << " (traceprism --help).\n";
    return traceprism::cli::kExitUsage;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::RuntimeError& e) {
    return e.get_exit_code();
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    if (code == 0) return 0;
    // validate-report documents 2 for a wrong command line (its 1 means "invalid report").
    return app.got_subcommand("validate-report") ? 2 : traceprism::cli::kExitUsage;
  } catch (const std::bad_alloc&) {
    std::cerr << "error: out of memory; the trace needs more memory than this machine has.\n";
    return traceprism::cli::kExitInternal;
  } catch (const std::exception& e) {
    std::cerr << "error: internal error: " << e.what() << "\n";
    return traceprism::cli::kExitInternal;
  }
  return traceprism::cli::kExitOk;
}

}  // namespace

namespace traceprism::cli {

int run_command_line(int argc, char** argv, bool may_restart) {
  return checked_stdout(run(argc, argv, may_restart));
}

}  // namespace traceprism::cli
