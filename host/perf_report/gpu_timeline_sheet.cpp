#include "perf_report/gpu_timeline_sheet.hpp"

#include <utility>
#include <vector>

namespace traceprism::perf_report {

SheetTable gpu_timeline_sheet(const model::GpuTimeline& t) {
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
  SheetTable sheet{{"type", "time ms", "percent"}, {}};
  for (const auto& [type, us] : rows)
    sheet.rows.push_back(
        {type, float_cell(us / 1e3), t.total_us != 0 ? float_cell(us / t.total_us * 100) : Cell()});
  return sheet;
}

}  // namespace traceprism::perf_report
