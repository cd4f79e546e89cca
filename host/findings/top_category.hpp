#pragma once

#include <map>
#include <string>

namespace traceprism::findings {

// The executive summary's "top bottleneck category": the op category with the most direct
// kernel time, and that time as % of computation time.
struct TopCategory {
  std::string name;
  double percent = 0;
};

// `busy_us_by_category`: direct kernel time per op category ("other" for ops without one).
// The reference divides by computation time; op time also holds copies and overlapping
// kernels, so the larger of the two keeps the share a share (docs/compatibility.md).
TopCategory top_category(const std::map<std::string, double>& busy_us_by_category,
                         double computation_us);

}  // namespace traceprism::findings
