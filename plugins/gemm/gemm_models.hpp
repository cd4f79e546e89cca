// GEMM-family op models (perf-model spec §5): the FLOPs and bytes of one matrix multiply read
// from the op's shape args the way the reference (TraceLens PerfModel) reads them, including its
// quirks (§14 Q5, Q7, Q9). Pure functions: no host access.
#pragma once

#include <traceprism/op_model.hpp>

#include <string>
#include <vector>

namespace traceprism::plugins::gemm {

// Category "GEMM", sheet "GEMM", maf "matrix", no backward (spec §5).
void model_mm(const OpCall& call, OpModelResult& r);
void model_addmm(const OpCall& call, OpModelResult& r);
void model_bmm(const OpCall& call, OpModelResult& r);
void model_baddbmm(const OpCall& call, OpModelResult& r);
void model_scaled_mm(const OpCall& call, OpModelResult& r);
void model_te_gemm_ts(const OpCall& call, OpModelResult& r);
void model_tev2_pseudo_gemm(const OpCall& call, OpModelResult& r);
void model_gemm_with_dynamic_quant(const OpCall& call, OpModelResult& r);
void model_hipblaslt_gemm_fp8(const OpCall& call, OpModelResult& r);
void model_hipblaslt_gemm_fp4(const OpCall& call, OpModelResult& r);
void model_aiter_gemm_a4w4(const OpCall& call, OpModelResult& r);

// Extension GEMMs (spec §5.2; the reference's pseudo-op extension map).
void model_gemm_a8w8_blockscale(const OpCall& call, OpModelResult& r);
void model_rocm_unquantized_gemm(const OpCall& call, OpModelResult& r);
void model_gemm_a16w16(const OpCall& call, OpModelResult& r);
void model_gemm_a16w16_atomic(const OpCall& call, OpModelResult& r);
void model_gemm_a16w16_asm(const OpCall& call, OpModelResult& r);

// Grouped GEMM (spec §5.1): category GroupedGEMM_fwd, bwd GroupedGEMM_bwd (the reference's bwd
// raises, so no backward numbers), sheet GroupedGEMM.
void model_grouped_gemm(const OpCall& call, OpModelResult& r);
void model_grouped_gemm_variable_k(const OpCall& call, OpModelResult& r);

// `param: transpose` from the first kernel whose name parses as a GEMM (spec §5.4): the
// rendered tuple, or "" when no kernel parses. BadArgs where the reference raises (an nvjet
// name whose last token is shorter than two characters).
std::string transpose_from_kernels(const std::vector<std::string>& kernel_names);

// True when one of the kernels is a TF32 tensor-core GEMM (cuBLAS xmma "tf32", CUTLASS
// "tensorop_s1688gemm"/"tensorop_s16816gemm" without an input-type tag), so an fp32 GEMM
// runs at the TF32 peak: compute spec "matrix_tf32" instead of the reference's "matrix_fp32".
bool runs_on_tf32_tensor_cores(const std::vector<std::string>& kernel_names);

// NULL-terminated op-name tables, one per model function.
extern const char* const kMmNames[];
extern const char* const kAddmmNames[];
extern const char* const kBmmNames[];
extern const char* const kBaddbmmNames[];
extern const char* const kScaledMmNames[];
extern const char* const kTeGemmTsNames[];
extern const char* const kTev2PseudoGemmNames[];
extern const char* const kGemmWithDynamicQuantNames[];
extern const char* const kHipblasltGemmFp8Names[];
extern const char* const kHipblasltGemmFp4Names[];
extern const char* const kAiterGemmA4w4Names[];
extern const char* const kGemmA8w8BlockscaleNames[];
extern const char* const kRocmUnquantizedGemmNames[];
extern const char* const kGemmA16w16Names[];
extern const char* const kGemmA16w16AtomicNames[];
extern const char* const kGemmA16w16AsmNames[];
extern const char* const kGroupedGemmNames[];
extern const char* const kGroupedGemmVariableKNames[];

}  // namespace traceprism::plugins::gemm
