#include "fusion_prose.hpp"

#include <traceprism/support.hpp>

#include <algorithm>
#include <map>
#include <string_view>

#include "name_text.hpp"
#include "reject_rule.hpp"

namespace traceprism::plugins::fusion {
namespace {

using support::fixed;

// The tokens of kernel_label are found by hand rather than with std::regex: libstdc++'s matcher
// recurses once per character, and a kernel name can be any length. Each comment gives the
// regex whose std::sregex_iterator matches it reproduces.

bool is_word(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

// Calls visit(run) on each maximal run of word characters ([A-Za-z0-9_]), in order, until it
// returns true.
template <typename Visit>
void word_runs(std::string_view s, Visit visit) {
  for (std::size_t i = 0; i < s.size();) {
    if (!is_word(s[i])) {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < s.size() && is_word(s[end])) ++end;
    if (visit(s.substr(i, end - i))) return;
    i = end;
  }
}

// The last match of `[A-Za-z0-9_]*(?:Functor|Ops)[A-Za-z0-9_]*`: a match is a whole word run
// holding "Functor" or "Ops" (both greedy stars take the run's every character).
std::string_view last_functor_token(std::string_view s) {
  std::string_view token;
  word_runs(s, [&](std::string_view run) {
    if (contains_any(run, {"Functor", "Ops"})) token = run;
    return false;
  });
  return token;
}

// The first match of `[A-Za-z0-9_]+_kernel_(?:cuda|impl)` not starting with "gpu_kernel"
// (empty when none). A match starts where a word run starts and, `[A-Za-z0-9_]+` being
// greedy, ends after the run's last "_kernel_cuda" or "_kernel_impl" that has a character
// before it in the run; no other match ends in that run.
std::string first_kernel_token(std::string_view s) {
  std::string token;
  word_runs(s, [&](std::string_view run) {
    std::size_t end = 0;
    for (std::string_view suffix : {"_kernel_cuda", "_kernel_impl"})
      if (const std::size_t at = run.rfind(suffix); at != std::string_view::npos && at > 0)
        end = std::max(end, at + suffix.size());
    if (end == 0 || starts_with(run, "gpu_kernel")) return false;
    token = run.substr(0, end);
    return true;
  });
  return token;
}

// How a confidence signal reads in a sentence.
std::string signal_words(const std::string& signal) {
  static const std::map<std::string, std::string> kWords = {
      {"attention", "attention"}, {"norm", "a normalization"},
      {"mlp", "an MLP"},          {"rope", "rotary embedding"},
      {"siglu", "SiLU/SwiGLU"},   {"elementwise_chain", "an elementwise chain"}};
  auto it = kWords.find(signal);
  return it == kWords.end() ? signal : it->second;
}

std::string reason_of(const ConfidenceSignals& s) {
  if (!s.name.empty() && s.name == s.composition)
    return "name and kernel composition both indicate " + signal_words(s.name);
  if (!s.name.empty() && !s.composition.empty())
    return "name suggests " + signal_words(s.name) + " and kernel composition shows " +
           signal_words(s.composition);
  if (!s.name.empty()) return "only the name suggests " + signal_words(s.name);
  if (!s.composition.empty())
    return "only the kernel composition shows " + signal_words(s.composition);
  return "neither the name nor the kernel composition matches a known pattern";
}

// What makes the sequence fusable, per pattern.
std::string why_fusable(PatternKind kind) {
  switch (kind) {
    case PatternKind::kAttention:
      return "the score matrix between the two GEMMs makes a full round trip through HBM";
    case PatternKind::kGemmEpilogue:
    case PatternKind::kConvEpilogue:
    case PatternKind::kMixed:
      return "the elementwise kernels after each matrix op re-read its output from HBM instead of "
             "running in its epilogue";
    case PatternKind::kGemmPrologue:
    case PatternKind::kConvPrologue:
      return "the copies and elementwise kernels before the matrix op write a tensor to HBM that "
             "it only reads once";
    case PatternKind::kMoe:
      return "the routed tokens, each expert's intermediate activations and the per-expert outputs "
             "make round trips through HBM between the stages";
    default:
      return "each kernel reads and writes whole tensors in HBM, while a fused kernel keeps the "
             "intermediates on chip";
  }
}

// diagnosis.md §6.5: folding needs frozen statistics, which only inference has; a training run
// (a backward pass in the trace) updates them every step.
std::string batch_norm_advice(bool training) {
  if (training)
    return "Fuse the batch-norm with the activation that follows it (torch.compile the module, "
           "which runs the normalization, scale, shift and activation as one kernel), and run the "
           "model in the channels-last memory format (model.to(memory_format=torch.channels_last)) "
           "so the convolution and batch-norm kernels need no layout transposes.";
  return "Fold the frozen batch-norm scale and shift into the preceding convolution's weights at "
         "load time, or torch.compile the module so the mul + add run as one kernel.";
}

std::string how_to_fuse(PatternKind kind, bool conv_module, bool training) {
  switch (kind) {
    case PatternKind::kAttention:
      return "Replace the explicit matmul + softmax + matmul with "
             "torch.nn.functional.scaled_dot_product_attention, which dispatches to a fused "
             "flash / memory-efficient attention kernel.";
    case PatternKind::kRmsNorm:
      return "Use a fused RMSNorm kernel (torch.compile of the module, or a fused RMSNorm from "
             "Apex, Liger-Kernel, vLLM or AITER) so the pow, mean, rsqrt and mul run as one "
             "kernel.";
    case PatternKind::kLayerNorm:
      return "Use torch.nn.functional.layer_norm (one fused kernel) or torch.compile instead of "
             "the hand-written mean / sub / rsqrt / mul sequence.";
    case PatternKind::kBatchNorm:
      return batch_norm_advice(training);
    case PatternKind::kRope:
      return "Apply the rotary embedding with a fused kernel (torch.compile, or the fused rotary "
             "kernels of flash-attn, Liger-Kernel or vLLM) so the neg, cat, mul and add run as "
             "one kernel.";
    case PatternKind::kSwiGlu:
      return "Compute the activation and the gating multiply in one kernel (torch.compile, or a "
             "fused SiLU-and-mul kernel).";
    case PatternKind::kGelu:
      return "Use torch.nn.functional.gelu (one kernel) or torch.compile instead of composing "
             "GELU from elementwise ops.";
    case PatternKind::kMoe:
      return "Use a fused MoE kernel (vLLM's or SGLang's fused_moe Triton kernel, AITER's "
             "fused_moe) so routing, the expert GEMMs and the weighted sum run in one or two "
             "kernels.";
    case PatternKind::kGemmEpilogue:
    case PatternKind::kConvEpilogue:
    case PatternKind::kMixed:
      return std::string("Fold the elementwise tail into the ") +
             (conv_module ? "convolution" : "GEMM") +
             " epilogue (torch.compile with mode=\"max-autotune\", cuBLASLt / hipBLASLt epilogues, "
             "or a fused gated-MLP kernel for SiLU-gated MLPs).";
    case PatternKind::kGemmPrologue:
    case PatternKind::kConvPrologue:
      return std::string("Avoid materializing the ") + (conv_module ? "convolution" : "GEMM") +
             "'s inputs: pass strided/transposed views straight to the matmul (cuBLAS and "
             "hipBLASLt take transposed operands), make the layout contiguous once upstream, or "
             "torch.compile the block so the copies fold into the matrix op's loads.";
    default:
      return "torch.compile the module (or write one fused kernel) so the chain runs as one "
             "kernel that reads its inputs and writes its output once.";
  }
}

}  // namespace

const char* confidence_label(Confidence c) {
  switch (c) {
    case Confidence::kHigh:
      return "High";
    case Confidence::kMedium:
      return "Medium";
    default:
      return "Low";
  }
}

FusionFindingText describe(const FusionCandidate& c, const FusionEstimate& e,
                           const FusionPattern& pattern, double baseline_ms, bool training) {
  FusionFindingText t;
  const std::string where = short_name(c.base_name);
  t.title = pattern.label + " in " + where;
  t.confidence_reason = reason_of(e.signals);
  const double share = baseline_ms > 0 ? e.time_ms / baseline_ms * 100 : 0;
  t.insight = pattern.label + " in " + where + ": " + std::to_string(e.kernel_count) +
              " kernels run separately in each of " + std::to_string(e.instance_count) +
              (e.instance_count == 1 ? " instance" : " instances") + ", " + fixed(e.time_ms, 3) +
              " ms in all (" + fixed(share, 2) + "% of E2E); " + why_fusable(pattern.kind) +
              ". Fusing them would save about " + fixed(e.impact_score_low, 2) + "-" +
              fixed(e.impact_score_high, 2) + "% of E2E.";
  const bool conv_module =
      pattern.kind == PatternKind::kConvEpilogue || pattern.kind == PatternKind::kConvPrologue;
  t.action = how_to_fuse(pattern.kind, conv_module, training);
  t.identification = "`" + c.module_name + "` (" +
                     (c.sibling_sequence ? "sibling leaf ops under one parent" : "call-tree walk") +
                     ") launches " + std::to_string(e.kernel_count) + " kernels per instance, " +
                     std::to_string(e.modeled_kernel_count) + " with a perf model; confidence " +
                     confidence_label(e.confidence) + ": " + t.confidence_reason +
                     " (source: `fusion_candidates.json` → `module_name`, `has_fused_kernel`, "
                     "`kernels[]`)";
  return t;
}

FusionFindingText describe_comparative(const FusionCandidate& c, const FusionEstimate& e,
                                       const FusionPattern& pattern, double baseline_ms,
                                       bool training) {
  FusionFindingText t;
  const std::string where = short_name(c.base_name);
  t.title = pattern.label + " in " + where;
  t.confidence_reason = reason_of(e.signals);
  const int n2 = e.kernel_count - e.delta_kernel_count;
  const double measured_ms = e.time_ms - e.trace2_time_ms;
  const double share = baseline_ms > 0 ? e.gap_ms / baseline_ms * 100 : 0;
  t.insight = where + " runs " + std::to_string(e.kernel_count) +
              " kernels in trace 1 where trace 2 runs " + std::to_string(n2) +
              " for the same ops (" + std::to_string(e.instance_count) +
              (e.instance_count == 1 ? " instance" : " instances") + "): " + fixed(e.time_ms, 3) +
              " ms against " + fixed(e.trace2_time_ms, 3) + " ms, a measured gap of " +
              fixed(measured_ms, 3) + " ms";
  if (e.gap_ms + 0.0005 < measured_ms)
    t.insight += ", of which fusing away the " + std::to_string(e.delta_kernel_count) +
                 " extra kernels can recover at most their " + fixed(e.gap_ms, 3) + " ms";
  t.insight += " (" + fixed(share, 2) + "% of trace 1's E2E).";
  const bool conv_module =
      pattern.kind == PatternKind::kConvEpilogue || pattern.kind == PatternKind::kConvPrologue;
  t.action =
      "Trace 2 runs these ops as " + std::to_string(n2) + (n2 == 1 ? " kernel (" : " kernels (") +
      kernel_label(e.trace2_kernels.empty() ? std::string() : e.trace2_kernels.front().name) +
      (n2 > 1 ? ", ..." : "") + "): adopt its implementation in trace 1, since " +
      why_fusable(pattern.kind) + ". " + how_to_fuse(pattern.kind, conv_module, training);
  t.identification = "`" + c.module_name + "` launches " + std::to_string(e.kernel_count) +
                     " kernels that TraceDiff matched to " + std::to_string(n2) + " of trace 2 (" +
                     std::to_string(e.delta_kernel_count) + " fewer); confidence " +
                     confidence_label(e.confidence) + ": " + t.confidence_reason +
                     " (source: `perf_report_trace1_csvs/diff_stats.csv` → "
                     "`lowest_common_ancestor_id`, `kernel_time`)";
  return t;
}

std::string kernel_label(const std::string& name) {
  if (name.size() <= 60) return name;
  // A templated PyTorch/CUTLASS name says what it computes in a functor or kernel token deep
  // inside its template arguments; a plain 60-character cut shows only the wrapper
  // ("void at::native::elementwise_kernel<128, 4, at::native::gpu_..."), the same for every op.
  // The innermost functor is the most specific (BinaryFunctor<..., MulFunctor>).
  std::string head = name.rfind("void ", 0) == 0 ? name.substr(5) : name;
  const std::size_t open = head.find('<');
  if (open == std::string::npos) return head.substr(0, 60) + "...";
  const std::string_view args = std::string_view(head).substr(open);
  std::string token(last_functor_token(args));
  if (token.empty()) token = first_kernel_token(args);
  if (token.empty()) return head.substr(0, 60) + "...";
  std::string wrapper = head.substr(0, open);
  if (wrapper.size() > 45) wrapper = wrapper.substr(wrapper.rfind("::") + 2);
  return wrapper + "<…" + token + "…>";
}

Table kernels_table(const FusionEstimate& e) {
  Table t("kernels", {"Kernel", "Type", "Duration (us)", "Perf model"});
  for (const EnrichedKernel& k : e.kernels)
    t.row({kernel_label(k.name), k.type, fixed(k.dur_us, 2), k.has_perf_data() ? "Yes" : "No"});
  return t;
}

Table trace2_kernels_table(const FusionEstimate& e) {
  Table t("trace 2 kernels", {"Kernel", "Type", "Duration (us)"});
  for (const EnrichedKernel& k : e.trace2_kernels)
    t.row({kernel_label(k.name), k.type, fixed(k.dur_us, 2)});
  return t;
}

Table estimate_table(const FusionEstimate& e, const std::string& confidence_reason) {
  Table t("estimate", {"Field", "Value"});
  t.row({"bound_type", e.compute_bound ? "compute" : "memory"});
  t.row({"fusion_type", e.matrix_compute ? "matrix_compute" : "memory_bound"});
  t.row({"confidence", confidence_label(e.confidence)});
  t.row({"confidence_reason", confidence_reason});
  t.row({"estimation", e.measured_gap ? "measured" : e.full_estimation ? "full" : "partial"});
  return t;
}

}  // namespace traceprism::plugins::fusion
