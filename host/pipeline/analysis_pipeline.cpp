#include "pipeline/analysis_pipeline.hpp"

#include <oneapi/tbb/parallel_invoke.h>

#include <chrono>
#include <map>
#include <vector>

#include "findings/category_shares.hpp"
#include "findings/diagnosis.hpp"
#include "findings/model_identification.hpp"
#include "findings/ranker.hpp"
#include "findings/top_category.hpp"
#include "model/collectives.hpp"
#include "model/computation_partition.hpp"
#include "model/forward_backward.hpp"
#include "perf_report/device_copy_model.hpp"
#include "schedule/analysis_graph.hpp"

namespace traceprism::pipeline {

namespace {

class StageClock {
 public:
  // Seconds since the previous lap (or construction).
  double lap() {
    const auto now = std::chrono::steady_clock::now();
    const double s = std::chrono::duration<double>(now - start_).count();
    start_ = now;
    return s;
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

void build_products(PipelineRun& run) {
  const index::EventIndex& index = run.trace.file.index;
  run.launchers = model::KernelLaunchers::build(index, run.trace.tree, run.trace.links);
  run.products = std::make_unique<plugins::RunProducts>(index, run.trace.tree, run.trace.links,
                                                        run.trace.timeline, run.launchers);
}

void run_op_models(PipelineRun& run, const PipelineOptions& o) {
  AnalysisReport& r = run.report;
  const plugins::OpModelInputs inputs{o.registry, o.config, &r.platform, &r.trace_path, o.jobs};
  run.op_models = plugins::run_op_models(inputs, *run.products);
  run.products->set_op_work(&run.op_models.table);
  r.op_models = run.op_models.outcomes;
}

void enrich_perf_report(PipelineRun& run, const PipelineOptions& o,
                        perf_report::UnifiedPerfTable& unified) {
  o.enrich_perf_report(run, unified);
  if (!unified.has_lca_columns) return;
  for (perf_report::PerfSheet& sheet : run.report.perf_sheets)
    if (sheet.name == "unified_perf_summary")
      sheet.table = perf_report::unified_perf_summary_sheet(unified);
}

void build_perf_report(PipelineRun& run, const PipelineOptions& o) {
  const index::EventIndex& index = run.trace.file.index;
  const auto fwd_bwd = model::ForwardBackwardLinks::build(index);
  perf_report::PerfReportInputs in;
  in.index = &index;
  in.tree = &run.trace.tree;
  in.links = &run.trace.links;
  in.fwd_bwd = &fwd_bwd;
  in.timeline = &run.trace.timeline;
  in.launchers = &run.launchers;
  in.op_work = &run.op_models.table;
  in.platform = &run.report.platform;
  in.options = o.sheets;
  if (o.sheets.group_by_parent_module || o.sheets.include_call_stack)
    in.python_parents = run.products->python_tree_parents();
  std::vector<index::Row> unified_events;
  in.unified_events = &unified_events;
  perf_report::UnifiedPerfTable unified_table;
  in.unified_table = &unified_table;
  run.report.perf_sheets = perf_report::build_perf_report(in);
  if (o.enrich_perf_report) enrich_perf_report(run, o, unified_table);
  if (o.last_stage == LastStage::kPerfReport) return;  // no analyzer reads them
  run.products->set_perf_sheets(run.report.perf_sheets);
  run.products->set_unified_events(std::move(unified_events));
  // The sheets above stay the reference's; the analyzers also see the device-copy model.
  perf_report::add_device_copy_models(unified_table, &run.report.platform);
  run.products->set_op_metrics(std::move(unified_table));
}

// Every idle microsecond with its host cause, for the analyzers (ABI 1.6) and the diagnosis.
void attribute_idle(PipelineRun& run, const PipelineOptions& o) {
  const index::EventIndex& index = run.trace.file.index;
  run.idle = model::attribute_idle(
      {index, run.trace.links, run.trace.tree.parent_column(), o.load.include_unlinked});
  run.steps = model::profiler_steps(index, run.trace.links, run.idle);
  if (run.idle.empty()) return;
  run.idle_causes = findings::idle_by_cause(index, run.idle);
  // The table takes the model's gaps and parts: the analyzers, which fork with the host's
  // pages, read the table's columns (tens of MB on a 1 GB trace with half a million gaps).
  run.idle_table = std::make_unique<plugins::IdleAttributionTable>(run.idle);
  run.products->set_idle_attribution(run.idle_table->table());
}

// Idle attribution reads only the loaded trace and writes only its own results, so it runs
// beside the perf report (whose own groups of sheets leave a core free part of the time); both
// are deterministic, so the outputs do not depend on the overlap.
void build_perf_report_and_attribute_idle(PipelineRun& run, const PipelineOptions& o) {
  oneapi::tbb::parallel_invoke([&] { build_perf_report(run, o); }, [&] { attribute_idle(run, o); });
}

void run_analyzers(PipelineRun& run, const PipelineOptions& o) {
  AnalysisReport& r = run.report;
  const schedule::GraphInputs inputs{o.registry,
                                     o.config,
                                     &r.platform,
                                     &r.trace_path,
                                     o.jobs,
                                     o.isolate_analyzers,
                                     o.analyzer_timeout_seconds};
  r.graph = schedule::run_analysis_graph(inputs, *run.products);
  r.graph.analyzers.insert(r.graph.analyzers.end(), o.host_outcomes.begin(), o.host_outcomes.end());
  if (o.before_ranking) o.before_ranking(r.graph.analyzers);
  r.findings = findings::rank_findings(r.graph.analyzers, run.trace.file.index.dur_column());
}

// Computation time by op category and perf-model coverage, from a partition of the timeline's
// computation (diagnosis.md §1.2): each kernel in its unified_perf_summary row's category.
std::vector<findings::CategoryShare> computation_by_category(const PipelineRun& run,
                                                             bool include_unlinked) {
  static const perf_report::UnifiedPerfTable kNoTable;
  const perf_report::UnifiedPerfTable* unified = run.products->unified_perf_table();
  const perf_report::UnifiedPerfTable& t = unified ? *unified : kNoTable;
  const auto partition =
      model::partition_computation(run.trace.file.index, run.trace.links, include_unlinked,
                                   t.kernel_buckets, t.bucket_categories.size() * 2);
  return findings::category_shares(t.bucket_categories, partition);
}

void decide_summary(PipelineRun& run, const PipelineOptions& o) {
  AnalysisReport& r = run.report;
  const auto* ops = run.products->op_instances();
  std::map<std::string, double> busy;
  for (std::size_t i = 0; i < ops->count; ++i) {
    std::string name(run.products->string(ops->category_id[i]));
    busy[name.empty() ? "other" : name] += ops->direct_busy_us[i];
  }
  const findings::TopCategory top = findings::top_category(busy, r.timeline.computation_us);
  r.top_category = top.name;
  r.top_category_percent = top.percent;
  r.unified = run.products->unified_perf_table();
  r.model = findings::identify_model(findings::gather_model_evidence(r.index, r.unified));
  std::vector<findings::CollectiveRow> collectives;
  for (const model::CollectiveFigures& c : model::collective_figures(*r.index, run.trace.links))
    collectives.push_back({c.type, c.count, c.time_us, c.exposed_us});
  r.diagnosis = findings::diagnose(
      {*r.index, run.idle, std::move(run.idle_causes), run.steps, std::move(collectives),
       computation_by_category(run, o.load.include_unlinked), r.findings, r.unified});
}

}  // namespace

std::unique_ptr<PipelineRun> run_pipeline(const PipelineOptions& o) {
  auto run = std::make_unique<PipelineRun>();
  run->trace = load_trace(o.trace_path, o.load);
  run->seconds.read = run->trace.read_seconds;
  run->seconds.model = run->trace.model_seconds;
  if (o.after_load) o.after_load(run->trace);

  StageClock clock;
  build_products(*run);
  run->seconds.products = clock.lap();

  AnalysisReport& r = run->report;
  r.trace_path = o.trace_path;
  r.index = &run->trace.file.index;
  r.timeline = run->trace.timeline;
  r.graph_replay = model::graph_replay(*r.index, run->trace.links);
  r.inference_mode = o.inference_mode;
  r.capture_merge = run->trace.capture_merge;
  r.platform = choose_platform(o.platform, *r.index);
  r.refused_plugins = o.registry->refused();
  run_op_models(*run, o);
  run->seconds.op_models = clock.lap();
  if (o.last_stage == LastStage::kRanking) {
    build_perf_report_and_attribute_idle(*run, o);
  } else {
    build_perf_report(*run, o);
  }
  run->seconds.perf_report = clock.lap();
  if (o.last_stage == LastStage::kRanking) {
    run_analyzers(*run, o);
    decide_summary(*run, o);
  }
  run->seconds.analyzers = clock.lap();
  return run;
}

}  // namespace traceprism::pipeline
