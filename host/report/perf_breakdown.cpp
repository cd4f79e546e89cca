#include "report/breakdown_chart.hpp"
#include "report/category_figures.hpp"
#include "report/report_writers.hpp"

namespace traceprism::report {

// The chart's segments are the categories' times as the Top Operations table and the summary
// give them (the computation partition), then exposed communication, exposed copies and idle
// from the timeline: together the end-to-end window.
std::string perf_breakdown_svg(const AnalysisReport& r) {
  BreakdownChart chart;
  chart.title = model_label(r) + " on " + platform_label(r) + " \xE2\x80\x94 Performance Breakdown";
  chart.e2e_ms = r.timeline.total_us / 1000;
  const auto names = category_display_names(r);
  for (const findings::CategoryShare& s : r.diagnosis.computation_by_category)
    chart.categories.push_back({s.category, s.time_us / 1000});
  if (chart.categories.empty())
    for (const auto& [key, f] : category_figures(r)) {
      auto it = names.find(key);
      chart.categories.push_back({it != names.end() ? it->second : key, f.time_ms});
    }
  chart.exposed_comm_ms = r.timeline.exposed_comm_us / 1000;
  chart.exposed_memcpy_ms = r.timeline.exposed_memcpy_us / 1000;
  chart.idle_ms = r.timeline.idle_us / 1000;
  return breakdown_chart_svg(chart);
}

}  // namespace traceprism::report
