// Inductor Triton kernel op models (perf-model spec §9.7, trace path "V2"): the cpu_op events
// `triton_poi_*` (pointwise), `triton_red_*` (reduction) and `triton_per_*` (persistent
// reduction) that torch.compile records around each generated kernel launch. Category
// "triton" (the reference's `^triton` rule), maf vector.
#pragma once

#include <traceprism/op_model.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace traceprism::plugins::triton {

// FLOPs = (Σ flops per element of the fused aten ops) · xnumel · rnumel; bytes = the tensor
// args (+ the pointwise output write). Category only (has_model false) when the call lacks its
// shape args or its numel arguments (the reference's can_model).
void model_triton_kernel(const OpCall& call, OpModelResult& r);

// The aten ops fused into a kernel, read from its name `triton_<kind>_fused_<ops>_<index>`
// ("triton_poi_fused__unsafe_view_mul_silu_2" -> {"_unsafe_view", "mul", "silu"}): the split
// of <ops> into known aten op names that prefers the longest op walking back from the end;
// empty when there is no such split.
std::vector<std::string> fused_ops_of(std::string_view kernel_name);

// Whether `op` (no "aten." prefix) is in this plugin's list of aten op names.
bool is_known_aten_op(std::string_view op);

// FLOPs per output element of one fused aten op (0 for ops the table does not list).
int flops_per_element(std::string_view op);

// NULL-terminated op-name table (prefix claims).
extern const char* const kTritonKernelNames[];

}  // namespace traceprism::plugins::triton
