// The comparative configuration of the pipeline (issue 16): both traces run through
// run_pipeline, then the comparison of their typed results and trace 1's comparative ranking.
#pragma once

#include <memory>

#include "comparison/comparison.hpp"
#include "pipeline/analysis_pipeline.hpp"

namespace traceprism::pipeline {

struct ComparisonOptions {
  PipelineOptions trace1;  // the run to speed up ("baseline" in the reference's words)
  PipelineOptions trace2;  // the faster run it is compared against
};

// What the comparative writers render. trace1's findings are the comparative ranking
// (comparison/comparative_findings.hpp); both reports point into their runs.
struct ComparativeReport {
  const AnalysisReport* trace1 = nullptr;
  const AnalysisReport* trace2 = nullptr;
  comparison::Comparison diff;
};

struct ComparisonRun {
  std::unique_ptr<PipelineRun> trace1, trace2;
  ComparativeReport report;
};

// Runs trace 1, then trace 2, to the ranking, and compares them. Throws what run_pipeline
// throws.
std::unique_ptr<ComparisonRun> run_comparison(const ComparisonOptions& options);

}  // namespace traceprism::pipeline
