// The "moe" plugin: MoE communication op models (perf-model spec §9.1), the unfused MoE GEMM
// pseudo ops' models (§10) and the category-only MoE names (§4.4).
// Its analyzer, moe-efficiency, is the compute-tier analysis of these categories (plugins/common).
#include <traceprism/sdk.hpp>

#include "../common/compute_analyzer.hpp"
#include "moe_models.hpp"

namespace {

using namespace traceprism::plugins::moe;
using traceprism::op_model;

TRACEPRISM_OP_MODELS(
    op_model<&model_moe_comm>("moe-comm", "MoE all-to-all token dispatch / combine", kMoeCommNames),
    op_model<&model_moe_comm_fwd_category_only>("moe-comm-fwd-category-only",
                                                "MoE token permutation (category only)",
                                                kMoeCommFwdCategoryOnlyNames),
    op_model<&model_moe_comm_bwd_category_only>("moe-comm-bwd-category-only",
                                                "MoE communication backwards (category only)",
                                                kMoeCommBwdCategoryOnlyNames),
    op_model<&model_moe_aux_category_only>("moe-aux-category-only",
                                           "MoE sorting / top-k / gating helpers (category only)",
                                           kMoeAuxCategoryOnlyNames),
    op_model<&model_moe_unfused_category_only>(
        "moe-unfused-category-only", "AITER CK two-stage MoE expert GEMMs (category only)",
        kMoeUnfusedCategoryOnlyNames),
    op_model<&model_moe_triton_unfused_up>(
        "moe-triton-unfused-up", "vLLM GPT-OSS unfused MoE up-projection GEMM (pseudo op)",
        kMoeTritonUnfusedUpNames),
    op_model<&model_moe_triton_unfused_down>(
        "moe-triton-unfused-down", "vLLM GPT-OSS unfused MoE down-projection GEMM (pseudo op)",
        kMoeTritonUnfusedDownNames));

}  // namespace

// moe-efficiency: the compute-tier analysis of MoE categories (moe_fused, moe_unfused; the
// reference's moe-analyzer, moe_analysis.py). Page: docs/analyzers/moe/moe-efficiency.md.
TRACEPRISM_ANALYZERS(
    traceprism::analyzer<
        traceprism::plugins::compute::FamilyAnalyzer<traceprism::plugins::compute::Family::kMoe>>(
        "moe-efficiency", "Roofline efficiency and impact of MoE ops (moe_fused, moe_unfused).",
        traceprism::plugins::compute::kComputeOptions,
        traceprism::plugins::compute::kComputeDependencies));

TRACEPRISM_PLUGIN_WITH_OP_MODELS("moe", "1.0.0");
