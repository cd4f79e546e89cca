#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "index/event_index.hpp"
#include "model/idle_attribution.hpp"

namespace traceprism::model {

// One training or inference step (diagnosis.md §3): a ProfilerStep#N annotation, with the GPU
// time of the timeline's window inside it.
struct StepFigures {
  Row row = 0;
  std::int64_t start_ns = 0;
  std::int64_t dur_ns = 0;
  std::int64_t gpu_busy_ns = 0;  // the part of the step inside the window that is not idle
  std::int64_t idle_ns = 0;
  std::array<std::int64_t, kIdleCauseCount> idle_by_cause_ns{};
};

// The profiler steps in time order (the host thread's ProfilerStep#N user annotations; one
// per N: the first of duplicates that other threads record).
std::vector<StepFigures> profiler_steps(const index::EventIndex& index,
                                        const IdleAttribution& idle);

// Steps longer than `factor` x the median step (diagnosis.md §3: 1.25).
std::vector<std::size_t> outlier_steps(const std::vector<StepFigures>& steps, double factor = 1.25);

}  // namespace traceprism::model
