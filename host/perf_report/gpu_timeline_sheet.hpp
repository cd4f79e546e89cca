#pragma once

#include "model/gpu_timeline.hpp"
#include "perf_report/sheet_table.hpp"

namespace traceprism::perf_report {

// The reference's `gpu_timeline` sheet: columns type, time ms, percent; rows in the reference
// order (idle_time replaced by micro_idle_time and macro_idle_time when the timeline was
// split). percent is empty (NaN) when the total is 0.
SheetTable gpu_timeline_sheet(const model::GpuTimeline& timeline);

}  // namespace traceprism::perf_report
