#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <stdexcept>

#include "cli/commands.hpp"
#include "cli/platform_choice.hpp"
#include "cli/plugin_loading.hpp"
#include "cli/trace_session.hpp"
#include "config/run_config.hpp"
#include "io/input_error.hpp"
#include "io/output_file.hpp"
#include "model/forward_backward.hpp"
#include "model/kernel_launchers.hpp"
#include "platform/platform_file.hpp"
#include "report/analysis_report.hpp"
#include "report/gpu_timeline_sheet.hpp"
#include "report/json_writer.hpp"
#include "report/unified_perf_table.hpp"

namespace traceprism::cli {

namespace {

namespace fs = std::filesystem;

struct AnalyzeOptions {
  std::string trace;
  std::string output_dir;
  PlatformOptions platform;
  std::string config_file;
  std::vector<std::string> enable, disable, plugin_dirs;
  // --enable G / --disable G as globs ("G" / "-G") in command-line order: the last match wins,
  // so `--disable '*' --enable gemm-efficiency` must keep that order.
  std::vector<std::string> analyzer_globs;
  int jobs = 0;
  bool no_isolate = false;
  double analyzer_timeout = 0;
  std::string fail_on;
  bool dump_config = false;
  LoadOptions load;
};

std::string default_output_dir(const std::string& trace) {
  std::string name = fs::path(trace).filename().string();
  for (const char* ext : {".gz", ".zst", ".json"})
    if (name.size() > std::strlen(ext) && name.ends_with(ext))
      name.resize(name.size() - std::strlen(ext));
  return (trace == "-" ? std::string("stdin") : name) + "_analysis";
}

config::RunConfig effective_config(const AnalyzeOptions& o) {
  config::RunConfig cfg = config::default_config();
  if (!o.config_file.empty()) config::merge_config(cfg, config::load_config_file(o.config_file));
  for (const auto& g : o.analyzer_globs) cfg.analyzer_globs.push_back(g);
  if (!o.fail_on.empty()) cfg.fail_on = o.fail_on;
  return cfg;
}

// The effective configuration, with every loaded analyzer's options at their effective values.
std::string dump_config(const config::RunConfig& cfg, const plugins::PluginRegistry& registry) {
  report::JsonWriter w;
  w.begin_object();
  std::string globs;
  for (const auto& g : cfg.analyzer_globs) globs += (globs.empty() ? "" : ",") + g;
  w.key("analyzers").value(globs);
  std::map<std::string, std::string> options = cfg.options;
  for (const auto& p : registry.plugins())
    for (std::uint32_t i = 0; i < p.info->analyzer_count; ++i) {
      const auto& a = p.info->analyzers[i];
      for (std::uint32_t o = 0; o < a.option_count; ++o)
        options.emplace(std::string(a.name) + "." + a.options[o].name,
                        a.options[o].default_value ? a.options[o].default_value : "");
    }
  w.key("options").begin_object();
  for (const auto& [k, v] : options) w.key(k).value(v);
  w.end_object();
  w.key("report").begin_object().key("fail_on").value(cfg.fail_on).end_object();
  w.key("_enabled").begin_array();
  for (const auto& p : registry.plugins())
    for (std::uint32_t i = 0; i < p.info->analyzer_count; ++i)
      if (cfg.enabled(p.info->analyzers[i].name)) w.value(p.info->analyzers[i].name);
  w.end_array();
  w.end_object();
  return w.str();
}

void find_top_category(report::AnalysisReport& r, const plugins::RunProducts& products) {
  const auto* ops = products.op_instances();
  std::map<std::string, double> busy;
  for (std::size_t i = 0; i < ops->count; ++i) {
    std::string name(products.string(ops->category_id[i]));
    busy[name.empty() ? "other" : name] += ops->direct_busy_us[i];
  }
  double best = 0, all = 0;
  for (const auto& [name, us] : busy) {
    all += us;
    if (us > best) best = us, r.top_category = name;
  }
  // The reference divides by computation time; op time also holds copies and overlapping
  // kernels, so the larger of the two keeps the share a share (docs/compatibility.md).
  const double denominator = std::max(r.timeline.computation_us, all);
  if (denominator > 0) r.top_category_percent = best / denominator * 100;
}

int severity_threshold_exit(const config::RunConfig& cfg, const report::RankedFindings& f) {
  report::Severity threshold;
  if (cfg.fail_on == "none" || !report::parse_severity(cfg.fail_on, threshold)) return kExitOk;
  for (auto t : {report::Tier::kCompute, report::Tier::kFusion, report::Tier::kSystem})
    for (const auto& x : f.tier(t))
      if (x.severity >= threshold) return kExitFindings;
  return kExitOk;
}

void write_outputs(const std::string& dir, const report::AnalysisReport& r) {
  std::error_code ec;
  fs::create_directories(fs::path(dir) / "perf_report_csvs", ec);
  if (ec || !fs::is_directory(fs::path(dir) / "perf_report_csvs"))
    throw std::runtime_error(dir + ": cannot create the output folder: " +
                             (ec ? ec.message() : std::string("a file of that name exists")) + ".");
  for (const report::PerfSheet& sheet : r.perf_sheets)
    io::write_file_atomically((fs::path(dir) / "perf_report_csvs" / (sheet.name + ".csv")).string(),
                              sheet.csv);
  io::write_file_atomically((fs::path(dir) / "findings.json").string(), report::findings_json(r));
  io::write_file_atomically((fs::path(dir) / "model_info.json").string(),
                            report::model_info_json(r.model));
  io::write_file_atomically((fs::path(dir) / report::kBreakdownChartFile).string(),
                            report::perf_breakdown_svg(r));
  io::write_file_atomically((fs::path(dir) / "analysis.md").string(), report::analysis_markdown(r));
}

int run_analyze(const AnalyzeOptions& o) {
  config::RunConfig cfg;
  try {
    cfg = effective_config(o);
  } catch (const config::ConfigError& e) {
    print_error(e.what());
    return kExitUsage;
  }
  plugins::PluginRegistry registry;
  load_plugins(registry, o.plugin_dirs);
  if (o.dump_config) {
    std::cout << dump_config(cfg, registry);
    return kExitOk;
  }
  if (o.trace.empty()) {
    print_error("analyze needs a TRACE argument (or --dump-config).");
    return kExitUsage;
  }
  for (const auto& r : registry.refused())
    std::cerr << "warning: plugin refused: " << r.reason << "\n";
  if (registry.plugins().empty())
    std::cerr << "warning: no analyzer plugins were found (searched the install's plugin folder, "
                 "TRACEPRISM_PLUGIN_PATH and --plugin-dir); the report will be empty.\n";
  if (o.load.strict && !registry.refused().empty()) {
    print_error("--strict: " + std::to_string(registry.refused().size()) + " plugin(s) refused.");
    return kExitPlugin;
  }

  TraceSession session;
  try {
    session = load_trace(o.trace, o.load);
  } catch (const io::InputError& e) {
    print_error(e.what());
    return kExitBadInput;
  }
  const index::EventIndex& index = session.file.index;
  auto stage_start = std::chrono::steady_clock::now();
  auto lap = [&stage_start] {
    auto now = std::chrono::steady_clock::now();
    double s = std::chrono::duration<double>(now - stage_start).count();
    stage_start = now;
    return s;
  };
  auto launchers = model::KernelLaunchers::build(index, session.tree, session.links);
  plugins::RunProducts products(index, session.tree, session.links, session.timeline, launchers);
  const double products_seconds = lap();

  report::AnalysisReport r;
  r.trace_path = o.trace;
  r.index = &index;
  r.timeline = session.timeline;
  try {
    r.platform = choose_platform(o.platform, index);
  } catch (const UnknownPlatform& e) {
    print_error(e.what());
    return kExitUsage;
  } catch (const platform::PlatformError& e) {
    print_error(e.what());
    return kExitUsage;
  }
  r.refused_plugins = registry.refused();
  plugins::OpModelInputs model_inputs{&registry, &cfg, &r.platform, &r.trace_path, o.jobs};
  plugins::OpModelRun op_run = plugins::run_op_models(model_inputs, products);
  products.set_op_work(&op_run.table);
  r.op_models = op_run.outcomes;
  const auto fwd_bwd = model::ForwardBackwardLinks::build(index);
  report::PerfReportInputs perf_inputs;
  perf_inputs.index = &index;
  perf_inputs.tree = &session.tree;
  perf_inputs.links = &session.links;
  perf_inputs.fwd_bwd = &fwd_bwd;
  perf_inputs.timeline = &session.timeline;
  perf_inputs.launchers = &launchers;
  perf_inputs.op_work = &op_run.table;
  perf_inputs.platform = &r.platform;
  std::vector<index::Row> unified_events;
  perf_inputs.unified_events = &unified_events;
  report::UnifiedPerfTable unified_table;
  perf_inputs.unified_table = &unified_table;
  r.perf_sheets = report::build_perf_report(perf_inputs);
  products.set_perf_sheets(r.perf_sheets);
  products.set_unified_events(std::move(unified_events));
  products.set_op_metrics(std::move(unified_table));
  schedule::GraphInputs inputs{&registry, &cfg,          &r.platform,       &r.trace_path,
                               o.jobs,    !o.no_isolate, o.analyzer_timeout};
  r.graph = schedule::run_analysis_graph(inputs, products);
  r.findings = report::rank_findings(r.graph.analyzers);
  find_top_category(r, products);
  r.model = report::identify_model(report::gather_model_evidence(&index, r.perf_sheets));
  const double analysis_seconds = lap();

  const std::string dir = o.output_dir.empty() ? default_output_dir(o.trace) : o.output_dir;
  try {
    write_outputs(dir, r);
  } catch (const std::exception& e) {
    print_error(e.what());
    return kExitOutput;
  }
  const double write_seconds = lap();
  // Timings go to stderr, so stdout and the outputs stay reproducible.
  if (!o.load.quiet)
    std::fprintf(stderr,
                 "read %.2f s, model %.2f s, plugin products %.2f s, analysis %.2f s, "
                 "writing %.2f s\n",
                 session.read_seconds, session.model_seconds, products_seconds, analysis_seconds,
                 write_seconds);
  std::size_t failed = 0;
  for (const auto& a : r.graph.analyzers) {
    if (a.status != report::AnalyzerStatus::kFailed) continue;
    ++failed;
    std::cerr << "warning: analyzer " << a.name << " failed: " << a.error << "\n";
  }
  if (!o.load.quiet)
    std::cout << "wrote " << (fs::path(dir) / "analysis.md").string() << " ("
              << r.findings.compute.size() << " compute, " << r.findings.fusion.size()
              << " fusion, " << r.findings.system.size() << " system findings), findings.json, "
              << "perf_report_csvs/\n";
  if (o.load.strict && failed > 0) {
    print_error("--strict: " + std::to_string(failed) + " analyzer(s) failed.");
    return kExitPlugin;
  }
  return severity_threshold_exit(cfg, r.findings);
}

}  // namespace

void add_analyze_command(CLI::App& app) {
  auto o = std::make_shared<AnalyzeOptions>();
  CLI::App* cmd = app.add_subcommand(
      "analyze",
      "Analyze a trace with every enabled analyzer plugin and write the ranked report:\n"
      "  DIR/analysis.md        the report (executive summary, compute / fusion / system P-items)\n"
      "  DIR/findings.json      every finding with numbers and evidence (docs/report-format.md)\n"
      "  DIR/perf_report_csvs/  TraceLens-compatible perf report sheets\n"
      "  DIR/model_info.json    the identified model, architecture, scale and precision\n"
      "  DIR/perf_breakdown.svg the GPU time breakdown chart analysis.md shows\n"
      "Outputs are written atomically; the trace is never modified.");
  cmd->add_option("TRACE", o->trace, "Trace file (.json, .json.gz, .json.zst) or - for stdin");
  cmd->add_flag("--strict", o->load.strict,
                "Stop at the first malformed event, refused plugin or failed analyzer");
  cmd->add_flag("--include-unlinked", o->load.include_unlinked,
                "Count GPU events without a launching host call in the GPU timeline");
  cmd->add_flag("-q,--quiet", o->load.quiet, "No progress line and no summary");
  cmd->add_option("-o,--output", o->output_dir,
                  "Output folder (created if missing; default: <trace name>_analysis)");
  add_platform_options(*cmd, o->platform);
  cmd->add_option("--config", o->config_file,
                  "JSON file merged over config/default.json: {\"analyzers\": \"*,-memcpy\",\n"
                  "\"options\": {\"cpu-idle.IdleThresholdPercent\": \"20\"}}")
      ->check(CLI::ExistingFile);
  CLI::Option* enable = cmd->add_option(
      "--enable", o->enable,
      "Enable analyzers matching this glob (repeatable; with --disable, the last match wins)");
  CLI::Option* disable =
      cmd->add_option("--disable", o->disable, "Disable analyzers matching this glob (repeatable)");
  add_plugin_dir_option(*cmd, o->plugin_dirs);
  cmd->add_option("-j,--jobs", o->jobs,
                  "Threads for op models, and for analyzers with --no-isolate (default: all\n"
                  "cores; isolated analyzers run one child process at a time); output is\n"
                  "identical for any value")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--no-isolate", o->no_isolate,
                "Run analyzers inside this process, in parallel on --jobs threads, instead of\n"
                "one child process each (also to debug a plugin); a crashing plugin then takes\n"
                "the whole run down");
  cmd->add_option("--analyzer-timeout", o->analyzer_timeout,
                  "Stop an analyzer that runs longer than this many seconds and report it as\n"
                  "failed (0: no limit; needs isolation)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--fail-on", o->fail_on,
                  "Exit with status 1 when a finding has this severity or higher")
      ->check(CLI::IsMember({"none", "info", "warning", "critical"}));
  cmd->add_flag("--dump-config", o->dump_config,
                "Print the effective configuration (globs, every option with its value) and exit");
  cmd->footer(
      "Examples:\n"
      "  traceprism analyze trace.json.gz -o report\n"
      "  traceprism analyze trace.json.gz --disable 'memcpy' --jobs 4\n"
      "  traceprism analyze --dump-config > my-config.json\n"
      "  traceprism validate-report report    check the written report's structure\n"
      "Exit status: 0 ok, 1 --fail-on matched, 2 unreadable trace, 3 output not writable,\n"
      "4 --strict and a plugin was refused or an analyzer failed, 64 usage.");
  cmd->callback([o, cmd, enable, disable] {
    std::size_t next_enable = 0, next_disable = 0;
    for (const CLI::Option* opt : cmd->parse_order()) {
      if (opt == enable && next_enable < o->enable.size())
        o->analyzer_globs.push_back(o->enable[next_enable++]);
      else if (opt == disable && next_disable < o->disable.size())
        o->analyzer_globs.push_back("-" + o->disable[next_disable++]);
    }
    int code = run_analyze(*o);
    if (code != kExitOk) throw CLI::RuntimeError(code);
  });
}

}  // namespace traceprism::cli
