// Text helpers and the reference's per-op classifiers (analysis spec §2.7): GEMM quantization,
// flash / paged attention with the paged kernel breakdown and the attention workload, Triton
// kernel type, generic sub-category. Shared by the engine and its prose.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "compute_category.hpp"

namespace traceprism::plugins::compute {

std::string lower(std::string_view s);
bool contains(std::string_view text, std::string_view part);
bool contains_any(std::string_view text, std::initializer_list<std::string_view> parts);
bool starts_with(std::string_view text, std::string_view prefix);

// Op name contains w8a8, int8, fp8, w4a16, w4a4, fp4 or mxfp4 (gemm_analysis.py).
bool is_quantized_gemm(std::string_view name);
// Op name contains flash, fmha, flash_attention or flashattn (sdpa_analysis.py).
bool is_flash_attention(std::string_view name);
// Op name contains unified_attention, paged_attention or vllm, or the kernels are paged ones.
bool is_paged_attention(std::string_view name, const OpRow& row);
// pointwise / reduction / persistent / other from the triton_poi_ / _red_ / _per_ prefix.
std::string triton_kernel_type(std::string_view name);
// communication / graph / miscellaneous (other_analysis.py).
std::string generic_sub_category(std::string_view name);
// The kernels of a paged attention op with their share of the summed mean times.
std::vector<SdpaKernel> kernel_breakdown(const std::vector<KernelEntry>& kernels);
// The workload of an attention op from its perf_params cell.
SdpaWorkload sdpa_workload(std::string_view perf_params);

}  // namespace traceprism::plugins::compute
