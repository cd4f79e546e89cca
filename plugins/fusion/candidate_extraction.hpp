// Standalone fusion candidate extraction (analysis-rules §9.1, the reference's
// orchestrator_prepare._extract_standalone_fusion_candidates): a walk over the call tree with
// python frames for modules/frames that launch >= 2 kernels, a pass over sibling leaf ops that
// launch one kernel each, attention narrowing, dedup by kernel names, data-movement enrichment,
// sorted by total kernel time (descending, stable).
#pragma once

#include <vector>

#include "fusion_candidate.hpp"
#include "fusion_inputs.hpp"
#include "perf_lookup.hpp"

namespace traceprism::plugins::fusion {

std::vector<FusionCandidate> extract_candidates(const FusionInputs& inputs,
                                                const KernelPerfLookup& lookup);

// "nn.Module: Qwen2MLP_0" -> "Qwen2MLP"; other names lose a trailing "_<digits>" only.
std::string strip_module_index(std::string_view name);

}  // namespace traceprism::plugins::fusion
