// "Where the time went", side by side for two traces (issue 16): the GPU timeline, computation
// by op category, idle by host cause, exposed communication by collective type and memory
// copies by direction, and the one-sentence gap summary built from them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "comparison/kernel_diff.hpp"
#include "findings/diagnosis.hpp"
#include "model/gpu_timeline.hpp"

namespace traceprism::comparison {

// Memory copies of one direction in the GPU timeline's event set.
struct CopyDirectionFigures {
  std::string direction;  // index::copy_direction_name: "HtoD", "DtoD", ...
  std::uint64_t count = 0;
  double time_us = 0;     // summed durations
  double exposed_us = 0;  // of their union, the time no kernel (computation or comm) covers
};

// By direction name; directions with copies only.
std::vector<CopyDirectionFigures> copies_by_direction(const GpuEventSet& set);

// One trace's figures, as its pipeline run measured them.
struct TraceTimeFigures {
  model::GpuTimeline timeline;
  std::vector<findings::CategoryShare> computation_by_category;
  std::vector<findings::CauseIdle> idle_by_cause;
  std::vector<findings::CollectiveRow> collectives;
  std::vector<CopyDirectionFigures> copies;
};

enum class TimeGroup { kTimeline, kComputation, kIdle, kExposedComm, kExposedCopies };
std::string_view time_group_title(TimeGroup g);  // "GPU timeline", "Computation by category", ...

struct TimeRow {
  TimeGroup group = TimeGroup::kTimeline;
  std::string key;    // category, cause key, collective type or direction; timeline field name
  std::string label;  // for prose: "GEMM", "idle: dataloader", "exposed AllToAll", ...
  double us_trace1 = 0, us_trace2 = 0;
  // Events behind the time (kernels of a collective type, copies, idle gaps); -1: not counted.
  std::int64_t count_trace1 = -1, count_trace2 = -1;
  double diff_us() const { return us_trace1 - us_trace2; }
};

// Every row of both traces (0 on the side without it), groups in TimeGroup order; within a
// group the timeline's fixed order, else by trace-1 time then trace-2 time, descending.
// Outside the kTimeline group the rows partition each trace's window: computation by category,
// idle by cause, exposed communication by type, exposed copies by direction.
std::vector<TimeRow> time_breakdown(const TraceTimeFigures& trace1, const TraceTimeFigures& trace2);

// The gap in one sentence, e.g. "Trace 1 is 40.00 ms (25.0%) slower than trace 2 (200.00 ms vs
// 160.00 ms): +25.00 ms device-to-device copies (+1200), +9.00 ms exposed AllToAll, -6.00 ms
// GEMM." The parts named are the partition rows whose difference is at least
// kMaterialPercent of the longer window, largest first, at most four.
inline constexpr double kMaterialPercent = 1.0;
std::string gap_summary(const TraceTimeFigures& trace1, const TraceTimeFigures& trace2,
                        const std::vector<TimeRow>& rows);

// The partition rows gap_summary names, in its order.
std::vector<const TimeRow*> material_differences(const std::vector<TimeRow>& rows,
                                                 double window_us);

}  // namespace traceprism::comparison
