// The GEMM-family op models (perf-model spec §5): one entry per reference model class.
// Its analyzer, gemm-efficiency, is the compute-tier analysis of these categories (plugins/common).
#include <traceprism/sdk.hpp>

#include "../common/compute_analyzer.hpp"
#include "gemm_models.hpp"

namespace gemm = traceprism::plugins::gemm;
using traceprism::op_model;

TRACEPRISM_OP_MODELS(
    op_model<&gemm::model_mm>("gemm-mm", "aten::mm: 2MNK FLOPs", gemm::kMmNames),
    op_model<&gemm::model_addmm>("gemm-addmm", "aten::addmm: 2MNK + MN FLOPs", gemm::kAddmmNames),
    op_model<&gemm::model_bmm>("gemm-bmm", "aten::bmm: batched 2MNK", gemm::kBmmNames),
    op_model<&gemm::model_baddbmm>("gemm-baddbmm", "aten::baddbmm: batched 2MNK + MN",
                                   gemm::kBaddbmmNames),
    op_model<&gemm::model_scaled_mm>("gemm-scaled-mm", "aten::_scaled_mm and kin: fp8 GEMM",
                                     gemm::kScaledMmNames),
    op_model<&gemm::model_te_gemm_ts>("gemm-te-gemm-ts", "TransformerEngine tex_ts::te_gemm_ts",
                                      gemm::kTeGemmTsNames),
    op_model<&gemm::model_tev2_pseudo_gemm>("gemm-tev2-pseudo", "TransformerEngine v2 pseudo GEMMs",
                                            gemm::kTev2PseudoGemmNames),
    op_model<&gemm::model_gemm_with_dynamic_quant>("gemm-vllm-dynamic-quant",
                                                   "vllm::gemm_with_dynamic_quant",
                                                   gemm::kGemmWithDynamicQuantNames),
    op_model<&gemm::model_hipblaslt_gemm_fp8>("gemm-hipblaslt-fp8", "Primus hipBLASLt FP8 GEMM",
                                              gemm::kHipblasltGemmFp8Names),
    op_model<&gemm::model_hipblaslt_gemm_fp4>("gemm-hipblaslt-fp4", "Primus hipBLASLt MXFP4 GEMM",
                                              gemm::kHipblasltGemmFp4Names),
    op_model<&gemm::model_aiter_gemm_a4w4>("gemm-aiter-a4w4", "aiter MXFP4 GEMM",
                                           gemm::kAiterGemmA4w4Names),
    op_model<&gemm::model_gemm_a8w8_blockscale>("gemm-a8w8-blockscale",
                                                "aiter/vllm/sglang 8-bit block-scaled GEMMs",
                                                gemm::kGemmA8w8BlockscaleNames),
    op_model<&gemm::model_rocm_unquantized_gemm>("gemm-vllm-rocm-unquantized",
                                                 "vllm::rocm_unquantized_gemm",
                                                 gemm::kRocmUnquantizedGemmNames),
    op_model<&gemm::model_gemm_a16w16>("gemm-aiter-a16w16", "aiter::gemm_a16w16",
                                       gemm::kGemmA16w16Names),
    op_model<&gemm::model_gemm_a16w16_atomic>("gemm-aiter-a16w16-atomic",
                                              "aiter::gemm_a16w16_atomic_ and flydsl hgemm",
                                              gemm::kGemmA16w16AtomicNames),
    op_model<&gemm::model_gemm_a16w16_asm>("gemm-aiter-a16w16-asm", "aiter::_gemm_a16w16_asm",
                                           gemm::kGemmA16w16AsmNames),
    op_model<&gemm::model_grouped_gemm>("gemm-grouped", "Primus Turbo grouped GEMM",
                                        gemm::kGroupedGemmNames),
    op_model<&gemm::model_grouped_gemm_variable_k>("gemm-grouped-variable-k",
                                                   "Primus Turbo variable-K grouped GEMM",
                                                   gemm::kGroupedGemmVariableKNames));

// gemm-efficiency: the compute-tier analysis of GEMM categories (gemm, groupedgemm_fwd,
// groupedgemm_bwd; the reference's gemm-analyzer, gemm_analysis.py). Page:
// docs/analyzers/gemm/gemm-efficiency.md.
TRACEPRISM_ANALYZERS(traceprism::analyzer<traceprism::plugins::compute::FamilyAnalyzer<
                         traceprism::plugins::compute::Family::kGemm>>(
    "gemm-efficiency",
    "Roofline efficiency and impact of GEMMs (gemm, groupedgemm_*), grouped into P-items by bound, "
    "library and efficiency band.",
    traceprism::plugins::compute::kComputeOptions,
    traceprism::plugins::compute::kComputeDependencies));

TRACEPRISM_PLUGIN_WITH_OP_MODELS("gemm", "1.0.0");
