#include "report/perf_report.hpp"

#include "report/gpu_timeline_sheet.hpp"

namespace traceprism::report {

std::vector<PerfSheet> build_perf_report(const PerfReportInputs& in) {
  std::vector<PerfSheet> sheets;
  sheets.push_back({"gpu_timeline", gpu_timeline_csv(*in.timeline)});
  return sheets;
}

}  // namespace traceprism::report
