#include "compute_classify.hpp"

#include <traceprism/support.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <optional>

#include "python_literal.hpp"

namespace traceprism::compute {

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

bool is_paged_attention(std::string_view name, std::string_view kernel_details) {
  if (contains_any(lower(name), {"unified_attention", "paged_attention", "vllm"})) return true;
  const std::string kd = lower(kernel_details);
  return contains(kd, "kernel_paged_attention") || contains(kd, "paged_attention_2d");
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
// from the cell, then pairs each 'name' with the next 'mean_duration_us'.
std::vector<SdpaKernel> kernel_breakdown(std::string_view kernel_details) {
  std::string kd(kernel_details);
  for (std::size_t p; (p = kd.find("np.float64(")) != std::string::npos;) kd.erase(p, 11);
  kd.erase(std::remove(kd.begin(), kd.end(), ')'), kd.end());
  std::vector<SdpaKernel> out;
  double total = 0;
  for (std::size_t pos = 0;;) {
    std::size_t key = kd.find("'name':", pos);
    if (key == std::string::npos) break;
    std::size_t open = kd.find_first_not_of(" \t\n", key + 7);
    if (open == std::string::npos || kd[open] != '\'') break;
    const std::size_t close = kd.find('\'', open + 1);
    const std::size_t mean =
        close == std::string::npos ? close : kd.find("'mean_duration_us':", close);
    if (mean == std::string::npos) break;
    std::size_t num = kd.find_first_not_of(" \t\n", mean + 19);
    std::size_t end = num;
    while (end < kd.size() && (std::isdigit(static_cast<unsigned char>(kd[end])) || kd[end] == '.'))
      ++end;
    pos = end;
    if (num == std::string::npos || end == num) continue;
    SdpaKernel k;
    k.name = kd.substr(open + 1, close - open - 1);
    k.mean_us = std::strtod(kd.substr(num, end - num).c_str(), nullptr);
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

}  // namespace traceprism::compute
