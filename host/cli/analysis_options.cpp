#include "cli/analysis_options.hpp"

#include <iostream>

#include "cli/commands.hpp"
#include "cli/plugin_loading.hpp"
#include "cli/trace_options.hpp"
#include "io/input_error.hpp"
#include "io/small_file.hpp"
#include "platform/platform_file.hpp"

namespace traceprism::cli {

void add_analysis_options(CLI::App& cmd, AnalysisOptions& o) {
  cmd.add_flag("--strict", o.load.strict,
               "Stop at the first malformed event, refused plugin or failed analyzer");
  cmd.add_flag("--include-unlinked", o.load.include_unlinked,
               "Count GPU events without a launching host call in the GPU timeline");
  cmd.add_flag("-q,--quiet", o.load.quiet, "No progress line and no summary");
  add_read_threads_option(cmd, o.load.read_threads);
  cmd.add_option("--config", o.config_file,
                 "JSON file merged over config/default.json: {\"analyzers\": \"*,-memcpy\",\n"
                 "\"options\": {\"cpu-idle.IdleThresholdPercent\": \"20\"}}")
      ->check(CLI::ExistingFile);
  cmd.add_option(
      "--enable", o.enable,
      "Enable analyzers matching this glob (repeatable; with --disable, the last match wins)");
  cmd.add_option("--disable", o.disable, "Disable analyzers matching this glob (repeatable)");
  add_plugin_dir_option(cmd, o.plugin_dirs);
  add_jobs_option(cmd, o.jobs,
                  "Threads for op models, and analyzers run at once (worker processes, or\n"
                  "threads with --no-isolate); default: all cores. Output is identical for any\n"
                  "value");
  cmd.add_flag("--no-isolate", o.no_isolate,
               "Run analyzers inside this process, in parallel on --jobs threads, instead of\n"
               "in forked worker processes (also to debug a plugin); a crashing plugin then takes\n"
               "the whole run down");
  cmd.add_option("--analyzer-timeout", o.analyzer_timeout,
                 "Stop an analyzer that runs longer than this many seconds and report it as\n"
                 "failed (0: no limit; needs isolation)")
      ->check(CLI::NonNegativeNumber);
  cmd.add_option("--fail-on", o.fail_on,
                 "Exit with status 1 when a finding has this severity or higher")
      ->check(CLI::IsMember({"none", "info", "warning", "critical"}));
}

void collect_analyzer_globs(const CLI::App& cmd, AnalysisOptions& o) {
  const CLI::Option* enable = cmd.get_option("--enable");
  const CLI::Option* disable = cmd.get_option("--disable");
  std::size_t next_enable = 0, next_disable = 0;
  o.analyzer_globs.clear();
  for (const CLI::Option* opt : cmd.parse_order()) {
    if (opt == enable && next_enable < o.enable.size())
      o.analyzer_globs.push_back(o.enable[next_enable++]);
    else if (opt == disable && next_disable < o.disable.size())
      o.analyzer_globs.push_back("-" + o.disable[next_disable++]);
  }
}

namespace {

config::RunConfig load_config_file(const std::string& path) {
  io::SmallFile file = io::read_small_file(path);
  if (file.status == io::SmallFile::Status::kCannotOpen)
    throw config::ConfigError(path + ": cannot open the configuration file.");
  if (file.status == io::SmallFile::Status::kTooLarge)
    throw config::ConfigError(io::too_large_sentence(path, "a JSON configuration file"));
  return config::parse_config(file.text, path);
}

}  // namespace

config::RunConfig effective_config(const AnalysisOptions& o) {
  config::RunConfig cfg = config::default_config();
  if (!o.config_file.empty()) config::merge_config(cfg, load_config_file(o.config_file));
  for (const auto& g : o.analyzer_globs) cfg.analyzer_globs.push_back(g);
  if (!o.fail_on.empty()) cfg.fail_on = o.fail_on;
  return cfg;
}

int check_loaded_plugins(const plugins::PluginRegistry& registry, const AnalysisOptions& o) {
  for (const auto& r : registry.refused())
    std::cerr << "warning: plugin refused: " << r.reason << "\n";
  if (registry.plugins().empty())
    std::cerr << "warning: no analyzer plugins were found (searched the install's plugin folder, "
                 "TRACEPRISM_PLUGIN_PATH and --plugin-dir); the report will be empty.\n";
  if (o.load.strict && !registry.refused().empty()) {
    print_error("--strict: " + std::to_string(registry.refused().size()) + " plugin(s) refused.");
    return kExitPlugin;
  }
  return kExitOk;
}

pipeline::PipelineOptions pipeline_options(const AnalysisOptions& o,
                                           const plugins::PluginRegistry& registry,
                                           const config::RunConfig& config) {
  pipeline::PipelineOptions p;
  p.load = o.load;
  p.registry = &registry;
  p.config = &config;
  p.jobs = o.jobs;
  p.isolate_analyzers = !o.no_isolate;
  p.analyzer_timeout_seconds = o.analyzer_timeout;
  // As the reference's agent runs its perf report: the compute findings name the source line
  // each op is called from (entry_point).
  p.sheets.include_call_stack = true;
  return p;
}

std::size_t report_failed_analyzers(const std::vector<findings::AnalyzerOutcome>& analyzers,
                                    std::string_view trace_label) {
  std::size_t failed = 0;
  for (const auto& a : analyzers) {
    if (a.status != findings::AnalyzerStatus::kFailed) continue;
    ++failed;
    std::cerr << "warning: analyzer " << a.name << " failed";
    if (!trace_label.empty()) std::cerr << " on " << trace_label;
    std::cerr << ": " << a.error << "\n";
  }
  return failed;
}

int exit_code_of_pipeline(const std::function<void()>& run) {
  try {
    run();
  } catch (const io::InputError& e) {
    print_error(e.what());
    return kExitBadInput;
  } catch (const pipeline::UnknownPlatform& e) {
    print_error(e.what());
    return kExitUsage;
  } catch (const platform::PlatformError& e) {
    print_error(e.what());
    return kExitUsage;
  }
  return kExitOk;
}

int severity_threshold_exit(const config::RunConfig& cfg, const findings::RankedFindings& f) {
  findings::Severity threshold;
  if (cfg.fail_on == "none" || !findings::parse_severity(cfg.fail_on, threshold)) return kExitOk;
  for (auto t : {findings::Tier::kCompute, findings::Tier::kFusion, findings::Tier::kSystem})
    for (const auto& x : f.tier(t))
      if (x.severity >= threshold) return kExitFindings;
  return kExitOk;
}

}  // namespace traceprism::cli
