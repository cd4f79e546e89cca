// MoE op models (perf-model spec §9.1 and §4.4): the MoE all-to-all token dispatch/combine
// (category MoE_comm_fwd, bwd MoE_comm_bwd, sheet MoE_comm; no FLOPs, no compute spec) and the
// category-only MoE names (token permutation, their backwards, aiter/vllm routing helpers).
#pragma once

#include <traceprism/op_model.hpp>

namespace traceprism::plugins::moe {

// MoEDispatch, MoECombine: bytes = tokens x hidden x bpe(T[0]).
void model_moe_comm(const OpCall& call, OpModelResult& r);
// Category only: MoE_comm_fwd, MoE_comm_bwd and MoE_aux.
void model_moe_comm_fwd_category_only(const OpCall& call, OpModelResult& r);
void model_moe_comm_bwd_category_only(const OpCall& call, OpModelResult& r);
void model_moe_aux_category_only(const OpCall& call, OpModelResult& r);
// Category only: MoE_unfused (AITER's CK two-stage MoE ops).
void model_moe_unfused_category_only(const OpCall& call, OpModelResult& r);

// vLLM GPT-OSS's unfused Triton MoE GEMMs, the pseudo ops the host inserts for them
// (perf-model spec §10, inference-mode spec §4.2): M = D[0][0] tokens, K = D[0][1] hidden,
// N = K (the trace has no intermediate size: the reference's documented limitation),
// E = D[1][1] experts, k and gating from the pseudo op's args, the weight dtype from the kernel
// name (mxfp4/fp4 -> FP4, fp8/e4m3 -> FP8); category MoE_unfused, maf matrix.
void model_moe_triton_unfused_up(const OpCall& call, OpModelResult& r);
void model_moe_triton_unfused_down(const OpCall& call, OpModelResult& r);

// NULL-terminated op-name tables, one per model above.
extern const char* const kMoeCommNames[];
extern const char* const kMoeCommFwdCategoryOnlyNames[];
extern const char* const kMoeCommBwdCategoryOnlyNames[];
extern const char* const kMoeAuxCategoryOnlyNames[];
extern const char* const kMoeUnfusedCategoryOnlyNames[];
extern const char* const kMoeTritonUnfusedUpNames[];
extern const char* const kMoeTritonUnfusedDownNames[];

}  // namespace traceprism::plugins::moe
