// Inference mode's pseudo-op pass (inference-mode spec §4.2, perf-model spec §10 item 2).
//
// Step 1: SGLang's profiler ops carry a call counter
// (`sglang_profiler::attention_paged_attention_ragged_100`) that splits one op into as many names
// as calls; the reference drops it before modelling.
//
// Step 2, vLLM GPT-OSS's unfused Triton MoE: one `vllm::moe_forward` runs its expert GEMMs as
// `matmul_ogs` kernels (first the up projection, then the down projection) and a
// `_finalize_matmul_scatter` kernel. Each of those kernels gets a pseudo op
// (`pseudo_op::moe_triton_unfused_up` / `_down` / `_finalize_matmul_scatter`) with
// moe_forward's shape args, the GEMM's gating and the layer's top-k, so the GEMMs get a MoE
// perf model instead of one opaque op. The pseudo op adopts the kernel's launch (CallTree's
// Grafts::adoptions). The AITER fused MoE path (`vllm::rocm_aiter_fused_moe`) is not covered.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "index/event_index.hpp"
#include "index/row_copies.hpp"
#include "model/call_tree.hpp"
#include "model/launch_links.hpp"

namespace traceprism::model {

// `sglang_profiler::<name>_<digits>` -> `sglang_profiler::<name>` (only the trailing number);
// nullopt for every other name.
std::optional<std::string> normalized_op_name(std::string_view name);

struct PseudoOpPlan {
  std::vector<index::PseudoOpRow> rows;  // appended in this order (UIDs in creation order)
  std::vector<Row> launches;             // rows[i] adopts launches[i]
};

// The unfused MoE pseudo ops of a trace, in the reference's order (moe_forward ops by row;
// per op its GEMM kernels by start time, then the finalize kernel). Empty when the trace has no
// `vllm::moe_forward`, no `matmul_ogs` kernel, or runs the AITER fused MoE.
PseudoOpPlan plan_moe_unfused_pseudo_ops(const index::EventIndex& index, const CallTree& tree,
                                         const LaunchLinks& links);

// The grafts of a tree over the index with `plan`'s rows appended from `first_row` on: `base`'s
// (the capture merge's, or none) with the pseudo ops' adoptions.
Grafts pseudo_op_grafts(const Grafts* base, Row first_row, const PseudoOpPlan& plan);

// The MoE layer's top-k: `Concrete Inputs[1]` of the first `TopK` op found below `moe_forward`
// (depth-first, GPU events skipped), 4 when there is none (the reference's default).
std::int64_t moe_topk(const index::EventIndex& index, const CallTree& tree, Row moe_forward);

}  // namespace traceprism::model
