#include "compute_prose.hpp"

#include <traceprism/support.hpp>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include <traceprism/fused_attention.hpp>
#include <traceprism/python_literal.hpp>
#include "compute_classify.hpp"

namespace traceprism::plugins::compute {

using support::compact;
using support::fixed;

namespace {

constexpr const char* kDash = "\xE2\x80\x94";    // — for an empty cell
constexpr const char* kEnDash = "\xE2\x80\x93";  // – in ranges
constexpr const char* kArrow = "\xE2\x86\x92";   // → in the source parenthetical

// What the prose needs of one finding: its member ops (member order) and their sums.
struct View {
  const CategoryMetrics& m;
  const CategoryFinding& f;
  std::vector<const Operation*> ops;
  double time_ms = 0, pct_total = 0;
  std::int64_t calls = 0;
  std::string dtype;  // dominant input dtype of the members, upper case ("BF16"), or ""
  std::optional<double> eff_min, eff_max;

  const Operation& lead() const { return *ops.front(); }
  bool compute_bound() const { return f.bound_type == "compute"; }
  bool memory_bound() const { return f.bound_type == "memory"; }
  bool comparative() const { return m.scope == Scope::kComparative; }
};

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string code(const std::string& s) {
  return "`" + s + "`";
}

std::string pct(double x) {
  return fixed(x, 2) + "%";
}

std::string plural(std::int64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// The weights' dtype a model names apart from the inputs' ("FP4" for the unfused MoE GEMMs), or
// "" when it names none.
std::string weight_dtype(const Operation& op) {
  std::optional<PyValue> params = parse_python_literal(op.perf_params);
  if (!params || params->type != PyValue::Type::kDict) return {};
  const PyValue* weights = params->get("weight_dtype");
  return weights && weights->is_string() ? weights->text : std::string();
}

// The first tensor argument's dtype of an op, mapped (bf16, fp32, ...), with the weights' dtype
// where the model names a different one ("bf16×fp4").
std::string first_dtype(const Operation& op) {
  std::optional<PyValue> types = parse_python_literal(op.input_type);
  if (!types || !types->is_sequence()) return {};
  for (const PyValue& t : types->items) {
    // Only tensor dtypes count: TensorList, Scalar and unmapped tokens are skipped.
    if (t.is_string()) {
      if (std::optional<std::string> d = short_dtype(t.text)) {
        const std::string weights = weight_dtype(op);
        return weights.empty() || upper(weights) == upper(*d) ? *d : *d + "×" + weights;
      }
    }
  }
  return {};
}

std::string dominant_dtype(const std::vector<const Operation*>& ops) {
  std::map<std::string, double> time;
  for (const Operation* op : ops) {
    const std::string d = first_dtype(*op);
    if (!d.empty()) time[d] += op->time_ms;
  }
  std::string best;
  for (const auto& [d, t] : time) {
    if (best.empty() || t > time[best]) best = d;
  }
  return upper(best);
}

View view_of(const CategoryMetrics& m, const CategoryFinding& f) {
  View v{m, f, {}, 0, 0, 0, {}, {}, {}};
  std::set<std::size_t> seen;
  for (const ImpactEstimate& e : f.members) {
    const Operation& op = m.operations[e.op];
    v.ops.push_back(&op);
    v.time_ms += e.time_ms;
    v.pct_total += op.percent_of_total.value_or(0);
    v.calls += op.count;
    if (e.efficiency_pct) {
      v.eff_min = v.eff_min ? std::min(*v.eff_min, *e.efficiency_pct) : *e.efficiency_pct;
      v.eff_max = v.eff_max ? std::max(*v.eff_max, *e.efficiency_pct) : *e.efficiency_pct;
    }
  }
  v.time_ms = support::py_round(v.time_ms, 3);
  v.pct_total = support::py_round(v.pct_total, 2);
  v.dtype = dominant_dtype(v.ops);
  return v;
}

std::vector<std::string> op_names(const View& v) {
  std::vector<std::string> out;
  for (const Operation* op : v.ops) {
    if (std::find(out.begin(), out.end(), op->name) == out.end()) out.push_back(op->name);
  }
  return out;
}

std::string names_text(const View& v) {
  const std::vector<std::string> names = op_names(v);
  std::string out;
  const std::size_t shown = std::min<std::size_t>(names.size(), 3);
  for (std::size_t i = 0; i < shown; ++i) {
    out += (i == 0                                    ? ""
            : i + 1 == shown && names.size() == shown ? " and "
                                                      : ", ") +
           code(names[i]);
  }
  if (names.size() > shown) out += " and " + std::to_string(names.size() - shown) + " more";
  return out;
}

std::string efficiency_range(const View& v) {
  if (!v.eff_min) return "an unknown fraction";
  if (*v.eff_min == *v.eff_max) return pct(*v.eff_min);
  return fixed(*v.eff_min, 2) + kEnDash + pct(*v.eff_max);
}

// ---- Family words ----

std::string family_plural(const View& v) {
  const std::string& c = v.m.category;
  switch (v.m.family) {
    case Family::kGemm:
      return c == "gemm" ? "GEMMs" : "grouped GEMMs";
    case Family::kSdpa:
      return c == "sdpa_bwd"             ? "attention backward ops"
             : c == "inferenceattention" ? "inference attention ops"
                                         : "attention forward ops";
    case Family::kElementwise:
      return "elementwise ops";
    case Family::kReduce:
      return "reductions";
    case Family::kNorm:
      return c == "norm_bwd" ? "normalization backward ops" : "normalization ops";
    case Family::kConv:
      return c == "conv_bwd" ? "convolution backward ops" : "convolutions";
    case Family::kMoe:
      return c == "moe_unfused" ? "unfused MoE ops" : "fused MoE ops";
    case Family::kTriton:
      return "Triton fused kernels";
    case Family::kGeneric:
      break;
  }
  const std::vector<std::string> names = op_names(v);
  return (names.size() == 1 ? support::shorten(names.front()) : v.m.display_name) + " ops";
}

std::string band_phrase(const std::string& bucket) {
  if (bucket == "0-30") return "far below roofline (<30%)";
  if (bucket == "30-60") return std::string("at 30") + kEnDash + "60% of roofline";
  if (bucket == "60-100") return "near but below roofline";
  if (bucket == "all") return "slower than Trace 2";
  return "with unknown roofline efficiency";
}

std::string bound_word(const std::string& bound) {
  if (bound == "compute") return "Compute-bound";
  if (bound == "memory") return "Memory-bound";
  return "";
}

// ---- Op facts read from perf_params ----

std::optional<PyValue> params_of(const Operation& op) {
  std::optional<PyValue> p = parse_python_literal(op.perf_params);
  if (!p || p->type != PyValue::Type::kDict) return std::nullopt;
  return p;
}

std::optional<double> param(const Operation& op, const char* key) {
  std::optional<PyValue> p = params_of(op);
  if (!p) return std::nullopt;
  const PyValue* v = p->get(key);
  if (!v || !v->is_number()) return std::nullopt;
  return v->number;
}

// Below this mean time per call a GEMM is latency-bound whatever its tiles (µs).
constexpr double kShortGemmUs = 10;

// Tiny GEMMs called very often: the reference's "batch upstream" case (spec §16.2).
bool tiny_batched_gemm(const Operation& op) {
  if (op.count < 1000) return false;
  for (const char* k : {"M", "N", "K"}) {
    const std::optional<double> d = param(op, k);
    if (!d || *d > 512) return false;
  }
  return true;
}

bool depthwise_conv(const Operation& op) {
  std::optional<PyValue> p = params_of(op);
  if (!p) return false;
  const PyValue* groups = p->get("groups");
  const PyValue* shape = p->get("input_shape");
  return groups && groups->is_number() && groups->number > 1 && shape && shape->is_sequence() &&
         shape->items.size() > 1 && shape->items[1].number == groups->number;
}

bool baseline_elementwise(const std::string& name) {
  const std::string n = lower(name);
  for (const char* op : {"add", "mul", "copy", "fill"}) {
    if (contains(n, op)) return true;
  }
  return false;
}

bool any_op(const View& v, bool (*pred)(const Operation&)) {
  return std::any_of(v.ops.begin(), v.ops.end(), [&](const Operation* op) { return pred(*op); });
}

bool has_peak(const View& v, std::string_view spec) {
  return v.m.peaks.tflops.find(spec) != v.m.peaks.tflops.end();
}

bool named(const View& v, const char* part) {
  return std::any_of(v.ops.begin(), v.ops.end(),
                     [&](const Operation* op) { return contains(lower(op->name), part); });
}

std::optional<double> specific(const CategoryMetrics& m, const std::string& key) {
  for (const auto& [k, value] : m.specific) {
    if (k == key) return value;
  }
  return std::nullopt;
}

// diagnosis.md §1.1: whether the ops' kernels already are fused attention (flash, fmha, CK,
// AITER, cuDNN SDPA, ...), which rules out advice to fuse the attention or its softmax.
bool runs_fused_attention(const View& v) {
  return std::any_of(v.ops.begin(), v.ops.end(), [](const Operation* op) {
    return is_fused_attention_kernel(op->kernel_name) ||
           std::any_of(op->kernels.begin(), op->kernels.end(),
                       [](const std::string& k) { return is_fused_attention_kernel(k); });
  });
}

// "flash", "paged", "fused" (the op's name says neither, its kernels are fused attention) or
// "unfused" for the lead attention op (the implementation named in prose).
std::string attention_impl(const View& v) {
  const Classification& c = v.lead().classification;
  return c.is_paged                ? "paged"
         : c.is_flash              ? "flash"
         : runs_fused_attention(v) ? "fused"
                                   : "unfused";
}

// ---- Title / insight ----

std::string title_of(const View& v) {
  if (v.f.heuristic)
    return support::shorten(v.lead().name) +
           (v.lead().has_perf_model ? " with unknown roofline efficiency ("
                                    : " with no performance model (") +
           pct(v.f.percent_of_total.value_or(0)) + " of E2E)";
  std::string t = bound_word(v.f.bound_type);
  if (!v.dtype.empty()) t += (t.empty() ? "" : " ") + v.dtype;
  t += (t.empty() ? "" : " ") + family_plural(v) + " " + band_phrase(v.f.eff_bucket);
  t[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(t[0])));
  return t;
}

std::string peak_phrase(const View& v) {
  const Efficiency& e = v.lead().efficiency;
  if (v.compute_bound() && e.resolved_peak_maf && e.fallback_peak)
    return " (compute roofline " + py_number(*e.resolved_peak_maf, true) +
           " TFLOPS matrix_bf16: the platform gives no " + e.compute_spec + " peak)";
  if (v.compute_bound() && e.resolved_peak_maf)
    return " (compute roofline " + py_number(*e.resolved_peak_maf, true) + " TFLOPS" +
           (e.compute_spec.empty() ? "" : " " + e.compute_spec) + ")";
  if (v.memory_bound() && e.resolved_peak_hbm_bw)
    return " (memory roofline " + py_number(*e.resolved_peak_hbm_bw, true) + " TB/s)";
  return "";
}

// Why a heuristic finding has no efficiency: no perf model, or (a run without platform peaks)
// no roofline for a modelled op.
std::string unknown_reason(const View& v) {
  return v.lead().has_perf_model ? "the platform gives no peak for its compute spec"
                                 : "no performance model covers it";
}

std::string insight_of(const View& v) {
  const std::size_t n = v.ops.size();
  std::string s = plural(static_cast<std::int64_t>(n), "op shape", "op shapes") + " of " +
                  names_text(v) + " (" + plural(v.calls, "call", "calls") + ") " +
                  (n == 1 ? "takes " : "take ") + compact(v.time_ms) + " ms, " + pct(v.pct_total) +
                  " of end-to-end time";
  if (v.f.heuristic)
    return s + ", and " + unknown_reason(v) + ", so its roofline efficiency is unknown.";
  if (v.comparative())
    return s + ", and trace 1 runs at " + efficiency_range(v) + " of trace 2's speed on them.";
  return s + ", at " + efficiency_range(v) + " of roofline" + peak_phrase(v) + ".";
}

// ---- Action (spec §16.2) ----

std::string gemm_action(const View& v) {
  if (any_op(v, tiny_batched_gemm))
    return "Batch the tiny GEMMs upstream (one batched or grouped GEMM instead of thousands of "
           "small calls), then tune what remains.";
  // diagnosis.md §1.1: a GEMM of a few µs is bound by launch and ramp-up latency, which no
  // tile or split-K choice removes (BERT-small's M = 141 addmm at ~6 µs).
  const Operation& lead = v.lead();
  const double per_call_us =
      lead.count > 0 ? lead.time_ms * 1000 / static_cast<double>(lead.count) : 0;
  if (v.memory_bound() && per_call_us > 0 && per_call_us < kShortGemmUs)
    return "The dominant GEMM kernels are short (" + compact(per_call_us) +
           " µs per call on average): at that size launch and ramp-up latency, not memory "
           "access, sets their time, so tile and split-K tuning recover little. Issue fewer, "
           "larger GEMMs: more rows per call, or one GEMM for projections that share an input.";
  if (v.memory_bound())
    return "Optimize the memory access of the dominant GEMM kernels (tile shape for the skinny "
           "dimension, split-K).";
  std::string a = "Profile the dominant GEMM kernels for tile-size and wave-occupancy tuning";
  // diagnosis.md §1.1: FP8 only where the platform has an FP8 matrix peak (not A100, V100,
  // MI250X).
  if ((v.dtype == "BF16" || v.dtype == "FP16" || v.dtype == "FP32") && has_peak(v, "matrix_fp8"))
    a += ", and narrow the precision (" + v.dtype + " to FP8) if the model tolerates it";
  return a + ".";
}

std::string sdpa_action(const View& v) {
  const std::string impl = attention_impl(v);
  if (impl == "unfused")
    return "Replace the unfused attention with a fused Flash Attention kernel "
           "(torch scaled_dot_product_attention with the flash backend).";
  if (impl == "paged")
    return v.memory_bound() ? "Raise the decode batch (or use speculative decoding) so that each "
                              "KV-cache read serves more queries, and tune the KV block size."
                            : "Tune the dominant paged-attention kernel (tile sizes, occupancy) "
                              "for this head dimension, and check the GQA grouping.";
  // A fused kernel's intensity grows with the sequence length only: more sequences per call
  // leave it where it is (Qwen's flash kernel at N = 559 reaches 19 % of its memory bound), so
  // the lever is the kernel itself.
  const std::optional<double> n = param(v.lead(), "N_Q");
  if (v.memory_bound() && n && *n < 1024)
    return "At N = " + compact(*n) +
           " the fused attention's arithmetic intensity is below this GPU's ridge point, so its "
           "bound is memory; more sequences per call do not change that (the intensity grows "
           "with the sequence length only). Time the other fused SDPA backends for this head "
           "dimension and length (`torch.nn.attention.sdpa_kernel`: flash, cuDNN, "
           "memory-efficient) and keep the fastest.";
  return v.memory_bound()
             ? "Tune the attention kernel's memory access (tile sizes that keep K/V reads "
               "coalesced) for this head dimension."
             : "Tune the attention kernel's tile sizes and occupancy for this head dimension and "
               "sequence length.";
}

std::string elementwise_action(const View& v) {
  std::string a = v.compute_bound()
                      ? "Tune the kernel's tiling, and check that the op is not a reduction "
                        "misclassified as elementwise."
                      : "Optimize the memory access of these kernels (vectorized, contiguous "
                        "loads) and fuse chains of elementwise ops in the same module into one "
                        "kernel (for example with torch.compile).";
  if (std::any_of(v.ops.begin(), v.ops.end(), [](const Operation* op) { return op->count > 1000; }))
    a += " Batch the same-shape calls that run more than 1000 times upstream.";
  return a;
}

std::string reduce_action(const View& v) {
  if (v.compute_bound()) return "Raise the reduction kernel's occupancy (more rows per block).";
  std::string a =
      "Optimize the reduction's memory access (vectorized loads, one pass over the "
      "input)";
  const bool unfused_softmax = named(v, "softmax") && !runs_fused_attention(v);
  return a + (unfused_softmax ? ", and fuse the softmax into the attention chain (Flash "
                                "Attention) so the scores never go to memory."
                              : ", and fuse it with the producer or consumer op.");
}

std::string norm_action(const View& v) {
  if (v.compute_bound()) return "Tune the normalization kernel's tiling and occupancy.";
  std::string a =
      "Optimize the normalization kernel's memory access, and fuse the norm with the "
      "adjacent activation and residual add.";
  if (named(v, "batch_norm")) a += " For a BatchNorm-heavy CNN, use the channels-last layout.";
  return a;
}

std::string conv_action(const View& v) {
  const std::optional<double> transpose = specific(v.m, "transpose_overhead_percent");
  if (v.memory_bound() && transpose && *transpose > 10)
    return "Switch the model to the channels-last memory layout to remove the transpose kernels "
           "around the convolutions.";
  if (v.memory_bound())
    return "Tune the convolution kernels' memory access (layout, tile shape), and try the "
           "channels-last layout.";
  if (any_op(v, depthwise_conv))
    return "Depthwise convolutions have little reuse and run far below the compute roofline by "
           "nature: fuse them with the following pointwise convolution or activation, or tune the "
           "depthwise kernel's tiling.";
  return "Tune the convolution kernels' tile sizes and occupancy (or let the library benchmark "
         "algorithms, e.g. torch.backends.cudnn.benchmark / MIOpen find mode).";
}

std::string moe_action(const View& v) {
  if (v.m.category == "moe_unfused" && v.memory_bound())
    return "Use a fused MoE kernel instead of separate gate/up/down expert GEMM stages, and tune "
           "the expert GEMMs for few tokens per expert (tile shape, split-K) so that they stream "
           "the expert weights at HBM bandwidth.";
  if (v.m.category == "moe_unfused")
    return "Use a fused MoE kernel instead of separate gate/up/down expert GEMM stages.";
  if (v.memory_bound())
    return "Batch more tokens per MoE call to raise the arithmetic intensity, and optimize the "
           "expert-weight reads.";
  const bool narrower =
      v.dtype != "FP4" && (has_peak(v, "matrix_fp8") || has_peak(v, "matrix_fp4"));
  return narrower ? "Tune the MoE kernel's tiles and occupancy, and narrow the expert precision "
                    "(FP8/FP4) if the model tolerates it."
                  : "Tune the MoE kernel's tiles and occupancy.";
}

std::string triton_action(const View& v) {
  return v.compute_bound()
             ? "Tune the Triton kernels' block sizes and num_warps (autotune configs)."
             : "Tune the Triton kernels' memory access (block sizes, vectorization), and let the "
               "compiler fuse more of the surrounding ops into fewer kernels.";
}

// A kernel of a replayed CUDA/HIP graph: the perf report's "<graph launch>-><kernel> (Synthetic
// Op)" row, with no CPU op, shapes or model behind it.
bool graph_replayed(const Operation& op) {
  const std::string_view name = op.name, suffix = " (Synthetic Op)";
  const bool launch =
      name.rfind("cudaGraphLaunch->", 0) == 0 || name.rfind("hipGraphLaunch->", 0) == 0;
  return launch && name.size() > suffix.size() &&
         name.substr(name.size() - suffix.size()) == suffix;
}

// "hipGraphLaunch->k (Synthetic Op)" -> "k".
std::string replayed_kernel(const Operation& op) {
  const std::size_t begin = op.name.find("->") + 2;
  return op.name.substr(begin, op.name.size() - begin - std::string_view(" (Synthetic Op)").size());
}

// "`a`, `b` and 3 more": an op's longest kernels first.
std::string kernel_list(const std::vector<std::string>& kernels) {
  constexpr std::size_t kNamed = 2;
  std::string out;
  for (std::size_t i = 0; i < std::min(kNamed, kernels.size()); ++i)
    out += (i ? ", " : "") + code(support::shorten(kernels[i], 78));
  if (kernels.size() > kNamed) out += " and " + std::to_string(kernels.size() - kNamed) + " more";
  return out;
}

std::string generic_action(const View& v) {
  if (v.m.graph_launches > 0 && std::all_of(v.ops.begin(), v.ops.end(), [](const Operation* op) {
        return graph_replayed(*op);
      }))
    return "Attribute " + code(replayed_kernel(v.lead())) + " to its op first: it runs in the " +
           std::to_string(v.m.graph_launches) + " CUDA/HIP graph launch" +
           (v.m.graph_launches == 1 ? "" : "es") +
           " the trace replays, so the trace has no op, shapes or model for it. Pass the "
           "graphs' capture traces (`traceprism analyze --mode inference --capture-dir DIR`), "
           "or profile once with graphs disabled (vLLM `--enforce-eager`, SGLang "
           "`--disable-cuda-graph`), then judge its efficiency against the roofline.";
  if (named(v, "softmax") && !runs_fused_attention(v))
    return "Fuse the softmax into the attention (scaled_dot_product_attention / Flash Attention) "
           "so the score matrix never goes to memory.";
  if (named(v, "embedding") || named(v, "index") || named(v, "scatter") || named(v, "gather"))
    return "Optimize the memory access of the gather/scatter kernels (sorted indices, vectorized "
           "rows).";
  if (v.f.heuristic && !v.lead().kernels_by_time.empty())
    return "Profile the kernels of " + code(v.lead().name) + " (" +
           kernel_list(v.lead().kernels_by_time) +
           ") with hardware counters to place them against the roofline, and check whether a "
           "tuned or fused implementation exists; the op may also belong to another op category.";
  if (v.f.heuristic)
    return "Profile " + code(v.lead().name) +
           ": find which library kernel it dispatches to and whether a tuned or fused "
           "implementation exists; it may also belong to another op category.";
  return "Tune the kernels of these ops, fuse chains of them with their neighbours, and check "
         "whether they belong to another op category with a tuned implementation.";
}

std::string action_of(const View& v) {
  if (v.comparative())
    return "Close the gap to trace 2: compare the kernels both traces run for these ops and adopt "
           "trace 2's implementation or configuration where it is faster.";
  switch (v.m.family) {
    case Family::kGemm:
      return gemm_action(v);
    case Family::kSdpa:
      return sdpa_action(v);
    case Family::kElementwise:
      return elementwise_action(v);
    case Family::kReduce:
      return reduce_action(v);
    case Family::kNorm:
      return norm_action(v);
    case Family::kConv:
      return conv_action(v);
    case Family::kMoe:
      return moe_action(v);
    case Family::kTriton:
      return triton_action(v);
    case Family::kGeneric:
      break;
  }
  return generic_action(v);
}

// ---- Identification ----

std::string layer_sentence(const View& v) {
  const std::vector<std::string>& chain = v.lead().module_chain;
  if (chain.empty()) return "";
  std::string path;
  const std::size_t from = chain.size() > 3 ? chain.size() - 3 : 0;
  for (std::size_t i = from; i < chain.size(); ++i) path += (i > from ? " > " : "") + chain[i];
  return " The largest one runs in the model layer " + code(chain.back()) + " (" + path + ").";
}

// What a generic op really is, for the ops that commonly land in "other".
std::string what_it_is(const std::string& name) {
  static const std::pair<const char*, const char*> kKnown[] = {
      {"softmax", "a softmax (a row reduction, usually the attention scores)"},
      {"embedding", "an embedding lookup (a gather)"},
      {"index", "an indexing op (gather/scatter)"},
      {"gather", "a gather"},
      {"scatter", "a scatter"},
      {"cat", "a concatenation (a copy into a new tensor)"},
      {"topk", "a top-k selection (a sort)"},
      {"sort", "a sort"},
      {"where", "a masked select (elementwise)"},
      {"cumsum", "a prefix sum (a scan)"},
  };
  const std::string n = lower(name);
  for (const auto& [part, what] : kKnown) {
    if (contains(n, part)) return what;
  }
  return "";
}

std::string implementation_sentence(const View& v) {
  if (v.m.family == Family::kSdpa)
    return " The attention implementation is " + attention_impl(v) + " (" + code(v.lead().name) +
           ").";
  if (v.m.family == Family::kMoe && v.memory_bound())
    return " The MoE byte count assumes uniform routing of tokens to experts, an approximation.";
  if (v.m.family == Family::kGeneric) {
    const std::string what = what_it_is(v.lead().name);
    return (what.empty() ? "" : " " + code(v.lead().name) + " is " + what + ".") +
           " These ops have no dedicated category analysis (op category " + v.m.display_name +
           "); check whether they are miscategorized.";
  }
  return "";
}

std::string identification_of(const View& v) {
  const std::string dtype = v.dtype.empty() ? "" : v.dtype + " ";
  std::string s = std::to_string(v.ops.size()) + " " + dtype + names_text(v) +
                  (v.ops.size() == 1 ? " shape was" : " shapes were") + " flagged in category " +
                  v.m.display_name + ", accounting for " + compact(v.time_ms) + " ms (" +
                  pct(v.pct_total) + " of E2E).";
  if (v.f.heuristic) {
    s += v.lead().has_perf_model
             ? " The platform gives no peak for their compute spec, so the roofline efficiency "
               "is unknown"
             : " No performance model covers them, so the roofline efficiency is unknown";
  } else {
    s += " The kernels dispatch through " +
         (v.f.library == "Unknown" ? std::string("an unidentified library") : v.f.library) +
         " with bound type " + v.f.bound_type;
  }
  s += ".";
  s += layer_sentence(v) + implementation_sentence(v);
  s +=
      std::string(" (source: `unified_perf_summary.csv` ") + kArrow +
      (v.f.heuristic ? " `has_perf_model`, `Kernel Time (\xC2\xB5s)_sum`, `kernel_details_summary`)"
                     : " `Pct Roofline_mean`, `Roofline Bound`, `FLOPS/Byte`, "
                       "`kernel_details_summary`)");
  return s;
}

// ---- Reasoning ----

std::string roofline_sentence(const View& v) {
  const Operation& op = v.lead();
  const Efficiency& e = op.efficiency;
  std::string s = code(op.name);
  if (e.flops_per_byte) {
    s += " has an arithmetic intensity of " + py_number(*e.flops_per_byte, true) + " FLOPS/byte";
    if (e.resolved_peak_maf && e.resolved_peak_hbm_bw)
      s += " against a ridge point of " + fixed(*e.resolved_peak_maf / *e.resolved_peak_hbm_bw, 1) +
           " FLOPS/byte (" + py_number(*e.resolved_peak_maf, true) + " TFLOPS / " +
           py_number(*e.resolved_peak_hbm_bw, true) + " TB/s)";
    s += ", so it is " + v.f.bound_type + "-bound; it";
  }
  if (v.compute_bound() && e.tflops_achieved)
    s += " achieves " + py_number(*e.tflops_achieved, true) + " TFLOPS/s";
  else if (e.tb_s_achieved)
    s += " moves " + py_number(*e.tb_s_achieved, true) + " TB/s";
  else
    s += " runs";
  return s + ", " + pct(e.efficiency_percent.value_or(0)) + " of its roofline.";
}

std::string sdpa_expectation(const View& v) {
  const std::optional<double> n = param(v.lead(), "N_Q");
  if (!n) return "";
  const char* band = *n < 512 ? "5-15%" : *n <= 1536 ? "20-40%" : *n <= 4096 ? "40-60%" : "50-70%";
  std::string s = " At sequence length N = " + compact(*n) +
                  ", attention kernels typically reach " + band + " of roofline";
  if (v.m.category == "sdpa_bwd") s += ", and backward kernels run lower than forward ones";
  return s + ".";
}

std::string family_expectation(const View& v) {
  const Efficiency& e = v.lead().efficiency;
  switch (v.m.family) {
    case Family::kGemm:
      if (v.compute_bound() && e.flops_per_byte && *e.flops_per_byte > 200)
        return " An intensity above 200 FLOPS/byte is a compute-bound GEMM: the gap is in the "
               "kernel's use of the matrix units, not in memory traffic.";
      if (v.memory_bound() && e.flops_per_byte && *e.flops_per_byte < 100)
        return " An intensity below 100 FLOPS/byte (a skinny GEMM) is memory-bound: bandwidth, "
               "not matrix throughput, limits it.";
      return "";
    case Family::kSdpa:
      return sdpa_expectation(v);
    case Family::kElementwise:
      return baseline_elementwise(v.lead().name)
                 ? " Simple elementwise ops (add, mul, copy, fill) should reach more than 70% of "
                   "HBM bandwidth; below 50% is low."
                 : "";
    case Family::kNorm:
      return e.efficiency_percent && *e.efficiency_percent < 20
                 ? " A normalization below 20% of HBM bandwidth is suspicious: elementwise ops "
                   "moving the same bytes reach more than 70%."
                 : "";
    case Family::kConv:
      return any_op(v, depthwise_conv) ? " Depthwise convolutions are expected above 50% of "
                                         "HBM bandwidth at best; their compute efficiency is low "
                                         "by nature."
                                       : " Large 3x3 convolutions are expected above 70% of peak "
                                         "TFLOPS, and 1x1 convolutions above 60% of HBM bandwidth.";
    case Family::kTriton:
      return e.efficiency_percent && *e.efficiency_percent < 30
                 ? " A fused Triton kernel below 30% of roofline is a low-efficiency fused kernel."
                 : "";
    default:
      return "";
  }
}

std::string variant_sentence(const View& v) {
  std::map<std::string, std::pair<double, double>> range;
  std::map<std::string, int> shapes;
  for (const Operation* op : v.ops) {
    const double e = op->efficiency.efficiency_percent.value_or(0);
    auto [it, fresh] = range.emplace(op->name, std::make_pair(e, e));
    if (!fresh) it->second = {std::min(it->second.first, e), std::max(it->second.second, e)};
    ++shapes[op->name];
  }
  for (const auto& [name, r] : range) {
    if (shapes[name] > 1 && r.first != r.second)
      return " " + code(name) + " hits more than one kernel variant: its shapes run at " +
             fixed(r.first, 2) + kEnDash + pct(r.second) + " of roofline.";
  }
  return "";
}

std::string launch_sentence(const View& v) {
  for (const Operation* op : v.ops) {
    if (op->count > 1000)
      return " " + code(op->name) + " runs " + std::to_string(op->count) +
             " times; at that count the per-launch overhead is a large part of its time.";
  }
  return "";
}

std::string unobservable(const View& v) {
  switch (v.m.family) {
    case Family::kGemm:
      return " The trace cannot show the kernel's split-K or tile choice;";
    case Family::kSdpa:
      return " The trace cannot show the flash tile size or the KV-cache hit rate;";
    case Family::kElementwise:
      return " The trace cannot separate per-launch overhead from memory stalls;";
    case Family::kReduce:
      return " The trace cannot show the reduction algorithm;";
    case Family::kNorm:
      return " The trace cannot show the kernel's memory access pattern;";
    case Family::kConv:
      return " The trace cannot show the per-op memory layout;";
    case Family::kMoe:
      return " The trace cannot show the expert load balance, the routing or the true bytes moved;";
    case Family::kTriton:
      return " The trace cannot show the fused kernel's sub-op breakdown or compile strategy;";
    case Family::kGeneric:
      break;
  }
  return " The trace cannot show whether the sub-category is right or what fusion across "
         "categories would allow;";
}

std::string reasoning_of(const View& v) {
  if (v.f.heuristic)
    return (v.lead().has_perf_model ? "The platform gives no peak for the compute spec of " +
                                          code(v.lead().name) + ", so its roofline is unknown"
                                    : "No performance model covers " + code(v.lead().name) +
                                          ", so its FLOPs, bytes and roofline are unknown") +
           "; the impact is a heuristic 15" + kEnDash + "45% of its " +
           pct(v.f.percent_of_total.value_or(0)) +
           " share of end-to-end time (30% as the midpoint)." + launch_sentence(v) +
           unobservable(v) + " profile it with hardware counters.";
  if (v.comparative()) {
    const Operation& op = v.lead();
    const double t1 = op.time_ms, t2 = op.t2_time_ms.value_or(0);
    return "Trace 1 is " + fixed(t2 > 0 ? (t1 / t2 - 1) * 100 : 0, 1) + "% slower on " +
           code(op.name) + " (" + compact(t1) + " ms vs " + compact(t2) + " ms)." +
           unobservable(v) + " compare the kernels of both traces.";
  }
  return roofline_sentence(v) + family_expectation(v) + variant_sentence(v) + launch_sentence(v) +
         unobservable(v) + " profile it with hardware counters to find the limiter.";
}

// ---- Resolution ----

std::string resolution_of(const View& v) {
  const std::string repro =
      " If tuning does not close the gap, generate reproducers of the lowest-efficiency shapes "
      "for the kernel team.";
  if (v.f.heuristic)
    return "A performance model (or a profile with hardware counters) turns this share into a "
           "measured gap; a tuned or fused implementation then removes the time it wastes." +
           repro;
  if (v.comparative())
    return "Running trace 2's kernel choice for the same shapes removes the measured gap." + repro;
  const std::string action = action_of(v);
  std::string r;
  if (contains(action, "precision"))
    r += "A narrower precision raises the roofline ceiling (on this platform " +
         py_number(v.m.peaks.tflops_for("matrix_bf16").value_or(0), true) + " to " +
         py_number(v.m.peaks.tflops_for("matrix_fp8").value_or(0), true) +
         " TFLOPS from BF16 to FP8). ";
  if (contains(action, "fuse") || contains(action, "Fuse") || contains(action, "fold"))
    r += "Fusion removes the intermediate round trips through HBM between the fused ops. ";
  if (contains(action, "channels-last"))
    r += "The channels-last layout removes the transpose kernels. ";
  if (contains(action, "Batch") || contains(action, "batch"))
    r += v.m.family == Family::kSdpa || v.m.family == Family::kElementwise
             ? "Batching amortizes the per-launch overhead over more work. "
             : "Batching amortizes launch overhead and weight reads over more work. ";
  if (contains(action, "Flash Attention") || contains(action, "Flash"))
    r += "A fused attention kernel keeps the score matrix on chip instead of writing it to HBM. ";
  if (contains(action, "tun") || contains(action, "Tun") || contains(action, "Optimize"))
    r += v.memory_bound() ? "Better memory access moves the same bytes closer to the HBM "
                            "bandwidth roofline. "
                          : "Better tiles and occupancy keep the matrix units busy for the same "
                            "FLOPs. ";
  if (!r.empty()) r.pop_back();
  return r + repro;
}

std::string efficiency_cell(const Operation& op) {
  const Efficiency& e = op.efficiency;
  if (!e.efficiency_percent) return kDash;
  if (e.bound_type == "compute" && e.resolved_peak_maf)
    return pct(*e.efficiency_percent) + " of " + py_number(*e.resolved_peak_maf, true) + " TFLOPS";
  if (e.bound_type == "memory" && e.resolved_peak_hbm_bw)
    return pct(*e.efficiency_percent) + " of " + py_number(*e.resolved_peak_hbm_bw, true) + " TB/s";
  return pct(*e.efficiency_percent) + " of roofline";
}

// The reference's Kernel Name cell; from kernel_details_summary when the sheet has no call
// stack (the reference then leaves it empty).
std::string kernel_cell(const Operation& op) {
  if (!op.kernel_name_trunc.empty()) return op.kernel_name_trunc;
  if (op.kernels.empty()) return kDash;
  std::string out;
  for (std::size_t i = 0; i < op.kernels.size(); ++i) {
    const std::string k =
        op.kernels[i].size() > 75 ? op.kernels[i].substr(0, 75) + "..." : op.kernels[i];
    out += op.kernels.size() == 1
               ? k
               : (i ? "<br>" : "") + std::string("Kernel ") + std::to_string(i + 1) + ": " + k;
  }
  return out;
}

std::string or_dash(const std::string& s) {
  return s.empty() ? kDash : s;
}

}  // namespace

std::string py_number(double x, bool integral_bare) {
  std::string s = compact(x);
  if (s.find('.') == std::string::npos && !integral_bare) s += ".0";
  return s;
}

FindingText finding_text(const CategoryMetrics& m, const CategoryFinding& f) {
  const View v = view_of(m, f);
  return {title_of(v),          insight_of(v),   action_of(v),
          identification_of(v), reasoning_of(v), resolution_of(v)};
}

Table data_table(const CategoryMetrics& m, const CategoryFinding& f) {
  const bool comparative = m.scope == Scope::kComparative;
  std::vector<std::string> columns =
      comparative
          ? std::vector<std::string>{"Operation",     "Args (T1)",         "Kernel Path",
                                     "Kernel Name",   "Trace 1 Time (ms)", "Trace 2 Time (ms)",
                                     "Count (T1/T2)", "Difference (ms)",   "FLOPS/Byte (T1)",
                                     "Bound (T1)"}
          : std::vector<std::string>{"Operation",  "Args", "Kernel Path", "Kernel Name",
                                     "Time (ms)",  "%E2E", "Count",       "FLOPS/Byte",
                                     "Efficiency", "Bound"};
  if (m.family == Family::kGeneric) columns.push_back("Sub-Category");
  Table t("Data", columns);
  for (const ImpactEstimate& e : f.members) {
    const Operation& op = m.operations[e.op];
    const Efficiency& eff = op.efficiency;
    const std::string fpb = eff.flops_per_byte ? py_number(*eff.flops_per_byte) : kDash;
    const std::string bound = eff.bound_type.empty() ? kDash : eff.bound_type + "-bound";
    std::vector<std::string> row = {op.name, or_dash(op.args), op.launcher_path, kernel_cell(op)};
    if (comparative) {
      row.insert(row.end(),
                 {py_number(op.time_ms), op.t2_time_ms ? py_number(*op.t2_time_ms) : kDash,
                  std::to_string(op.count) + " / " +
                      (op.count_trace2 ? std::to_string(*op.count_trace2) : kDash),
                  op.difference_ms ? py_number(*op.difference_ms) : kDash, fpb, bound});
    } else {
      row.insert(
          row.end(),
          {py_number(op.time_ms), op.percent_of_total ? py_number(*op.percent_of_total) : kDash,
           std::to_string(op.count), fpb, f.heuristic ? kDash : efficiency_cell(op),
           f.heuristic ? kDash : bound});
    }
    if (m.family == Family::kGeneric) row.push_back(or_dash(op.classification.sub_category));
    t.row(std::move(row));
  }
  return t;
}

}  // namespace traceprism::plugins::compute
