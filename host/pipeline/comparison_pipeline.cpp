#include "pipeline/comparison_pipeline.hpp"

#include <utility>

#include "comparison/diff_stats.hpp"
#include "comparison/stack_mismatch.hpp"
#include "comparison/trace_diff.hpp"
#include "findings/ranker.hpp"

namespace traceprism::pipeline {

namespace {

comparison::TraceTimeFigures time_figures(const PipelineRun& run, bool include_unlinked) {
  const AnalysisReport& r = run.report;
  comparison::TraceTimeFigures f;
  f.timeline = r.timeline;
  f.computation_by_category = r.diagnosis.computation_by_category;
  f.idle_by_cause = r.diagnosis.idle_by_cause;
  f.collectives = r.diagnosis.collectives;
  f.copies =
      comparison::copies_by_direction({run.trace.file.index, run.trace.links, include_unlinked});
  return f;
}

// Trace 1's findings become the comparative ones, ranked as any run's are.
void rank_comparative_findings(PipelineRun& run1, const PipelineRun& run2,
                               comparison::Comparison& diff) {
  AnalysisReport& r = run1.report;
  const bool against_trace2 = r.unified && r.unified->has_lca_columns;
  auto outcomes = comparison::comparative_outcomes(r.graph.analyzers, run2.report.graph.analyzers,
                                                   diff.trace1, diff.trace2, against_trace2);
  r.findings = findings::rank_findings(outcomes.analyzers, run1.trace.file.index.dur_column());
  r.diagnosis.order.clear();
  for (const findings::Finding* f : findings::cross_tier_order(r.findings))
    r.diagnosis.order.push_back({f->tier, f->rank});
  diff.in_both = std::move(outcomes.in_both);
}

// TraceDiff of trace 1 against trace 2, before trace 1's analyzers run: its columns in trace
// 1's unified table (the compute analyzers' comparative efficiencies) and its diff_stats sheet.
void add_trace_diff(PipelineRun& one, perf_report::UnifiedPerfTable& unified,
                    const PipelineRun& two, comparison::Comparison& diff) {
  const comparison::DiffSide side1{one.trace.file.index, one.trace.tree, one.trace.links};
  const comparison::DiffSide side2{two.trace.file.index, two.trace.tree, two.trace.links};
  comparison::DiffStats stats;
  {
    const comparison::MergedTree merged = comparison::merge_trees(side1, side2);
    diff.merged_nodes = merged.nodes.size();
    stats = comparison::diff_stats(merged, side1, side2);
  }
  if (stats.empty()) return;
  comparison::add_lca_columns(unified, stats);
  one.trace_diff =
      std::make_unique<plugins::TraceDiffTable>(stats, one.trace.file.index, two.trace.file.index);
  one.products->set_trace_diff(one.trace_diff->table());
  diff.trace_diff = std::move(stats);
}

}  // namespace

std::unique_ptr<ComparisonRun> run_comparison(const ComparisonOptions& o) {
  auto run = std::make_unique<ComparisonRun>();
  comparison::Comparison& diff = run->report.diff;
  // Trace 2 first: trace 1's perf report is built against it.
  run->trace2 = run_pipeline(o.trace2);
  const PipelineRun& two = *run->trace2;
  PipelineOptions first = o.trace1;
  first.enrich_perf_report = [&](PipelineRun& one, perf_report::UnifiedPerfTable& unified) {
    add_trace_diff(one, unified, two, diff);
  };
  run->trace1 = run_pipeline(first);
  PipelineRun& one = *run->trace1;

  diff.trace1 = time_figures(one, o.trace1.load.include_unlinked);
  diff.trace2 = time_figures(two, o.trace2.load.include_unlinked);
  diff.time_rows = comparison::time_breakdown(diff.trace1, diff.trace2);
  diff.gap_summary = comparison::gap_summary(diff.trace1, diff.trace2, diff.time_rows);
  diff.kernels = comparison::kernel_diff(
      {one.trace.file.index, one.trace.links, o.trace1.load.include_unlinked},
      {two.trace.file.index, two.trace.links, o.trace2.load.include_unlinked});
  diff.warnings = comparison::stack_mismatch_warnings({one.trace.file.index, one.trace.links},
                                                      {two.trace.file.index, two.trace.links});
  rank_comparative_findings(one, two, diff);
  run->report.trace1 = &one.report;
  run->report.trace2 = &two.report;
  return run;
}

}  // namespace traceprism::pipeline
