// The options every analysing command shares (analyze, compare): configuration, analyzer
// globs, plugin folders, parallelism, isolation, --fail-on and the trace-loading flags.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

#include "config/run_config.hpp"
#include "findings/ranker.hpp"
#include "pipeline/analysis_pipeline.hpp"
#include "plugins/plugin_registry.hpp"

namespace traceprism::cli {

struct AnalysisOptions {
  std::string config_file;
  std::vector<std::string> enable, disable, plugin_dirs;
  // --enable G / --disable G as globs ("G" / "-G") in command-line order: the last match wins,
  // so `--disable '*' --enable gemm-efficiency` must keep that order.
  std::vector<std::string> analyzer_globs;
  int jobs = 0;
  bool no_isolate = false;
  double analyzer_timeout = 0;
  std::string fail_on;
  pipeline::LoadOptions load;
};

// Registers the options on `command`.
void add_analysis_options(CLI::App& command, AnalysisOptions& options);

// Fills options.analyzer_globs from --enable/--disable in command-line order; call from the
// command's callback.
void collect_analyzer_globs(const CLI::App& command, AnalysisOptions& options);

// config/default.json, --config, the globs and --fail-on. Throws config::ConfigError.
config::RunConfig effective_config(const AnalysisOptions& options);

// Warns on stderr about refused plugins and an empty registry (load_plugins filled it); returns
// kExitPlugin when --strict and a plugin was refused, else kExitOk.
int check_loaded_plugins(const plugins::PluginRegistry& registry, const AnalysisOptions& options);

// The pipeline options of one trace, without its path and platform.
pipeline::PipelineOptions pipeline_options(const AnalysisOptions& options,
                                           const plugins::PluginRegistry& registry,
                                           const config::RunConfig& config);

// Warns about failed analyzers on stderr; returns how many failed.
std::size_t report_failed_analyzers(const std::vector<findings::AnalyzerOutcome>& analyzers,
                                    std::string_view trace_label = {});

// Runs `run` (a pipeline call) and turns what it throws into one printed sentence and the exit
// code: an unreadable trace 2, an unknown platform or a bad platform file 64; kExitOk when it
// returned.
int exit_code_of_pipeline(const std::function<void()>& run);

// The exit-status lines of analyze's and compare's --help footer.
inline constexpr const char* kAnalysisExitStatusHelp =
    "Exit status: 0 ok, 1 --fail-on matched, 2 unreadable trace, 3 output not writable,\n"
    "4 --strict and a plugin was refused or an analyzer failed, 64 usage.";

// kExitFindings when a ranked finding has --fail-on's severity or higher, else kExitOk.
int severity_threshold_exit(const config::RunConfig& config, const findings::RankedFindings& f);

}  // namespace traceprism::cli
