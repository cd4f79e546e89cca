// Ops whose kernel times vary so much between calls that their total is unreliable
// (analysis-rules.md §4.1, §10.4): listed in the report's Warnings as a data-quality table.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "perf_report/unified_perf_table.hpp"

namespace traceprism::report {

struct HighVarianceOp {
  std::string name;
  std::string category;  // the op category as the perf report writes it ("GEMM")
  double cov = 0;        // std / mean of the kernel time, rounded to 3 decimals
  double time_ms = 0;    // total kernel time, rounded to 3 decimals
};

// Rows of unified_perf_summary with more than 10 calls, at least 5% of the end-to-end time
// and a coefficient of variation above 1.0, in sheet order.
std::vector<HighVarianceOp> high_variance_ops(const perf_report::UnifiedPerfTable& unified,
                                              double e2e_ms);

}  // namespace traceprism::report
