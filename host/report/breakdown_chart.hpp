// The performance breakdown figure of analysis.md (analysis-rules.md §10.8) as an SVG: one
// horizontal stacked bar of GPU time per compute category, then the non-computing rest. The
// reference draws a PNG with matplotlib; SVG keeps the bytes deterministic and needs no
// rasterizer, fonts or image library.
#pragma once

#include <string>
#include <vector>

namespace traceprism::report {

struct ChartSegment {
  std::string name;
  double time_ms = 0;
};

struct BreakdownChart {
  std::string title;  // "<Model> on <Platform> — Performance Breakdown"
  double e2e_ms = 0;
  std::vector<ChartSegment> categories;  // compute categories, any order
};

// Categories with time > 0 sorted by time (descending, ties in input order), coloured from the
// reference palette, then "Non-computing" = max(0, E2E - sum). Same input, same bytes.
std::string breakdown_chart_svg(const BreakdownChart& chart);

}  // namespace traceprism::report
