// The steady-state region of a serving trace (inference-mode spec §7.2-§7.3, the reference's
// split_inference_trace_annotation): the run of steps where the engine schedules about its
// peak number of requests, away from ramp-up and drain, and the window of steps inside it that
// represents a mode (mixed prefill/decode, decode only, prefill). Pure: per-step figures in.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace traceprism::model {

// What the splitter reads of each step's annotation.
struct SplitterStep {
  std::int64_t num_requests = 0;
  bool has_context = false;  // prefill-only or mixed ("PD" in the splitter)
  bool decode_only = false;
};

struct StepRange {
  std::size_t begin = 0, end = 0;  // [begin, end)
  std::size_t size() const { return end - begin; }
  bool operator==(const StepRange&) const = default;
};

struct SteadyRegions {
  std::vector<StepRange> regions;
  bool plateau = false;  // false: no region was found, `regions` is the middle fallback
};

// Spec §7.2: the regions where num_requests stays near its maximum (within max(1, t x max),
// t = 0.1 with at least `num_steps` steps, else 0.2). QUIRKS kept: the counter does not reset
// before a region starts, and a region still open at the end stops before the last step. No
// region: one middle range.
SteadyRegions steady_state_regions(const std::vector<SplitterStep>& steps, std::size_t num_steps);

enum class WindowMode : std::uint8_t { kMixed, kDecodeOnly, kMaxPrefillDecode };

// The benchmark's concurrency, output length and prefix reuse, when known (--CONC/--OSL/--R).
struct ServingLoad {
  double concurrency = 0, output_length = 0, reuse = 0;
};

// Spec §7.3: the window of `num_steps` steps for `mode` inside the largest region. Empty when a
// decode-only / prefill run does not exist there.
StepRange steady_state_window(const std::vector<SplitterStep>& steps,
                              const std::vector<StepRange>& regions, std::size_t num_steps,
                              WindowMode mode, const std::optional<ServingLoad>& load = {});

}  // namespace traceprism::model
