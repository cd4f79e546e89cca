#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "cli/analysis_options.hpp"
#include "cli/commands.hpp"
#include "cli/platform_options.hpp"
#include "cli/plugin_loading.hpp"
#include "cli/trace_options.hpp"
#include "io/folder_replacement.hpp"
#include "pipeline/comparison_pipeline.hpp"
#include "report/comparison_writers.hpp"

namespace traceprism::cli {

namespace {

namespace fs = std::filesystem;

struct CompareOptions {
  std::string trace, reference;
  std::string output_dir = "comparison";
  pipeline::PlatformOptions platform, reference_platform;
  std::string capture_dir, reference_capture_dir;  // inference mode's capture folders
  AnalysisOptions analysis;
};

pipeline::ComparisonOptions comparison_options(const CompareOptions& o,
                                               const pipeline::PipelineOptions& common) {
  pipeline::ComparisonOptions c{common, common};
  c.trace1.trace_path = o.trace;
  c.trace1.platform = o.platform;
  c.trace2.trace_path = o.reference;
  c.trace2.platform = o.reference_platform;
  c.trace1.load.capture_dir = o.capture_dir;
  c.trace2.load.capture_dir = o.reference_capture_dir;
  for (pipeline::PipelineOptions* t : {&c.trace1, &c.trace2}) {
    t->inference_mode = !o.capture_dir.empty() || !o.reference_capture_dir.empty();
    t->load.capture_prune_when_large = true;
    t->load.pseudo_ops = t->inference_mode;
  }
  return c;
}

int run_compare(const CompareOptions& o) {
  const AnalysisOptions& a = o.analysis;
  if (o.trace == "-" && o.reference == "-") {
    print_error("compare reads at most one of its two traces from standard input.");
    return kExitUsage;
  }
  config::RunConfig cfg;
  try {
    cfg = effective_config(a);
  } catch (const config::ConfigError& e) {
    print_error(e.what());
    return kExitUsage;
  }
  plugins::PluginRegistry registry;
  load_plugins(registry, a.plugin_dirs);
  if (int code = check_loaded_plugins(registry, a); code != kExitOk) return code;

  std::optional<io::FolderReplacement> output;
  try {
    output.emplace(o.output_dir, report::is_comparison_report_file);
  } catch (const std::exception& e) {
    print_error(e.what());
    return kExitOutput;
  }
  const auto start = std::chrono::steady_clock::now();
  const pipeline::ComparisonOptions c = comparison_options(o, pipeline_options(a, registry, cfg));
  std::unique_ptr<pipeline::ComparisonRun> run;
  if (int code = exit_code_of_pipeline([&] { run = pipeline::run_comparison(c); }); code != kExitOk)
    return code;
  const pipeline::ComparativeReport& r = run->report;
  try {
    report::write_comparison_folder(output->staging().string(), r);
    output->commit();
  } catch (const std::exception& e) {
    print_error(e.what());
    return kExitOutput;
  }
  const std::size_t failed = report_failed_analyzers(r.trace1->graph.analyzers, "trace 1") +
                             report_failed_analyzers(r.trace2->graph.analyzers, "trace 2");
  if (!a.load.quiet) {
    std::fprintf(stderr, "compared in %.2f s\n",
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    std::cout << r.diff.gap_summary << "\nwrote "
              << (fs::path(o.output_dir) / "analysis.md").string() << " ("
              << r.trace1->findings.system.size()
              << " system findings), findings.json, kernel_diff.csv, time_breakdown.csv, "
                 "perf_report_trace1_csvs/, perf_report_trace2_csvs/, report_diff_csvs/\n";
  }
  if (a.load.strict && failed > 0) {
    print_error("--strict: " + std::to_string(failed) + " analyzer(s) failed.");
    return kExitPlugin;
  }
  return severity_threshold_exit(cfg, r.trace1->findings);
}

}  // namespace

void add_compare_command(CLI::App& app) {
  auto o = std::make_shared<CompareOptions>();
  CLI::App* cmd = app.add_subcommand(
      "compare",
      "Explain why TRACE is slower than REFERENCE (a new GPU, software version or code change).\n"
      "TRACE is trace 1, the run to speed up (the reference workflow's \"baseline\", passed\n"
      "first); REFERENCE is trace 2, the faster run it is compared against. Trace 1's ops are\n"
      "matched to trace 2's by merging the two call trees (TraceDiff), so each op is judged\n"
      "against its counterpart, even across vendors' different lowerings. Writes:\n"
      "  DIR/analysis.md              comparative report: the gap in one sentence, where to\n"
      "                               start, both traces side by side, where the time went,\n"
      "                               the kernel diff, ops slower than their trace-2\n"
      "                               counterparts, kernel sequences trace 2 runs as fewer\n"
      "                               kernels, and trace 1's items that trace 2 does not share\n"
      "  DIR/findings.json            trace 1's findings with a \"comparison\" object\n"
      "  DIR/kernel_diff.csv          every GPU kernel/copy/memset name: counts and times of\n"
      "                               both traces, diff = trace 1 - trace 2\n"
      "  DIR/time_breakdown.csv       the window by category, idle cause, collective, copy\n"
      "  DIR/perf_report_trace1_csvs/ and DIR/perf_report_trace2_csvs/  each trace's perf report;\n"
      "                               trace 1's has diff_stats.csv and the speedup / LCA columns\n"
      "  DIR/report_diff_csvs/        the two perf reports diffed sheet by sheet (as\n"
      "                               'traceprism compare-reports'; trace 1 the baseline, so\n"
      "                               each _diff column is trace 2 - trace 1)\n"
      "Outputs are written atomically; the traces are never modified.");
  cmd->add_option("TRACE", o->trace, "Trace 1: the slower run to explain (.json, .gz, .zst or -)")
      ->required();
  cmd->add_option("REFERENCE", o->reference, "Trace 2: the faster run to compare against")
      ->required();
  cmd->add_option("-o,--output", o->output_dir, "Output folder (created if missing)")
      ->capture_default_str()
      ->check(output_folder_check());
  add_platform_options(*cmd, o->platform);
  add_reference_platform_options(*cmd, o->reference_platform);
  cmd->add_option("--capture-dir", o->capture_dir,
                  "Inference mode: trace 1's graph-capture folder (see analyze --capture-dir)")
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--reference-capture-dir", o->reference_capture_dir,
                  "Inference mode: trace 2's graph-capture folder")
      ->check(CLI::ExistingDirectory);
  add_analysis_options(*cmd, o->analysis);
  cmd->footer(
      "Examples:\n"
      "  traceprism compare mi300.json.gz h100.json.gz -o why_slower\n"
      "      why the MI300X run is slower than the H100 run (each platform auto-detected)\n"
      "  traceprism compare new.json.gz old.json.gz --platform H100 --reference-platform H100\n"
      "      a regression between two software versions on one GPU\n"
      "  traceprism compare new.json.gz old.json.gz --capture-dir new_captures\n"
      "      --reference-capture-dir old_captures     two vLLM graph-replay runs\n" +
      std::string(kAnalysisExitStatusHelp));
  cmd->callback([o, cmd] {
    collect_analyzer_globs(*cmd, o->analysis);
    int code = run_compare(*o);
    if (code != kExitOk) throw CLI::RuntimeError(code);
  });
}

}  // namespace traceprism::cli
