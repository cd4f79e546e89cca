#include "fusion_estimate.hpp"

#include <traceprism/support.hpp>

#include <algorithm>
#include <map>
#include <tuple>

#include "kernel_classifier.hpp"
#include "name_text.hpp"

namespace traceprism::plugins::fusion {
namespace {

using support::py_round;

constexpr double kMinSavingsMs = 0.1;
constexpr double kTargetHigh = 100, kTargetMid = 87.5, kTargetLow = 75;

bool is_norm_kernel(const EnrichedKernel& k) {
  static const std::string_view kTypes[] = {"LayerNorm", "BatchNorm", "GroupNorm", "InstanceNorm",
                                            "Norm"};
  for (std::string_view t : kTypes)
    if (k.type == t) return true;
  return contains_any(lower(k.name), {"batchnorm", "layernorm", "groupnorm", "instancenorm",
                                      "miopenbatchnorm", "rmsnorm"});
}

// The candidate's kernel time under the rule: measured, or the reference's total.
double candidate_time_us(const FusionCandidate& c, TimeRule rule) {
  return rule == TimeRule::kMeasured ? c.measured_time_us : c.total_kernel_time_us;
}

// Filter (kernel count, 2% of E2E) and dedup by (instances, kernels, time to 0.1 µs), keeping
// the shorter module name.
std::vector<FusionCandidate> filter_and_dedup(const std::vector<FusionCandidate>& candidates,
                                              double baseline_ms, const FusionSettings& settings) {
  std::vector<FusionCandidate> out;
  std::map<std::tuple<int, int, double>, std::size_t> seen;
  for (const FusionCandidate& c : candidates) {
    const double time_us = candidate_time_us(c, settings.time_rule);
    if (c.kernel_count > settings.max_kernel_count) continue;
    if (baseline_ms > 0 && time_us < baseline_ms * 10 * settings.min_impact_percent) continue;
    const auto key = std::make_tuple(c.instance_count, c.kernel_count, py_round(time_us, 1));
    auto it = seen.find(key);
    if (it == seen.end()) {
      seen.emplace(key, out.size());
      out.push_back(c);
    } else if (c.module_name.size() < out[it->second].module_name.size()) {
      out[it->second] = c;
    }
  }
  return out;
}

struct Roofline {
  double peak_bw_bytes_s;
  double vector_tflops;
  double matrix_tflops;
  double overlap_efficiency;
};

// Roofline-projected savings of fusing an elementwise subgroup: the fused kernel reads the
// first modeled kernel's inputs and writes the last one's outputs once.
double roofline_savings_us(const std::vector<const EnrichedKernel*>& group, const Roofline& rf) {
  std::vector<const EnrichedKernel*> modeled;
  for (const EnrichedKernel* k : group)
    if (k->has_perf_data()) modeled.push_back(k);
  if (modeled.empty()) return 0;
  const EnrichedKernel& first = *modeled.front();
  const EnrichedKernel& last = *modeled.back();
  const double in_mb = first.data_in_mb ? *first.data_in_mb : *first.data_moved_mb / 2.0;
  const double out_mb = last.data_out_mb ? *last.data_out_mb : *last.data_moved_mb / 2.0;
  // QUIRK kept: the report's "MB" are MiB, read here as 1e6 bytes.
  const double bytes = (in_mb + out_mb) * 1e6;
  double vector_gflops = 0, matrix_gflops = 0;
  for (const EnrichedKernel* k : modeled) {
    if (!k->gflops || *k->gflops == 0) continue;
    (is_matrix_op(*k) ? matrix_gflops : vector_gflops) += *k->gflops;
  }
  if (bytes <= 0) return 0;
  const double frac = kTargetHigh / 100.0;
  const double memory_us = bytes / (rf.peak_bw_bytes_s * frac) * 1e6;
  const double matrix_us =
      matrix_gflops > 0 ? (matrix_gflops * 1e9) / (rf.matrix_tflops * 1e12 * frac) * 1e6 : 0.0;
  const double vector_us =
      vector_gflops > 0 ? (vector_gflops * 1e9) / (rf.vector_tflops * 1e12 * frac) * 1e6 : 0.0;
  const double optimal = std::max({memory_us, matrix_us, vector_us});
  const double serial = memory_us + matrix_us + vector_us;
  const double fused = optimal + (1.0 - rf.overlap_efficiency) * (serial - optimal);
  double unmodeled = 0, current = 0;
  for (const EnrichedKernel* k : group)
    if (!k->has_perf_data()) unmodeled += k->dur_us;
  for (const EnrichedKernel* k : group) current += k->dur_us;
  return std::max(0.0, current - fused - unmodeled);
}

bool name_has(const std::vector<EnrichedKernel>& ks, std::string_view part) {
  return std::any_of(ks.begin(), ks.end(),
                     [&](const EnrichedKernel& k) { return contains(lower(k.name), part); });
}

ConfidenceSignals confidence_signals(const FusionCandidate& c,
                                     const std::vector<EnrichedKernel>& ks) {
  ConfidenceSignals s;
  const std::string bn = lower(c.base_name), mn = lower(c.module_name);
  struct Hint {
    const char* pattern;
    std::initializer_list<std::string_view> parts;
  };
  static const Hint kHints[] = {
      {"attention", {"attention", "sdpa", "self_attn"}},
      {"norm", {"rmsnorm", "rms_norm", "layernorm", "layer_norm", "batchnorm", "batch_norm"}},
      {"mlp", {"mlp"}},
      {"rope", {"rotary", "rope", "apply_rotary"}},
      {"siglu", {"silu", "swiglu"}}};
  for (const Hint& hint : kHints) {
    const bool hit = std::any_of(hint.parts.begin(), hint.parts.end(), [&](std::string_view h) {
      return contains(bn, h) || contains(mn, h);
    });
    if (hit) {
      s.name = hint.pattern;
      break;
    }
  }
  const auto n_matrix = std::count_if(ks.begin(), ks.end(), is_matrix_op);
  const auto n_other = static_cast<std::ptrdiff_t>(ks.size()) - n_matrix;
  const bool neg_cat = name_has(ks, "neg") && (name_has(ks, "catarray") || name_has(ks, "cat_"));
  if (n_matrix >= 2 && name_has(ks, "softmax"))
    s.composition = "attention";
  else if (name_has(ks, "rsqrt"))  // RMSNorm, LayerNorm and GroupNorm all use rsqrt
    s.composition = "norm";
  else if (n_matrix >= 2 && n_other >= 1)
    s.composition = "mlp";
  else if (neg_cat)
    s.composition = "rope";
  else if (n_matrix == 0 && ks.size() >= 3)
    s.composition = "elementwise_chain";
  return s;
}

struct ImpactScores {
  double low = 0, mid = 0, high = 0;  // % of E2E
};

ImpactScores impact_of(double gap_high, double time_ms, double baseline_ms) {
  const double high = gap_high * time_ms / baseline_ms * 100;
  return {(kTargetLow / kTargetHigh) * high, (kTargetMid / kTargetHigh) * high, high};
}

struct Savings {
  double us = 0;
  bool any_epilogue = false;
};

// What fusing one instance's kernels saves: subgroups split at matrix ops (a matrix op opens a
// new one); a GEMM's elementwise tail is assumed free once fused into it, an elementwise
// subgroup runs at its roofline.
Savings savings_of(const std::vector<EnrichedKernel>& ks, const Roofline& rf) {
  std::vector<std::vector<const EnrichedKernel*>> groups;
  for (const EnrichedKernel& k : ks) {
    if (is_matrix_op(k) && !groups.empty() && !groups.back().empty()) groups.emplace_back();
    if (groups.empty()) groups.emplace_back();
    groups.back().push_back(&k);
  }
  Savings out;
  for (const auto& g : groups) {
    const bool has_matrix =
        std::any_of(g.begin(), g.end(), [](auto* k) { return is_matrix_op(*k); });
    const bool has_other =
        std::any_of(g.begin(), g.end(), [](auto* k) { return !is_matrix_op(*k); });
    if (has_matrix && has_other) {
      out.any_epilogue = true;
      for (const EnrichedKernel* k : g)
        if (!is_matrix_op(*k)) out.us += k->dur_us;
    } else if (!has_matrix) {
      out.us += roofline_savings_us(g, rf);
    }
  }
  return out;
}

EnrichedKernel enriched(std::string name, std::string type, double dur_us,
                        const KernelPerfLookup& lookup, std::optional<std::string_view> dims) {
  EnrichedKernel e{std::move(name), std::move(type), dur_us, {}, {}, {}, {}, {}};
  if (const PerfEntry* perf = lookup.find(e.name, dims)) {
    e.data_moved_mb = perf->data_moved_mb;
    e.gflops = perf->gflops;
    e.compute_spec = perf->compute_spec;
  }
  return e;
}

// The savings summed over the instances, each from its own kernels (their shapes' perf entries
// by kernel name: an instance's Input Dims are not kept).
double instance_savings_us(const FusionCandidate& c, const KernelPerfLookup& lookup,
                           const Roofline& rf) {
  double total = 0;
  for (const auto& instance : c.instance_kernels) {
    std::vector<EnrichedKernel> ks;
    for (const FusionCandidate::InstanceKernel& k : instance)
      ks.push_back(enriched(k.name, classify_kernel(k.name), k.dur_us, lookup, std::nullopt));
    total += savings_of(ks, rf).us;
  }
  return total;
}

std::optional<FusionEstimate> standalone_estimate(const FusionCandidate& c,
                                                  const KernelPerfLookup& lookup,
                                                  const Roofline& rf, double baseline_ms,
                                                  const FusionSettings& settings) {
  if (c.kernels.size() < 2 || c.has_fused_kernel) return std::nullopt;
  std::vector<EnrichedKernel> ks;
  const std::optional<std::string_view> dims =
      c.input_dims ? std::optional<std::string_view>(*c.input_dims) : std::nullopt;
  for (const CandidateKernel& k : c.kernels) {
    EnrichedKernel e = enriched(k.name, k.type, k.dur_us, lookup, dims);
    e.data_in_mb = k.data_in_mb;
    e.data_out_mb = k.data_out_mb;
    ks.push_back(std::move(e));
  }
  const auto modeled = std::count_if(ks.begin(), ks.end(),
                                     [](const EnrichedKernel& k) { return k.has_perf_data(); });
  if (modeled == 0) return std::nullopt;
  if (std::all_of(ks.begin(), ks.end(), is_matrix_op)) return std::nullopt;
  if (std::any_of(ks.begin(), ks.end(),
                  [](const EnrichedKernel& k) { return starts_with(k.name, "triton_"); }))
    return std::nullopt;
  const bool any_matrix = std::any_of(ks.begin(), ks.end(), is_matrix_op);
  if (any_matrix) {
    bool all_norm = true, any_other = false;
    for (const EnrichedKernel& k : ks) {
      if (is_matrix_op(k)) continue;
      any_other = true;
      all_norm = all_norm && is_norm_kernel(k);
    }
    if (any_other && all_norm) return std::nullopt;
  }
  const double modeled_frac = static_cast<double>(modeled) / static_cast<double>(ks.size());
  if (modeled_frac < (ks.size() < 5 ? 0.5 : 0.75)) return std::nullopt;
  double current_us = 0;
  for (const EnrichedKernel& k : ks) current_us += k.dur_us;
  if (current_us <= 0) return std::nullopt;

  const Savings first = savings_of(ks, rf);
  // The reference: the share of the kernels' time fusion saves, from the first instance's
  // kernels, applied to the candidate's time. Measured: where each instance's kernels are
  // known, the savings of each instance over their time (diagnosis.md §6.2).
  const double reference_gap = first.us / current_us;
  double gap_high = reference_gap;
  if (settings.time_rule == TimeRule::kMeasured && !c.instance_kernels.empty() &&
      c.measured_time_us > 0)
    gap_high = std::min(1.0, instance_savings_us(c, lookup, rf) / c.measured_time_us);
  const double reference_ms = current_us * c.instance_count / 1000;
  const double time_ms =
      settings.time_rule == TimeRule::kMeasured ? c.measured_time_us / 1000 : reference_ms;
  if (gap_high * time_ms < kMinSavingsMs) return std::nullopt;
  const ImpactScores impact = impact_of(gap_high, time_ms, baseline_ms);
  if (impact.high < settings.min_impact_percent) return std::nullopt;
  const ImpactScores reference = impact_of(reference_gap, reference_ms, baseline_ms);

  FusionEstimate e;
  e.operation = c.base_name;
  e.impact_score = py_round(impact.mid, 2);
  e.impact_score_low = py_round(impact.low, 2);
  e.impact_score_high = py_round(impact.high, 2);
  e.reference_extrapolated_time_ms = py_round(reference_ms, 3);
  e.reference_impact_score = py_round(reference.mid, 2);
  e.reference_impact_score_low = py_round(reference.low, 2);
  e.reference_impact_score_high = py_round(reference.high, 2);
  e.full_estimation = modeled == static_cast<std::ptrdiff_t>(ks.size());
  e.compute_bound = first.any_epilogue;
  e.matrix_compute = any_matrix;
  e.time_ms = py_round(time_ms, 3);
  e.instance_count = c.instance_count;
  e.kernel_count = static_cast<int>(c.kernels.size());
  e.modeled_kernel_count = static_cast<int>(modeled);
  e.signals = confidence_signals(c, ks);
  e.confidence = e.signals.level();
  const auto unmodeled = static_cast<std::ptrdiff_t>(ks.size()) - modeled;
  if (unmodeled > 0)
    e.warning = std::to_string(unmodeled) + " of " + std::to_string(ks.size()) +
                " kernels lack perf models; savings estimate uses trace time for unmodeled kernels";
  e.kernels = std::move(ks);
  return e;
}

std::optional<FusionEstimate> comparative_estimate(const FusionCandidate& c, double baseline_ms,
                                                   const FusionSettings& settings) {
  const double measured_ms = (c.total_kernel_time_us - c.trace2->total_kernel_time_us) / 1000;
  // Departure (docs/compatibility.md): fusing away trace 1's extra kernels saves at most their
  // time; the rest of the gap is the speed of the kernels both traces run, which the compute
  // tier reports (a 2 µs fill beside a slower attention kernel is not a 1.3 ms fusion gap).
  const double gap_ms = std::min(measured_ms, c.trace2->extra_kernel_time_us / 1000);
  if (gap_ms <= 0 || gap_ms < kMinSavingsMs) return std::nullopt;
  const ImpactScores impact = impact_of(1.0, gap_ms, baseline_ms);
  if (impact.high < settings.min_impact_percent) return std::nullopt;
  FusionEstimate e;
  e.operation = c.base_name;
  e.impact_score = e.reference_impact_score = py_round(impact.mid, 2);
  e.impact_score_low = e.reference_impact_score_low = py_round(impact.low, 2);
  e.impact_score_high = e.reference_impact_score_high = py_round(impact.high, 2);
  e.time_ms = e.reference_extrapolated_time_ms = py_round(c.total_kernel_time_us / 1000, 3);
  e.gap_ms = py_round(gap_ms, 3);
  e.trace2_time_ms = py_round(c.trace2->total_kernel_time_us / 1000, 3);
  e.instance_count = c.instance_count;
  e.kernel_count = e.modeled_kernel_count = static_cast<int>(c.kernels.size());
  e.delta_kernel_count =
      static_cast<int>(c.kernels.size()) - static_cast<int>(c.trace2->kernels.size());
  e.measured_gap = true;
  for (const CandidateKernel& k : c.kernels)
    e.kernels.push_back({k.name, k.type, k.dur_us, {}, {}, {}, {}, {}});
  for (const CandidateKernel& k : c.trace2->kernels)
    e.trace2_kernels.push_back({k.name, k.type, k.dur_us, {}, {}, {}, {}, {}});
  // The kernels have no perf data here: is_matrix_op reads their types (GEMM / CONV).
  e.matrix_compute = e.compute_bound =
      std::any_of(e.kernels.begin(), e.kernels.end(), is_matrix_op);
  e.signals = confidence_signals(c, e.kernels);
  e.confidence = e.signals.level();
  return e;
}

// The candidates that pass the filter and dedup, with the reference's total of their times.
FusionMetrics filtered(const std::vector<FusionCandidate>& candidates, double baseline_ms,
                       const FusionSettings& settings) {
  FusionMetrics m;
  m.candidates = filter_and_dedup(candidates, baseline_ms, settings);
  m.has_data = !m.candidates.empty();
  double total_us = 0;
  for (const FusionCandidate& c : m.candidates) total_us += c.total_kernel_time_us;  // reference
  m.total_time_ms = py_round(total_us / 1000, 3);
  return m;
}

// Impact descending (stable), the totals, and the high-confidence kernel map (§5.6).
void finish(FusionMetrics& m) {
  std::stable_sort(m.estimates.begin(), m.estimates.end(),
                   [](const FusionEstimate& a, const FusionEstimate& b) {
                     return a.impact_score > b.impact_score;
                   });
  double total_impact = 0;
  for (const FusionEstimate& e : m.estimates) {
    total_impact += e.impact_score;
    if (e.warning) m.warnings.push_back(*e.warning);
    if (e.confidence != Confidence::kHigh) continue;
    for (const EnrichedKernel& k : e.kernels) {
      if (k.name.empty()) continue;
      auto it =
          std::find_if(m.high_confidence_kernel_map.begin(), m.high_confidence_kernel_map.end(),
                       [&](const auto& entry) { return entry.first == k.name; });
      if (it == m.high_confidence_kernel_map.end())
        m.high_confidence_kernel_map.emplace_back(k.name, e.operation);
      else
        it->second = e.operation;
    }
  }
  m.total_impact_score = py_round(total_impact, 2);
}

}  // namespace

bool is_matrix_op(const EnrichedKernel& k) {
  static const std::string_view kMatrixSpecs[] = {"matrix_fp16", "matrix_bf16", "matrix_fp32",
                                                  "matrix_fp64", "matrix_fp8",  "matrix_int8"};
  if (k.compute_spec)
    for (std::string_view s : kMatrixSpecs)
      if (*k.compute_spec == s) return true;
  const std::string type = upper(k.type);
  return contains(type, "GEMM") || contains(type, "CONV");
}

FusionMetrics estimate_fusion(const std::vector<FusionCandidate>& candidates,
                              const KernelPerfLookup& lookup, const Peaks& peaks,
                              double baseline_ms, const FusionSettings& settings) {
  FusionMetrics m = filtered(candidates, baseline_ms, settings);
  if (!m.has_data) return m;
  if (baseline_ms > 0) {
    const double matrix = peaks.matrix_bf16_tflops.value_or(1);
    const Roofline rf{peaks.hbm_tbs * 1e12, peaks.vector_bf16_tflops.value_or(matrix), matrix,
                      settings.overlap_efficiency};
    for (std::size_t i = 0; i < m.candidates.size(); ++i) {
      if (auto e = standalone_estimate(m.candidates[i], lookup, rf, baseline_ms, settings)) {
        e->candidate = i;
        m.estimates.push_back(std::move(*e));
      }
    }
  }
  finish(m);
  return m;
}

FusionMetrics estimate_comparative_fusion(const std::vector<FusionCandidate>& candidates,
                                          double baseline_ms, const FusionSettings& settings) {
  FusionMetrics m = filtered(candidates, baseline_ms, settings);
  if (!m.has_data) return m;
  if (baseline_ms > 0)
    for (std::size_t i = 0; i < m.candidates.size(); ++i)
      if (auto e = comparative_estimate(m.candidates[i], baseline_ms, settings)) {
        e->candidate = i;
        m.estimates.push_back(std::move(*e));
      }
  finish(m);
  return m;
}

}  // namespace traceprism::plugins::fusion
