#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "index/event_index.hpp"
#include "model/idle_attribution.hpp"
#include "model/launch_links.hpp"
#include "model/step_annotation.hpp"

namespace traceprism::model {

// One training or inference step (diagnosis.md §3): a ProfilerStep#N annotation, or a serving
// engine's step annotation (inference-mode spec §2) in a trace without those, with the GPU time
// of the timeline's window inside it.
struct StepFigures {
  Row row = 0;
  std::optional<StepAnnotation> serving;  // what a serving step scheduled
  std::int64_t start_ns = 0;
  std::int64_t dur_ns = 0;
  // A serving step's GPU work runs after its host span: from the first GPU event the span
  // launched (on its thread) to the last one's end; 0 and 0 when it launched none.
  std::int64_t gpu_start_ns = 0, gpu_end_ns = 0;
  // The part inside the window that is not idle, of the step's span (a serving step's GPU span
  // when it has one).
  std::int64_t gpu_busy_ns = 0;
  std::int64_t idle_ns = 0;
  std::array<std::int64_t, kIdleCauseCount> idle_by_cause_ns{};
};

// The profiler steps in time order (the host thread's ProfilerStep#N user annotations; one
// per N: the first of duplicates that other threads record); without any, the serving steps
// (model::serving_steps).
std::vector<StepFigures> profiler_steps(const index::EventIndex& index, const LaunchLinks& links,
                                        const IdleAttribution& idle);

// N of a "ProfilerStep#N" name; nullopt for any other name.
std::optional<std::int64_t> profiler_step_number(std::string_view name);

// Steps longer than `factor` x the median step (diagnosis.md §3: 1.25).
std::vector<std::size_t> outlier_steps(const std::vector<StepFigures>& steps, double factor = 1.25);

}  // namespace traceprism::model
