// traceprism SDK: attention kernels that already are fused (diagnosis.md §1.1), told apart by
// name: the one list the fusion tier and the compute advice share, so that neither advises "use a
// fused attention kernel" for a kernel that is one. Header-only C++17; no dependency on the rest
// of the SDK.
//
//   if (!traceprism::is_fused_attention_kernel(kernel_name)) advise_fused_attention();
//
// Matches, in any case: FlashAttention (flash_fwd_kernel, flash_attn_*, FlashAttn*,
// pytorch_flash::), PyTorch's memory-efficient and CK/AITER fmha kernels (fmha_cutlassF_*,
// FmhaBatchPrefill*, fmha_fwd_*), vLLM / SGLang paged and unified attention, AITER / CK
// mha_fwd / mha_bwd / mha_batch_prefill, Triton attn_fwd / attn_bwd, and cuDNN's fused SDPA
// (cudnn_generated_fort_native_sdpa_*, any cuDNN kernel whose name says "sdpa").
#pragma once

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>

namespace traceprism {

namespace fused_attention_detail {

inline std::string lowered(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

inline bool has(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

}  // namespace fused_attention_detail

// Name fragments (lower case) of fused attention kernels.
inline constexpr std::string_view kFusedAttentionNameParts[] = {
    "flash",
    "fmha",
    "paged_attention",
    "unified_attention",
    "mha_fwd",
    "mha_bwd",
    "mha_batch_prefill",
    "attn_fwd",
    "attn_bwd",
    "fort_native_sdpa",
};

// True when the kernel `name` is a fused attention kernel (the score matrix stays on chip).
inline bool is_fused_attention_kernel(std::string_view name) {
  using fused_attention_detail::has;
  const std::string n = fused_attention_detail::lowered(name);
  for (std::string_view part : kFusedAttentionNameParts)
    if (has(n, part)) return true;
  return has(n, "cudnn") && has(n, "sdpa");
}

}  // namespace traceprism
