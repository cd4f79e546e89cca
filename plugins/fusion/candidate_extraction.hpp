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

// The kernel rows the candidates' instances cover (true at each), each kernel once
// (diagnosis.md §6.2): the subtrees of tree-walk instances, the spelled-out rows of sibling and
// narrowed attention instances.
std::vector<bool> covered_kernels(const TraceRows& rows,
                                  const std::vector<const FusionCandidate*>& candidates);
// The kernel time of the marked rows.
double kernel_time_us(const TraceRows& rows, const std::vector<bool>& marked);
// The time of the kernels the candidates' instances cover: no candidate's measured time exceeds
// its own figure, nor a set's sum of measured times theirs when they share no kernel.
double covered_kernel_time_us(const TraceRows& rows,
                              const std::vector<const FusionCandidate*>& candidates);

// What the module walk shares with the comparative extraction (comparative_candidates.hpp):
// the cleaned names of a row's ancestors, inner to outer (parent_chain); whether a row of this
// kind groups kernels (not a GPU event or a launch); whether a kernel list holds an already
// fused kernel (attention, silu_and_mul).
std::vector<std::string> ancestor_names(const TraceRows& rows, std::int32_t row);
bool groups_kernels(RowKind kind);
bool holds_fused_kernel(const std::vector<CandidateKernel>& kernels);

// "nn.Module: Qwen2MLP_0" -> "Qwen2MLP"; other names lose a trailing "_<digits>" only.
std::string strip_module_index(std::string_view name);

}  // namespace traceprism::plugins::fusion
