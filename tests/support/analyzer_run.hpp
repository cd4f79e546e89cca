// A trace read and modelled by the host library the way `analyze` does it (index, call tree,
// launch links, GPU timeline, op launchers, RunProducts), with the run context the host API
// hands one analyzer: for tests that call the host API, or run an analyzer in-process, without
// loading a plugin. ctx() is what the host passes to the analyzer; outcome() collects what it
// emits.
#pragma once

#include <memory>
#include <string>
#include <utility>

#include "cli/plugin_loading.hpp"
#include "config/run_config.hpp"
#include "model/forward_backward.hpp"
#include "model/kernel_launchers.hpp"
#include "perf_report/unified_perf_table.hpp"
#include "pipeline/trace_load.hpp"
#include "platform/platform_file.hpp"
#include "plugins/host_api.hpp"
#include "plugins/op_model_runner.hpp"
#include "plugins/plugin_registry.hpp"
#include "plugins/run_products.hpp"

namespace traceprism::testing {

class AnalyzerRun {
 public:
  // `analyzer` is the analyzer as its plugin declares it (name, options); its options are read
  // from `config_json` under its name. `plugin` names the plugin in the outcome.
  AnalyzerRun(const std::string& trace_path, const traceprism_analyzer_v1& analyzer,
              const std::string& plugin, const std::string& config_json = "{}")
      : trace_path_(trace_path), analyzer_(analyzer) {
    pipeline::LoadOptions quiet;
    quiet.quiet = true;
    trace_ = pipeline::load_trace(trace_path, quiet);
    launchers_ = model::KernelLaunchers::build(trace_.file.index, trace_.tree, trace_.links);
    products_ = std::make_unique<plugins::RunProducts>(trace_.file.index, trace_.tree, trace_.links,
                                                       trace_.timeline, launchers_);
    config_ = config::parse_config(config_json, "test-config.json");
    ctx_.products = products_.get();
    ctx_.config = &config_;
    ctx_.platform = &platform_;
    ctx_.owner = analyzer.name;
    ctx_.analyzer = &analyzer_;
    ctx_.outcome = &outcome_;
    outcome_.name = analyzer.name;
    outcome_.plugin = plugin;
  }
  // ctx() points into this object.
  AnalyzerRun(const AnalyzerRun&) = delete;
  AnalyzerRun& operator=(const AnalyzerRun&) = delete;

  const ingest::TraceFile& file() const { return trace_.file; }
  plugins::RunProducts& products() { return *products_; }
  void set_platform(platform::PlatformInfo platform) { platform_ = std::move(platform); }
  // Runs the op models of the plugins in `plugin_dir` (phase 1) and gives the run the events
  // unified_perf_summary stands for, as `analyze` does after its perf report.
  void add_unified_perf_events(const std::string& plugin_dir) {
    plugins::PluginRegistry registry;
    cli::load_plugins(registry, {plugin_dir});
    const config::RunConfig config;
    const plugins::OpModelInputs models{&registry, &config, nullptr, &trace_path_, 1};
    const plugins::OpModelRun op_run = plugins::run_op_models(models, *products_);
    const model::ForwardBackwardLinks fwd_bwd =
        model::ForwardBackwardLinks::build(trace_.file.index);
    perf_report::PerfSheetInputs in;
    in.index = &trace_.file.index;
    in.tree = &trace_.tree;
    in.links = &trace_.links;
    in.fwd_bwd = &fwd_bwd;
    in.op_work = &op_run.table;
    in.launchers = &launchers_;
    products_->set_unified_events(perf_report::build_unified_perf_table(in).events);
  }
  traceprism_run_ctx* ctx() { return &ctx_; }
  const findings::AnalyzerOutcome& outcome() const { return outcome_; }

 private:
  std::string trace_path_;
  pipeline::TraceSession trace_;  // read -> index -> model, as every command loads a trace
  model::KernelLaunchers launchers_;
  std::unique_ptr<plugins::RunProducts> products_;
  config::RunConfig config_;
  platform::PlatformInfo platform_;
  traceprism_analyzer_v1 analyzer_;
  findings::AnalyzerOutcome outcome_;
  traceprism_run_ctx ctx_;
};

}  // namespace traceprism::testing
