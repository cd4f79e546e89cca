// Comparative fusion candidates (analysis-rules §9.2; the reference's
// _extract_comparative_fusion_candidates): in trace 1 of a comparison, a module, frame or op
// whose kernels TraceDiff matched to divergence points where trace 2 runs fewer kernels (the
// "Case A" gates: 1..15 fewer, at most 30 in trace 1, at least one in trace 2; the extra kernels
// not all collectives/copies or layout transposes). Instances of one base name accumulate;
// candidates trace 2 does not run faster are dropped; one per trace-1 kernel-name sequence.
#pragma once

#include <vector>

#include "fusion_candidate.hpp"
#include "fusion_inputs.hpp"

namespace traceprism::plugins::fusion {

// Empty when `inputs.trace_diff` is absent.
std::vector<FusionCandidate> extract_comparative_candidates(const FusionInputs& inputs);

}  // namespace traceprism::plugins::fusion
