#include "compute_classify.hpp"

#include <traceprism/support.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>

#include <traceprism/python_literal.hpp>

namespace traceprism::plugins::compute {

using support::py_round;

namespace {

std::optional<double> number_of(const PyValue* v) {
  if (!v || !v->is_number()) return std::nullopt;
  return v->number;
}

bool truthy(std::optional<double> v) {
  return v && *v != 0;
}

}  // namespace

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

bool contains_any(std::string_view text, std::initializer_list<std::string_view> parts) {
  for (std::string_view p : parts) {
    if (contains(text, p)) return true;
  }
  return false;
}

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

// ---- Classifiers (spec §2.7) ----

bool is_quantized_gemm(std::string_view name) {
  return contains_any(lower(name), {"w8a8", "int8", "fp8", "w4a16", "w4a4", "fp4", "mxfp4"});
}

bool is_flash_attention(std::string_view name) {
  return contains_any(lower(name), {"flash", "fmha", "flash_attention", "flashattn"});
}

bool is_paged_attention(std::string_view name, const OpRow& row) {
  if (contains_any(lower(name), {"unified_attention", "paged_attention", "vllm"})) return true;
  return row.kernels_mention("kernel_paged_attention", true) ||
         row.kernels_mention("paged_attention_2d", true);
}

std::string triton_kernel_type(std::string_view name) {
  const std::string n = lower(name);
  if (starts_with(n, "triton_poi_")) return "pointwise";
  if (starts_with(n, "triton_red_")) return "reduction";
  if (starts_with(n, "triton_per_")) return "persistent";
  return "other";
}

std::string generic_sub_category(std::string_view name) {
  const std::string n = lower(name);
  if (contains_any(n, {"all_reduce", "collective", "ncclkernel", "rccl", "broadcast", "allgather"}))
    return "communication";
  if (contains_any(n, {"graph", "hipgraph", "cudagraph"})) return "graph";
  return "miscellaneous";
}

// sdpa_analysis.py parse_kernel_breakdown: the reference strips "np.float64(" and every ")"
// from the cell, then pairs each 'name' with the next 'mean_duration_us' (digits and dots).
// From the typed entries: the name without ')', its mean; the reference's scan stops at a name
// printed in double quotes (one holding a "'"), and skips a mean that is not a number.
std::vector<SdpaKernel> kernel_breakdown(const std::vector<KernelEntry>& kernels) {
  std::vector<SdpaKernel> out;
  double total = 0;
  for (const KernelEntry& entry : kernels) {
    if (entry.name.find('\'') != std::string::npos) break;
    if (!std::isfinite(entry.mean_us) || entry.mean_us < 0) continue;
    SdpaKernel k;
    k.name = entry.name;
    k.name.erase(std::remove(k.name.begin(), k.name.end(), ')'), k.name.end());
    k.mean_us = entry.mean_us;
    const std::string n = lower(k.name);
    k.kernel_type = contains(n, "reshape_and_cache") ? "reshape_cache"
                    : contains(n, "paged_attention") ? "paged_attention"
                    : contains(n, "fwd_kernel")      ? "fwd_kernel"
                                                     : "other";
    total += k.mean_us;
    out.push_back(std::move(k));
  }
  if (total > 0) {
    for (SdpaKernel& k : out) k.percent = py_round(k.mean_us / total * 100, 2);
  }
  return out;
}

// sdpa_analysis.py parse_perf_params: the workload of one op. A cell that is empty or does not
// parse gives the defaults (the reference catches the error the same way).
SdpaWorkload sdpa_workload(std::string_view perf_params) {
  SdpaWorkload w;
  std::optional<PyValue> p = parse_python_literal(perf_params);
  if (!p || p->type != PyValue::Type::kDict) return w;
  w.n_q = number_of(p->get("N_Q"));
  w.h_q = number_of(p->get("H_Q"));
  w.n_kv = number_of(p->get("N_KV"));
  w.h_kv = number_of(p->get("H_KV"));
  w.sum_ctx_tokens = number_of(p->get("sum_ctx_tokens")).value_or(0);
  w.sum_gen_tokens = number_of(p->get("sum_gen_tokens")).value_or(0);
  const double total = w.sum_ctx_tokens + w.sum_gen_tokens;
  if (total > 0) {
    const double ratio = w.sum_ctx_tokens / total;
    w.ctx_ratio = py_round(ratio, 3);
    w.workload_type = ratio > 0.8 ? "prefill_heavy" : ratio < 0.2 ? "decode_heavy" : "mixed";
  }
  if (truthy(w.h_q) && truthy(w.h_kv)) {
    if (*w.h_kv < *w.h_q) {
      w.attention_pattern = "GQA";
      w.gqa_ratio = std::floor(*w.h_q / *w.h_kv);
    } else {
      w.attention_pattern = *w.h_kv == *w.h_q ? "MHA" : "unknown";
    }
  }
  return w;
}

}  // namespace traceprism::plugins::compute
