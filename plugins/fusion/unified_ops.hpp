// The reference's unified perf events (TreePerfAnalyzer.collect_unified_perf_events), rebuilt
// from what a plugin sees: a depth-first walk of the call tree with python frames from the
// cpu_op roots, python frames transparent, that stops at the outermost op whose name has a perf
// model (has_perf_model in unified_perf_summary), else at a leaf op that launches kernels
// itself (unless it launches collectives). The sibling-sequence pass groups these by parent.
// Not rebuilt: the "sole backward" rule (backward ops priced by their forward's model), which
// needs autograd links the SDK does not expose; it only matters for training traces.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "fusion_inputs.hpp"
#include "gpu_events_below.hpp"

namespace traceprism::fusion {

std::vector<std::int32_t> collect_unified_ops(const TraceRows& rows, const GpuEventsBelow& gpu,
                                              const std::set<std::string, std::less<>>& modelled);

}  // namespace traceprism::fusion
