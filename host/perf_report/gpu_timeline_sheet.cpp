#include "perf_report/gpu_timeline_sheet.hpp"

#include <utility>
#include <vector>

#include "text/python_format.hpp"

namespace traceprism::perf_report {

std::string gpu_timeline_csv(const model::GpuTimeline& t) {
  std::vector<std::pair<const char*, double>> rows = {
      {"computation_time", t.computation_us},
      {"exposed_comm_time", t.exposed_comm_us},
      {"exposed_memcpy_time", t.exposed_memcpy_us},
      {"busy_time", t.busy_us},
  };
  if (t.idle_split) {
    rows.push_back({"micro_idle_time", t.micro_idle_us});
    rows.push_back({"macro_idle_time", t.macro_idle_us});
  } else {
    rows.push_back({"idle_time", t.idle_us});
  }
  rows.push_back({"total_time", t.total_us});
  rows.push_back({"total_comm_time", t.total_comm_us});
  rows.push_back({"total_memcpy_time", t.total_memcpy_us});
  std::string csv = "type,time ms,percent\n";
  for (const auto& [type, us] : rows) {
    csv += type;
    csv += ',';
    csv += text::python_float_repr(us / 1e3);
    csv += ',';
    if (t.total_us != 0) csv += text::python_float_repr(us / t.total_us * 100);
    csv += '\n';
  }
  return csv;
}

}  // namespace traceprism::perf_report
