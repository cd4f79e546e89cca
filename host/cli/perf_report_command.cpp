#include <filesystem>
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "cli/trace_session.hpp"
#include "io/input_error.hpp"
#include "io/output_file.hpp"
#include "report/gpu_timeline_sheet.hpp"

namespace traceprism::cli {

namespace {
struct PerfReportOptions {
  std::string trace;
  std::string output_dir;
  LoadOptions load;
};
}  // namespace

void add_perf_report_command(CLI::App& app) {
  auto options = std::make_shared<PerfReportOptions>();
  CLI::App* cmd = app.add_subcommand(
      "perf-report",
      "Write the TraceLens-compatible perf report sheets as CSV files into a folder.\n"
      "Sheets so far: gpu_timeline.csv (where GPU time goes: computation, exposed\n"
      "communication, exposed memcpy, idle).");
  add_trace_options(*cmd, options->trace, options->load);
  cmd->add_option("-o,--output", options->output_dir,
                  "Folder for the CSV files (created if missing)")
      ->required();
  cmd->add_option("--micro-idle-threshold-us", options->load.micro_idle_threshold_us,
                  "Split idle time into gaps shorter than this many µs (micro_idle_time) and the "
                  "rest (macro_idle_time), like TraceLens --micro_idle_thresh_us")
      ->check(CLI::PositiveNumber);
  cmd->footer("Example:\n  traceprism perf-report trace.json.gz -o trace_perf_report_csvs");
  cmd->callback([options] {
    TraceSession session;
    try {
      session = load_trace(options->trace, options->load);
    } catch (const io::InputError& e) {
      print_error(e.what());
      throw CLI::RuntimeError(kExitBadInput);
    }
    const auto& stats = session.file.index.stats();
    if (stats.skipped_events() > 0) {
      std::cerr << "warning: " << session.file.path << ": skipped " << stats.skipped_events()
                << " malformed events; run 'traceprism inspect' for the reasons.\n";
    }
    std::error_code ec;
    std::filesystem::create_directories(options->output_dir, ec);
    if (ec || !std::filesystem::is_directory(options->output_dir)) {
      print_error(options->output_dir + ": cannot create the output folder: " +
                  (ec ? ec.message() : std::string("a file of that name exists")) + ".");
      throw CLI::RuntimeError(kExitOutput);
    }
    try {
      const std::string path =
          (std::filesystem::path(options->output_dir) / "gpu_timeline.csv").string();
      io::write_file_atomically(path, report::gpu_timeline_csv(session.timeline));
      std::cout << "wrote " << path << "\n";
    } catch (const std::exception& e) {
      print_error(e.what());
      throw CLI::RuntimeError(kExitOutput);
    }
  });
}

}  // namespace traceprism::cli
