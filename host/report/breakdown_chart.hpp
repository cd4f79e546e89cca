// The performance breakdown figure of analysis.md (analysis-rules.md §10.8) as an SVG: one
// horizontal stacked bar of the end-to-end window: computation per category, then exposed
// communication, exposed memory copies and idle, each its own segment (issue 15). The
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
  // The rest of the window; when none is given (all zero), "Non-computing" = E2E - categories.
  double exposed_comm_ms = 0, exposed_memcpy_ms = 0, idle_ms = 0;
};

// Categories with time > 0 sorted by time (descending, ties in input order), each its own
// colour (the reference palette first), then the exposed communication, exposed copies and
// idle segments in fixed colours of their own. Same input, same bytes.
std::string breakdown_chart_svg(const BreakdownChart& chart);

}  // namespace traceprism::report
