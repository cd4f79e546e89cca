#include "pipeline/comparison_pipeline.hpp"

#include <utility>

#include "comparison/stack_mismatch.hpp"
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
  auto outcomes = comparison::comparative_outcomes(r.graph.analyzers, run2.report.graph.analyzers,
                                                   diff.trace1, diff.trace2);
  r.findings = findings::rank_findings(outcomes.analyzers, run1.trace.file.index.dur_column());
  r.diagnosis.order.clear();
  for (const findings::Finding* f : findings::cross_tier_order(r.findings))
    r.diagnosis.order.push_back({f->tier, f->rank});
  diff.in_both = std::move(outcomes.in_both);
}

}  // namespace

std::unique_ptr<ComparisonRun> run_comparison(const ComparisonOptions& o) {
  auto run = std::make_unique<ComparisonRun>();
  run->trace1 = run_pipeline(o.trace1);
  run->trace2 = run_pipeline(o.trace2);
  PipelineRun& one = *run->trace1;
  const PipelineRun& two = *run->trace2;

  comparison::Comparison& diff = run->report.diff;
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
