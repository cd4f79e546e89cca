#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "cli/commands.hpp"
#include "cli/platform_options.hpp"
#include "cli/plugin_loading.hpp"
#include "cli/trace_options.hpp"
#include "config/run_config.hpp"
#include "io/folder_replacement.hpp"
#include "io/input_error.hpp"
#include "io/output_file.hpp"
#include "perf_report/perf_report.hpp"
#include "pipeline/analysis_pipeline.hpp"
#include "report/report_writers.hpp"
#include "report/sheet_csv.hpp"

namespace traceprism::cli {

namespace {
struct PerfReportCommandOptions {
  std::string trace;
  std::string output_dir;
  pipeline::LoadOptions load;
  pipeline::PlatformOptions platform;
  std::vector<std::string> plugin_dirs;
  int jobs = 0;
  perf_report::PerfReportOptions sheets;
};

int run_perf_report(const PerfReportCommandOptions& o) {
  // The output folder first: a bad -o should not cost the minute a big trace takes to read.
  std::optional<io::FolderReplacement> output;
  try {
    output.emplace(o.output_dir, report::is_perf_sheets_file);
  } catch (const std::exception& e) {
    print_error(e.what());
    return kExitOutput;
  }
  plugins::PluginRegistry registry;
  load_plugins(registry, o.plugin_dirs);
  for (const auto& r : registry.refused())
    std::cerr << "warning: plugin refused: " << r.reason << "\n";

  const config::RunConfig config;
  pipeline::PipelineOptions p;
  p.trace_path = o.trace;
  p.load = o.load;
  p.load.pseudo_ops = !o.load.capture_dir.empty();  // inference mode's pseudo-op pass
  p.platform = o.platform;
  p.registry = &registry;
  p.config = &config;
  p.jobs = o.jobs;
  p.sheets = o.sheets;
  p.last_stage = pipeline::LastStage::kPerfReport;
  p.after_load = [](const pipeline::TraceSession& session) {
    const index::EventIndex& index = session.file.index;
    if (index.stats().skipped_events() > 0)
      std::cerr << "warning: " << session.file.path << ": skipped "
                << index.stats().skipped_events()
                << " malformed events; run 'traceprism inspect' for the reasons.\n";
  };
  std::unique_ptr<pipeline::PipelineRun> run;
  try {
    run = pipeline::run_pipeline(p);
  } catch (const io::InputError& e) {
    print_error(e.what());
    return kExitBadInput;
  } catch (const std::exception& e) {  // UnknownPlatform, PlatformError
    print_error(e.what());
    return kExitUsage;
  }
  const std::vector<perf_report::PerfSheet>& sheets = run->report.perf_sheets;

  try {
    report::write_perf_sheets(output->staging(), sheets);
    output->commit();
  } catch (const std::exception& e) {
    print_error(e.what());
    return kExitOutput;
  }
  if (!o.load.quiet)
    std::cout << "wrote " << sheets.size() << " sheets to " << o.output_dir << "\n";
  return kExitOk;
}

}  // namespace

void add_perf_report_command(CLI::App& app) {
  auto o = std::make_shared<PerfReportCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "perf-report",
      "Write the TraceLens-compatible perf report as CSV files into a folder: gpu_timeline,\n"
      "ops_summary_by_category, ops_summary, ops_unique_args, unified_perf_summary, one sheet\n"
      "per op family with FLOPs, bytes, TFLOPS/s, TB/s (and roofline columns when the\n"
      "platform's peaks are known), kernel_summary and the short-kernel sheets.");
  add_trace_options(*cmd, o->trace, o->load);
  cmd->add_option("-o,--output", o->output_dir, "Folder for the CSV files (created if missing)")
      ->required()
      ->check(output_folder_check());
  add_platform_options(*cmd, o->platform);
  add_plugin_dir_option(*cmd, o->plugin_dirs);
  add_jobs_option(*cmd, o->jobs, "Threads for the op models (default: all cores)");
  cmd->add_option("--micro-idle-threshold-us", o->load.micro_idle_threshold_us,
                  "Split idle time into gaps shorter than this many µs (micro_idle_time) and the "
                  "rest (macro_idle_time), like TraceLens --micro_idle_thresh_us")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--short-kernel-threshold-us", o->sheets.short_kernel_threshold_us,
                  "Kernels shorter than this are 'short' in the short-kernel sheets")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--short-kernel-bins", o->sheets.short_kernel_bins,
                  "Bins of short_kernel_histogram")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--topk-short-kernels", o->sheets.topk_short_kernels,
                  "Keep only the first N rows of short_kernels_summary (0: all)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--group-by-num-kernels", o->sheets.group_by_num_kernels,
                "Also group ops_unique_args and the perf-model sheets by each op's number of "
                "kernels (a num_kernels column), like TraceLens --group_by_num_kernels");
  cmd->add_flag("--group-by-parent-module", o->sheets.group_by_parent_module,
                "Also group the ops sheets by each op's enclosing nn.Module (parent_module and\n"
                "call-stack columns; needs the trace's python frames), like TraceLens inference\n"
                "--group_by_parent_module");
  cmd->add_flag("--include-call-stack", o->sheets.include_call_stack,
                "Add entry_point (the source line each op is called from) and call_stack_full\n"
                "(its kernels' call stacks) to unified_perf_summary; needs the trace's python\n"
                "frames (TraceLens --include_call_stack)");
  cmd->add_option("--capture-dir", o->load.capture_dir,
                  "A graph-replay serving trace's capture folder (TraceLens inference\n"
                  "--capture_folder): replayed kernels are attributed to the captured ops, as\n"
                  "analyze --mode inference --capture-dir does")
      ->check(CLI::ExistingDirectory);
  cmd->footer(
      "Examples:\n"
      "  traceprism perf-report trace.json.gz -o trace_perf_report_csvs\n"
      "  traceprism perf-report trace.json.gz -o out --platform-file H100.json   # roofline\n"
      "  traceprism perf-report serve.json.gz --capture-dir captures/ -o out \\\n"
      "      --group-by-num-kernels --group-by-parent-module --include-call-stack"
      "   # as TraceLens inference");
  cmd->callback([o] {
    const int code = run_perf_report(*o);
    if (code != kExitOk) throw CLI::RuntimeError(code);
  });
}

}  // namespace traceprism::cli
