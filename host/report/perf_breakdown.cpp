#include "report/breakdown_chart.hpp"
#include "report/category_figures.hpp"
#include "report/report_writers.hpp"

namespace traceprism::report {

// The chart's segments are the compute analyzers' category times, the same numbers as the Top
// Operations table, so the figure and the report agree.
std::string perf_breakdown_svg(const AnalysisReport& r) {
  BreakdownChart chart;
  chart.title = model_label(r) + " on " + platform_label(r) + " \xE2\x80\x94 Performance Breakdown";
  chart.e2e_ms = r.timeline.total_us / 1000;
  const auto names = category_display_names(r);
  for (const auto& [key, f] : category_figures(r)) {
    auto it = names.find(key);
    chart.categories.push_back({it != names.end() ? it->second : key, f.time_ms});
  }
  return breakdown_chart_svg(chart);
}

}  // namespace traceprism::report
