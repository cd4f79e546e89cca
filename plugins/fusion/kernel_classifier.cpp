#include "kernel_classifier.hpp"

#include <algorithm>
#include <cctype>
#include <memory>
#include <mutex>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace traceprism::plugins::fusion {
namespace {

struct Rule {
  const char* pattern;  // a Python `re` pattern; every one is case-insensitive
  const char* kernel_type;
  int priority;
};

// The reference's full rule list, in its order (ties between equal priorities go to the
// earlier rule, so the fine-grained types listed first win over the collapsed ones later).
constexpr Rule kRules[] = {
    // Normalization
    {"Rmsnorm|rmsnorm2d", "RMSNorm", 20},
    {"layer_norm|layernorm", "LayerNorm", 20},
    {"l2norm_fwd|l2norm_kernel", "L2Norm", 20},
    {"rsqrt.*mean.*pow|mean.*mul.*pow.*rsqrt", "RMSNorm (fused triton)", 20},
    {"_to_copy_add.*mean.*rsqrt", "RMSNorm (fused triton)", 20},
    {"fused__to_copy_abs.*mean.*pow.*rsqrt", "RMSNorm (fused triton)", 18},
    {"fused__to_copy_add.*mean.*pow.*rsqrt", "RMSNorm (fused triton)", 18},
    {"fused_add_copy__mean.*pow", "RMSNorm (fused triton residual)", 18},
    {"fused__to_copy_add_copy__mean.*pow", "RMSNorm (fused triton residual)", 18},
    {"fused__to_copy_add_mean_moe_forward_shared.*pow.*rsqrt", "RMSNorm (shared expert + norm)",
     20},
    {"fused__to_copy_add_mean.*mul.*pow.*rsqrt", "RMSNorm (fused triton)", 18},
    // Attention / SDPA
    {"attention_[23]d|unified_attention", "Attention (AMD unified)", 20},
    {"fmha[Ss]m\\d+|fmhaSm100f", "Attention (NVIDIA fmha)", 20},
    {"paged_attention|PagedAttention", "Attention (paged)", 20},
    {"flash_attn|flash_fwd", "Attention (flash)", 20},
    {"_fwd_grouped_kernel_stage1|_fwd_kernel_stage2", "Attention (flash)", 20},
    {"reduce_segments", "Attention Reduce", 20},
    {"reshape_and_cache_flash|reshape_and_cache|store_kvcache", "KV Cache Store", 20},
    {"grouped_topk_kernel", "MoE TopK", 20},
    // Linear attention
    {"chunk_gated_delta_rule_fwd", "Linear Attention (chunk delta)", 20},
    {"chunk_fwd_kernel_o", "Linear Attention (chunk fwd)", 20},
    {"chunk_scaled_dot_kkt", "Linear Attention (chunk kkt)", 20},
    {"chunk_local_cumsum", "Linear Attention (chunk cumsum)", 20},
    {"fused_recurrent_gated_delta_rule", "Linear Attention (recurrent delta)", 20},
    {"recompute_w_u_fwd", "Linear Attention (recompute wu)", 20},
    {"merge_\\d+x\\d+_to_\\d+x\\d+_inverse", "Linear Attention (merge inverse)", 20},
    {"_causal_conv1d_fwd|_causal_conv1d_update", "Causal Conv1D", 20},
    {"fused_gdn_gating", "GDN Gating", 20},
    // MoE
    {"swiglu|swiGlu", "MoE GateUp+SwiGLU GEMM", 25},
    {"fmoe.*g1u1.*silu|fmoe.*silu", "MoE GEMM+SiLU (aiter)", 25},
    {"kernel_moe_gemm|MoeGemmBlockScale", "MoE GEMM (CK)", 22},
    {"finalize.*scatter|_finalize_matmul|finalizeKernel", "MoE Finalize", 20},
    {"topk_forward", "MoE TopK", 20},
    {"topkGatingSoftmax", "MoE TopK Gating", 20},
    {"bitmatrix|_sum_bitmatrix", "MoE BitMatrix", 20},
    {"combined_routing_memset", "MoE Routing Memset", 20},
    {"combined_routing_compute", "MoE Routing Compute", 20},
    {"routingIndicesCluster|routingRenormalize", "MoE Routing (fused)", 20},
    {"MoeSorting", "MoE Sorting", 20},
    {"constant_pad.*moe|moe_forward", "MoE Pad", 20},
    {"quantize_with_block_size", "MoE Quantize", 20},
    {"per_token_group_quant|dynamic_per_group_scaled_quant", "Quantize (per-group)", 18},
    // Activations
    {"act_and_mul_kernel.*silu_kernel", "Activation (SiLU+Mul)", 20},
    {"silu_and_mul|silu_mul|SiluAndMul", "Activation (SiLU+Mul)", 18},
    {"activationDeepSeekKernel", "Activation (DeepSeek fused)", 18},
    {"fused_mul_sigmoid", "Activation (SiLU)", 18},
    {"\\bsilu\\b|swish", "Activation (SiLU)", 15},
    {"\\bgelu\\b", "Activation (GELU)", 15},
    // MemCpy
    {"memcpy", "MemCpy", 30},
    // The collapsed (anchor) types: never win a tie against the fine-grained rules above.
    {"swiglu|swiGlu", "MoE GEMM", 25},
    {"fmoe.*g1u1.*silu|fmoe.*silu", "MoE GEMM", 25},
    {"kernel_moe_gemm|MoeGemmBlockScale", "MoE GEMM", 22},
    {"finalize.*scatter|_finalize_matmul|finalizeKernel", "MoE Finalize", 20},
    {"topk_forward", "MoE Routing", 20},
    {"topkGatingSoftmax", "MoE Routing", 20},
    {"bitmatrix|_sum_bitmatrix", "MoE Routing", 20},
    {"combined_routing_memset", "MoE Routing", 20},
    {"combined_routing_compute", "MoE Routing", 20},
    {"routingIndicesCluster|routingRenormalize", "MoE Routing", 20},
    {"MoeSorting", "MoE Routing", 20},
    {"constant_pad.*moe|moe_forward", "MoE Routing", 20},
    {"quantize_with_block_size", "MoE Quantize", 20},
    {"Rmsnorm|rmsnorm2d", "Normalization", 20},
    {"layer_norm|layernorm", "Normalization", 20},
    {"l2norm_fwd|l2norm_kernel", "Normalization", 20},
    {"rsqrt.*mean.*pow|mean.*mul.*pow.*rsqrt", "Normalization", 20},
    {"_to_copy_add.*mean.*rsqrt", "Normalization", 20},
    {"fused__to_copy_abs.*mean.*pow.*rsqrt", "Normalization", 18},
    {"fused__to_copy_add.*mean.*pow.*rsqrt", "Normalization", 18},
    {"fused_add_copy__mean.*pow", "Normalization", 18},
    {"fused__to_copy_add_copy__mean.*pow", "Normalization", 18},
    {"fused__to_copy_add_mean_moe_forward_shared.*pow.*rsqrt", "Normalization", 20},
    {"fused__to_copy_add_mean.*mul.*pow.*rsqrt", "Normalization", 18},
    {"attention_[23]d|unified_attention", "Attention", 20},
    {"fmha[Ss]m\\d+|fmhaSm100f", "Attention", 20},
    {"paged_attention|PagedAttention", "Attention", 20},
    {"flash_attn|flash_fwd", "Attention", 20},
    {"_fwd_grouped_kernel_stage1|_fwd_kernel_stage2", "Attention", 20},
    {"reduce_segments", "Attention", 20},
    {"reshape_and_cache_flash|reshape_and_cache|store_kvcache", "KV Cache Store", 20},
    {"grouped_topk_kernel", "MoE Routing", 20},
    {"chunk_gated_delta_rule_fwd", "Linear Attention", 20},
    {"chunk_fwd_kernel_o", "Linear Attention", 20},
    {"chunk_scaled_dot_kkt", "Linear Attention", 20},
    {"chunk_local_cumsum", "Linear Attention", 20},
    {"fused_recurrent_gated_delta_rule", "Linear Attention", 20},
    {"recompute_w_u_fwd", "Linear Attention", 20},
    {"merge_\\d+x\\d+_to_\\d+x\\d+_inverse", "Linear Attention", 20},
    {"_causal_conv1d_fwd|_causal_conv1d_update", "Linear Attention", 20},
    {"fused_gdn_gating", "GDN Gating", 20},
    {"rotary|rope", "Rotary Embedding", 18},
    {"activationDeepSeekKernel", "Activation (DeepSeek fused)", 18},
    // Misc elementwise
    {"act_and_mul_kernel.*silu_kernel", "Elementwise", 20},
    {"embedding", "Elementwise", 20},
    {"gather_kernel|vectorized_gather|indexSelectSmallIndex", "Elementwise", 20},
    {"per_token_group_quant|dynamic_per_group_scaled_quant", "Quantization", 18},
    {"silu_and_mul|silu_mul|SiluAndMul", "Elementwise", 18},
    {"fused_mul_sigmoid", "Elementwise", 18},
    {"\\bsilu\\b|swish", "Elementwise", 15},
    {"\\bgelu\\b", "Elementwise", 15},
    {"splitKreduce|splitkreduce", "GEMM", 15},
    {"top_k|top_p|sampling|topk_topp", "Elementwise", 15},
    {"CUDAFunctorOnSelf_add<int>", "Elementwise", 15},
    {"__amd_rocclr_copyBuffer", "Elementwise", 12},
    {"memcpy32_post", "Elementwise", 12},
    {"copy_page_indices", "Elementwise", 12},
    {"vectorized_elementwise_kernel.*FillFunctor", "Elementwise", 10},
    {"direct_copy_kernel|_to_copy\\b", "Elementwise", 10},
    {"CatArrayBatchedCopy", "Elementwise", 10},
    {"elementwise.*add|FunctorOnSelf_add", "Elementwise", 8},
    {"elementwise.*mul", "Elementwise", 8},
    {"elementwise", "Elementwise", 5},
    // GEMM
    {"_matmul_ogs.*mxfp4", "GEMM", 12},
    {"_gemm_a16_w16", "GEMM", 12},
    {"nvjet_tst", "GEMM", 12},
    {"wvSplitK", "GEMM", 12},
    {"Cijk_", "GEMM", 12},
    {"kernel_gemm_xdl_cshuffle", "GEMM", 12},
    {"_gemm_a\\d+w\\d+", "GEMM", 10},
    {"bmm_MxE4m3.*MxE2m1", "GEMM", 10},
    {"bmm_Bfloat16.*MxE2m1", "GEMM", 10},
    {"cublasLt|cublas", "GEMM", 10},
    {"rocm_aiter_gemm_a8w8", "GEMM", 10},
    {"triton_poi_fused.*clamp.*div.*rocm_aiter_gemm", "GEMM", 8},
    {"triton_per_fused.*abs.*clamp.*div.*max.*rocm_aiter_gemm", "GEMM", 8},
    {"gemm|matmul|bmm", "GEMM", 5},
    // Catch-alls (below the confidence floor unless noted)
    {"quant", "Quantization", 4},
    {"triton_poi_fused", "Elementwise", 8},
    {"triton_red_fused", "Elementwise", 8},
    {"triton_per_fused", "Elementwise", 8},
    {"\\bnorm\\b", "Normalization", 1},
    {"rocprim|hipcub", "Elementwise", 1},
    {"cub::DeviceScan|DeviceRadixSort|DeviceReduce", "Elementwise", 1},
};

// Below this priority the best match is a guess, and the kernel stays "Unknown".
constexpr int kMinConfidence = 5;

// Most patterns are alternatives of literal words joined by `.*` ("rsqrt.*mean.*pow|..."):
// those are matched by substring search on the lower-cased name, the same answer as
// std::regex_search with icase on a name without line terminators (ECMAScript's `.` stops at
// them) and a fraction of its time: the regex matcher asked the locale for each character's
// lower case (kernel-fusion was a third of `analyze`'s CPU on a 1 MB trace). The rest ("\\b",
// "[Ss]", "\\d+") go to std::regex, and only for names that hold the words the pattern
// requires.
using LiteralPieces = std::vector<std::vector<std::string>>;  // alternatives, each in order

bool matches_pieces(const LiteralPieces& alternatives, std::string_view lowered) {
  for (const auto& pieces : alternatives) {
    std::size_t at = 0;
    bool found = true;
    for (const std::string& piece : pieces) {
      const std::size_t hit = lowered.find(piece, at);
      if (hit == std::string_view::npos) {
        found = false;
        break;
      }
      at = hit + piece.size();
    }
    if (found) return true;
  }
  return false;
}

// Per alternative, the runs of plain characters that every match of it contains, in pattern
// order (a character made optional by `?`, `*` or `{` is left out): a name that does not hold
// them in that order is not searched. Nullopt when the pattern has groups.
std::optional<LiteralPieces> required_words(std::string_view pattern) {
  if (pattern.find_first_of("()") != std::string_view::npos) return std::nullopt;
  LiteralPieces out(1, std::vector<std::string>(1));
  const auto cut = [&] {
    if (!out.back().back().empty()) out.back().emplace_back();
  };
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    const bool optional = i + 1 < pattern.size() &&
                          std::string_view("?*{").find(pattern[i + 1]) != std::string_view::npos;
    if (c == '|') {
      out.emplace_back(1);
    } else if (c == '\\') {
      ++i;  // an escape (\\b, \\d): not a plain character
      cut();
    } else if (c == '[' || c == '{') {  // a class, or a count (its digits are not text)
      i = pattern.find(c == '[' ? ']' : '}', i + 1);
      if (i == std::string_view::npos) return std::nullopt;
      cut();
    } else if (std::string_view("^$.?*+}]").find(c) != std::string_view::npos || optional) {
      cut();
    } else {
      out.back().back() += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  return out;
}

// Whether a pattern is only words, `|` and `.*`: then its required words, in order, are the
// whole rule.
bool is_words_only(std::string_view pattern) {
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '.' && i + 1 < pattern.size() && pattern[i + 1] == '*')
      ++i;
    else if (std::string_view("\\^$.?*+()[]{}").find(pattern[i]) != std::string_view::npos)
      return false;
  }
  return true;
}

struct CompiledRule {
  const char* pattern;
  std::optional<LiteralPieces> literal;   // the whole rule as words, when it is only that
  std::optional<LiteralPieces> required;  // words a regex match needs
  std::string kernel_type;
  int priority;
  // Compiled on first use (under the classifier's lock): 120 of the 133 rules never need one.
  std::unique_ptr<std::regex> regex;           // libstdc++'s depth-first matcher
  std::unique_ptr<std::regex> regex_for_long;  // its breadth-first matcher (__polynomial)
};

std::vector<CompiledRule>& compiled_rules() {
  static std::vector<CompiledRule> rules = [] {
    std::vector<CompiledRule> out;
    for (const Rule& r : kRules) {
      std::optional<LiteralPieces> words = required_words(r.pattern);
      out.push_back({r.pattern, is_words_only(r.pattern) ? words : std::nullopt, words,
                     r.kernel_type, r.priority, nullptr, nullptr});
    }
    return out;
  }();
  return rules;
}

// The rules are data, applied with std::regex. libstdc++'s default (depth-first) matcher
// recurses once per character it matches (`.*` in "bmm_Bfloat16.*MxE2m1"), which overflowed the
// stack on a 4 KB name under AddressSanitizer. Names longer than kMaxDepthFirstBytes go to its
// breadth-first matcher (the __polynomial flag: no recursion per character, the same yes/no
// answer since no rule uses a back-reference, but several times slower). A search still costs
// up to the square of the name's length, and a trace can name a kernel with any number of
// characters, so names are classified on their first kMaxClassifiedBytes bytes; the longest
// real names seen (HTA's CUTLASS templates) have about 5,100.
constexpr std::size_t kMaxDepthFirstBytes = 1024;
constexpr std::size_t kMaxClassifiedBytes = 4096;

const std::regex& regex_for(CompiledRule& rule, std::size_t text_size) {
  constexpr auto kFlags = std::regex::ECMAScript | std::regex::icase;
  if (text_size > kMaxDepthFirstBytes) {
    if (!rule.regex_for_long)
      rule.regex_for_long =
          std::make_unique<std::regex>(rule.pattern, kFlags | std::regex_constants::__polynomial);
    return *rule.regex_for_long;
  }
  if (!rule.regex) rule.regex = std::make_unique<std::regex>(rule.pattern, kFlags);
  return *rule.regex;
}

bool rule_matches(CompiledRule& rule, const std::string& text, std::string_view lowered,
                  bool regex_only) {
  if (!regex_only) {
    const bool line_terminators = text.find_first_of("\r\n") != std::string::npos;
    if (rule.literal && !line_terminators) return matches_pieces(*rule.literal, lowered);
    if (rule.required && !matches_pieces(*rule.required, lowered)) return false;
  }
  return std::regex_search(text, regex_for(rule, text.size()));
}

std::string classify_uncached(std::string_view name, bool regex_only) {
  const std::string text(name.substr(0, kMaxClassifiedBytes));
  std::string lowered = text;
  for (char& c : lowered) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const CompiledRule* best = nullptr;
  for (CompiledRule& rule : compiled_rules()) {
    // Strictly greater: the earliest rule keeps a tie (Python's stable sort on -priority).
    if (best && rule.priority <= best->priority) continue;
    if (rule_matches(rule, text, lowered, regex_only)) best = &rule;
  }
  if (!best || best->priority < kMinConfidence) return "Unknown";
  return best->kernel_type;
}

// Guards the cache and the rules' regexes, compiled on first use.
std::mutex& classifier_mutex() {
  static std::mutex mutex;
  return mutex;
}

}  // namespace

const std::string& classify_kernel(std::string_view kernel_name) {
  static std::unordered_map<std::string, std::string> cache;
  std::lock_guard<std::mutex> lock(classifier_mutex());
  auto it = cache.find(std::string(kernel_name));
  if (it == cache.end())
    it = cache.emplace(std::string(kernel_name), classify_uncached(kernel_name, false)).first;
  return it->second;
}

std::string classify_kernel_by_regex(std::string_view kernel_name) {
  std::lock_guard<std::mutex> lock(classifier_mutex());
  return classify_uncached(kernel_name, true);
}

}  // namespace traceprism::plugins::fusion
