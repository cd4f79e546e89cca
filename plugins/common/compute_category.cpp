#include "compute_category.hpp"

#include <traceprism/support.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include <traceprism/python_literal.hpp>
#include "compute_classify.hpp"
#include "compute_impact.hpp"
#include "compute_row.hpp"

namespace traceprism::plugins::compute {

using support::py_round;

namespace {

// The reference's constants (analysis_utils.py, spec §4).
constexpr double kAnomalyPercent = 110.0;
constexpr std::size_t kCallChainMaxOps = 100;
constexpr std::size_t kKernelNameTruncLen = 75;

// The classifier of the category's script (spec §2.7), as operations[].classification.
Classification classify(Family family, const OpRow& row, bool has_perf_params,
                        std::string_view name) {
  Classification c;
  switch (family) {
    case Family::kGemm:
      c.present = true;
      c.is_quantized = is_quantized_gemm(name);
      break;
    case Family::kSdpa: {
      c.present = true;
      c.is_flash = is_flash_attention(name);
      c.is_paged = is_paged_attention(name, row);
      c.has_perf_model = row.has_perf_model;
      c.attention_type = c.is_paged ? "paged" : c.is_flash ? "flash" : "standard";
      if (c.is_paged && row.kernels) c.kernel_breakdown = kernel_breakdown(*row.kernels);
      if (has_perf_params) c.workload = sdpa_workload(row.perf_params);
      break;
    }
    case Family::kTriton:
      c.present = true;
      c.kernel_type = triton_kernel_type(name);
      break;
    case Family::kGeneric:
      c.present = true;
      c.sub_category = generic_sub_category(name);
      break;
    default:
      break;
  }
  return c;
}

// ---- Efficiency (spec §4.2) ----

void standalone_efficiency(Efficiency& e, const OpRow& row) {
  const std::optional<double> pct = known(row.pct_roofline_mean);
  if (!pct) return;
  e.efficiency_percent = py_round(*pct, 2);
  if (*e.efficiency_percent > kAnomalyPercent) {
    e.warning = "[ANOMALY] Pct Roofline exceeds 110% (" + support::fixed(*e.efficiency_percent, 1) +
                "%) - verify measurement";
    e.is_anomaly = true;
  }
}

// 100 * t2 / t1, floored at trace 1's roofline percent (analysis_utils comparative_efficiency).
void comparative_efficiency(Efficiency& e, const OpRow& row) {
  const std::optional<double> t1 = known(row.kernel_time_sum_us);
  if (!t1 || *t1 <= 0) return;
  std::optional<double> pct;
  if (const std::optional<double> delta = known(row.delta_us)) {
    pct = 100.0 * (*t1 + *delta) / *t1;
  } else if (const std::optional<double> speedup = known(row.speedup)) {
    if (*speedup >= 0) pct = 100.0 * *speedup;
  }
  if (!pct) return;
  const std::optional<double> floor = known(row.pct_roofline_mean);
  const bool clamped = floor && *pct < *floor;
  if (clamped) pct = floor;
  e.efficiency_percent = py_round(*pct, 2);
  e.is_anomaly = false;
  e.warning = clamped ? "[ROOFLINE CAP] Projected efficiency clamped to roofline (" +
                            support::fixed(*e.efficiency_percent, 1) +
                            "%); trace2 gap exceeds trace1 hardware ceiling."
                      : "";
}

Efficiency efficiency_of(const OpRow& row, const Peaks& peaks, Scope scope) {
  Efficiency e;
  const std::optional<double> fpb = known(row.flops_per_byte);
  if (fpb && *fpb != 0) e.flops_per_byte = py_round(*fpb, 2);
  if (const std::optional<double> t = known(row.tflops_per_s_mean))
    e.tflops_achieved = py_round(*t, 2);
  if (const std::optional<double> b = known(row.tb_per_s_mean)) e.tb_s_achieved = py_round(*b, 2);
  e.compute_spec = row.compute_spec;
  const std::optional<double> maf = peaks.tflops_for(e.compute_spec);
  if (maf && *maf != 0) e.resolved_peak_maf = py_round(*maf, 2);
  // The host's roofline falls back to matrix_bf16 for a matrix spec the platform lacks.
  e.fallback_peak = !e.compute_spec.empty() && peaks.tflops.count(e.compute_spec) == 0 &&
                    e.compute_spec.rfind("matrix_", 0) == 0;
  if (peaks.hbm_tbs && *peaks.hbm_tbs != 0) e.resolved_peak_hbm_bw = py_round(*peaks.hbm_tbs, 2);
  const std::string_view bound = row.roofline_bound;
  if (bound == "COMPUTE_BOUND") e.bound_type = "compute";
  if (bound == "MEMORY_BOUND") e.bound_type = "memory";
  if (scope == Scope::kComparative)
    comparative_efficiency(e, row);
  else
    standalone_efficiency(e, row);
  return e;
}

// ---- Call stack (analysis_utils _extract_module_chain / _call_chain / _kernel_names) ----

const std::initializer_list<std::string_view> kCallChainSkip = {
    "torch/nn/modules/module.py", "torch/utils/_device.py",
    "torch/overrides.py",         "torch/_ops.py",
    "multiprocessing/spawn.py",   "torch/_dynamo/eval_frame.py",
    "torch/_functorch/",          "torch/autograd/function.py",
    "torch/_inductor/",           "torch/cuda/graphs.py",
    "torch/utils/_contextlib.py"};

std::vector<std::string> string_frames(const std::optional<PyValue>& stack) {
  std::vector<std::string> out;
  if (!stack || stack->type != PyValue::Type::kList) return out;
  for (const PyValue& f : stack->items) {
    if (f.is_string()) out.push_back(f.text);
  }
  return out;
}

std::vector<std::string> module_chain(const std::vector<std::string>& frames) {
  std::vector<std::string> out;
  for (const std::string& f : frames) {
    if (starts_with(f, "nn.Module: ")) out.push_back(f.substr(11));
  }
  return out;
}

std::vector<std::string> call_chain(const std::vector<std::string>& frames) {
  std::vector<std::string> out;
  for (const std::string& f : frames) {
    if (contains_any(f, kCallChainSkip)) continue;
    if (starts_with(f, "nn.Module:") || contains(f, ".py") || contains(f, "::")) out.push_back(f);
  }
  return out;
}

// Flat list: the last element is the kernel; with sub-lists, the last element of each.
std::vector<std::string> stack_kernels(const std::optional<PyValue>& stack) {
  std::vector<std::string> out;
  if (!stack || stack->type != PyValue::Type::kList || stack->items.empty()) return out;
  bool any_list = false;
  for (const PyValue& f : stack->items) {
    if (f.type != PyValue::Type::kList) continue;
    any_list = true;
    if (!f.items.empty() && f.items.back().is_string()) out.push_back(f.items.back().text);
  }
  if (!any_list && stack->items.back().is_string() && !stack->items.back().text.empty())
    out.push_back(stack->items.back().text);
  return out;
}

std::string truncated(const std::string& name) {
  return name.size() > kKernelNameTruncLen ? name.substr(0, kKernelNameTruncLen) + "..." : name;
}

void set_kernel_names(Operation& op, const std::vector<std::string>& kernels) {
  if (kernels.size() == 1) {
    op.kernel_name = kernels.front();
    op.kernel_name_trunc = truncated(kernels.front());
    return;
  }
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const std::string label =
        (i ? "<br>" : "") + std::string("Kernel ") + std::to_string(i + 1) + ": ";
    op.kernel_name += label + kernels[i];
    op.kernel_name_trunc += label + truncated(kernels[i]);
  }
}

std::optional<std::string> fusion_match(
    const std::vector<std::string>& kernels,
    const std::map<std::string, std::string, std::less<>>& map) {
  for (const std::string& k : kernels) {
    if (auto it = map.find(k); it != map.end()) return it->second;
    for (const auto& [fk, candidate] : map) {
      if (starts_with(fk, k) || starts_with(k, fk)) return candidate;
    }
  }
  return std::nullopt;
}

void set_call_stack_fields(Operation& op, const OpRow& row) {
  const std::optional<PyValue> stack = parse_python_literal(row.call_stack_full);
  const std::vector<std::string> frames = string_frames(stack);
  op.module_chain = module_chain(frames);
  op.call_chain = call_chain(frames);
  set_kernel_names(op, stack_kernels(stack));
  op.kernels = stack_kernels(stack);
  if (op.kernels.empty()) op.kernels = row.kernel_names();
  if (row.kernels) {
    std::vector<KernelEntry> entries = *row.kernels;
    std::stable_sort(
        entries.begin(), entries.end(), [](const KernelEntry& a, const KernelEntry& b) {
          return a.mean_us > b.mean_us;  // NaN compares false: those keep their place at the end
        });
    for (const KernelEntry& e : entries) op.kernels_by_time.push_back(e.name);
  }
}

// entry_point, else the first three modules, else "<library> (vendor)", else "Not found".
std::string launcher_path(const OpRow& row, const Operation& op) {
  std::string launcher(row.entry_point);
  if (!launcher.empty() && launcher != "Not found") return launcher;
  if (!op.module_chain.empty()) {
    std::string out;
    for (std::size_t i = 0; i < op.module_chain.size() && i < 3; ++i)
      out += (i ? " > " : "") + op.module_chain[i];
    return out;
  }
  if (op.library) return *op.library + " (vendor)";
  return "Not found";
}

void set_variance(Operation& op, const OpRow& row, double time_ms_raw, double e2e_ms) {
  const double e2e_frac = e2e_ms > 0 ? time_ms_raw / e2e_ms : 1.0;
  if (op.count <= 10 || e2e_frac < 0.05) return;
  const std::optional<double> std_us = known(row.kernel_time_std_us);
  const std::optional<double> mean_us = known(row.kernel_time_mean_us);
  if (!std_us || !mean_us || *mean_us <= 0) return;
  op.cov = py_round(*std_us / *mean_us, 3);
  op.high_variance = *op.cov > 1.0;
}

void set_comparative_fields(Operation& op, const OpRow& row) {
  if (auto t2 = known(row.t2_kernel_time_us)) op.t2_time_ms = py_round(*t2 / 1000, 3);
  if (auto n = known(row.count_trace2)) op.count_trace2 = static_cast<std::int64_t>(*n);
  if (auto d = known(row.delta_us)) op.difference_ms = py_round(*d / 1000, 3);
}

struct CategoryTotals {
  double time_ms = 0;  // unrounded
  double e2e_ms = 0;
};

Operation build_operation(const Inputs& in, Family family, std::size_t r,
                          const CategoryTotals& totals) {
  const OpRow& row = in.ops->rows[r];
  Operation op;
  op.sheet_row = r;
  op.ex_uid = row.ex_uid;
  op.name = row.name;
  const std::optional<double> count = known(in.ops->has_count ? row.count : row.operation_count);
  op.count = count ? static_cast<std::int64_t>(*count) : 1;
  const double time_raw = known(row.kernel_time_sum_us).value_or(0) / 1000;
  op.time_ms = py_round(time_raw, 3);
  op.percent_of_category = totals.time_ms > 0 ? py_round(time_raw / totals.time_ms * 100, 2) : 0;
  if (totals.e2e_ms > 0) op.percent_of_total = py_round(time_raw / totals.e2e_ms * 100, 2);
  op.efficiency = efficiency_of(row, in.peaks, in.scope);
  op.input_dims = row.input_dims;
  op.input_type = row.input_type;
  op.perf_params = row.perf_params;
  op.has_perf_model = row.has_perf_model;
  op.args = render_shape_args(op.input_dims, op.input_type);
  if (in.scope == Scope::kComparative) set_comparative_fields(op, row);
  set_variance(op, row, time_raw, totals.e2e_ms);
  op.classification = classify(family, row, in.ops->has_perf_params, op.name);
  op.library = library_of(op.name, row);
  if (!in.fusion_kernel_map.empty() && row.kernels) {
    if (auto candidate = fusion_match(row.kernel_names(), in.fusion_kernel_map)) {
      op.fusion_flagged = true;
      op.fusion_candidate_name = *candidate;
    }
  }
  set_call_stack_fields(op, row);
  op.launcher_path = launcher_path(row, op);
  return op;
}

// ---- Rows of a category ----

std::vector<std::size_t> category_rows(const OpTable& sheet, std::string_view category) {
  std::vector<std::size_t> rows;
  for (std::size_t r = 0; r < sheet.rows.size(); ++r) {
    if (category_key(sheet.rows[r].op_category) == category) rows.push_back(r);
  }
  return rows;
}

// other_analysis.py strips communication ops from the "other" bucket only.
std::vector<std::size_t> strip_communication(const OpTable& sheet,
                                             const std::vector<std::size_t>& rows,
                                             std::vector<std::string>& skipped) {
  std::vector<std::size_t> kept;
  for (std::size_t r : rows) {
    const std::string_view name = sheet.rows[r].name;
    if (generic_sub_category(name) == "communication")
      skipped.emplace_back(name);
    else
      kept.push_back(r);
  }
  return kept;
}

std::vector<double> kernel_times_us(const OpTable& sheet, const std::vector<std::size_t>& rows) {
  std::vector<double> out;
  for (std::size_t r : rows) out.push_back(sheet.rows[r].kernel_time_sum_us);
  return out;
}

// pandas nlargest on the kernel time: descending, ties in sheet order, NaN last.
std::vector<std::size_t> by_kernel_time(const OpTable& sheet, std::vector<std::size_t> rows) {
  auto key = [&](std::size_t r) {
    const double v = sheet.rows[r].kernel_time_sum_us;
    return std::isnan(v) ? -std::numeric_limits<double>::infinity() : v;
  };
  std::stable_sort(rows.begin(), rows.end(),
                   [&](std::size_t a, std::size_t b) { return key(a) > key(b); });
  return rows;
}

// pandas Series.sum skips NaN; np.sum of the rest.
double nan_sum(std::vector<double> values) {
  values.erase(std::remove_if(values.begin(), values.end(), [](double v) { return std::isnan(v); }),
               values.end());
  return pairwise_sum(values);
}

void set_time_metrics(CategoryMetrics& m, const OpTable& sheet,
                      const std::vector<std::size_t>& rows, double e2e_ms, CategoryTotals& totals) {
  totals.time_ms = nan_sum(kernel_times_us(sheet, rows)) / 1000;
  totals.e2e_ms = e2e_ms;
  m.total_time_ms = py_round(totals.time_ms, 3);
  m.percent_of_compute = e2e_ms > 0 ? py_round(totals.time_ms / e2e_ms * 100, 2) : 0;
  if (sheet.has_operation_count) {
    std::vector<double> counts;
    for (std::size_t r : rows) counts.push_back(sheet.rows[r].operation_count);
    m.operation_count = static_cast<std::int64_t>(nan_sum(counts));
  } else {
    m.operation_count = static_cast<std::int64_t>(rows.size());
  }
}

// ---- category_specific (spec §4.4) ----

using Specific = std::vector<std::pair<std::string, std::optional<double>>>;

void add_peaks(Specific& s, const Peaks& peaks) {
  const auto bf16 = peaks.tflops.find("matrix_bf16");
  s.emplace_back("peak_maf_tflops",
                 bf16 == peaks.tflops.end() ? std::nullopt : std::optional<double>(bf16->second));
  s.emplace_back("peak_hbm_bw_tbs", peaks.hbm_tbs);
}

void gemm_specific(Specific& s, const OpTable& sheet, const std::vector<std::size_t>& rows) {
  double quantized = 0, missing = 0;
  for (std::size_t r : rows) {
    quantized += is_quantized_gemm(sheet.rows[r].name);
    if (sheet.has_tflops && std::isnan(sheet.rows[r].tflops_per_s_mean)) ++missing;
  }
  s.emplace_back("quantized_count", quantized);
  s.emplace_back("missing_perf_model_count", missing);
}

void sdpa_breakdown_specific(Specific& s, const OpTable& sheet,
                             const std::vector<std::size_t>& rows) {
  double reshape = 0, fwd = 0, paged = 0, n = 0;
  for (std::size_t r : rows) {
    const OpRow& row = sheet.rows[r];
    if (!is_paged_attention(row.name, row) || !row.kernels) continue;
    const std::vector<SdpaKernel> kernels = kernel_breakdown(*row.kernels);
    if (kernels.empty()) continue;
    ++n;
    for (const SdpaKernel& k : kernels) {
      const double p = k.percent.value_or(0);
      if (k.kernel_type == "reshape_cache") reshape += p;
      if (k.kernel_type == "fwd_kernel") fwd += p;
      if (k.kernel_type == "paged_attention") paged += p;
    }
  }
  if (n == 0) return;
  s.emplace_back("kernel_breakdown_avg.avg_reshape_cache_percent", py_round(reshape / n, 2));
  s.emplace_back("kernel_breakdown_avg.avg_fwd_kernel_percent", py_round(fwd / n, 2));
  s.emplace_back("kernel_breakdown_avg.avg_paged_attention_percent", py_round(paged / n, 2));
}

void sdpa_workload_specific(Specific& s, const OpTable& sheet,
                            const std::vector<std::size_t>& rows) {
  if (!sheet.has_perf_params) return;
  double ctx = 0, gen = 0;
  for (std::size_t r : rows) {
    const SdpaWorkload w = sdpa_workload(sheet.rows[r].perf_params);
    ctx += w.sum_ctx_tokens;
    gen += w.sum_gen_tokens;
  }
  if (ctx + gen <= 0) return;
  const double ratio = ctx / (ctx + gen);
  s.emplace_back("workload_profile.total_ctx_tokens", ctx);
  s.emplace_back("workload_profile.total_gen_tokens", gen);
  s.emplace_back("workload_profile.ctx_ratio", py_round(ratio, 3));
  // profile_type as a number would be meaningless; prose reads it from ctx_ratio.
}

void sdpa_specific(Specific& s, const OpTable& sheet, const std::vector<std::size_t>& rows,
                   const Peaks& peaks) {
  double flash = 0, paged = 0, with_model = 0;
  for (std::size_t r : rows) {
    const OpRow& row = sheet.rows[r];
    flash += is_flash_attention(row.name);
    paged += is_paged_attention(row.name, row);
    with_model += row.has_perf_model;
  }
  s.emplace_back("flash_attention_count", flash);
  s.emplace_back("paged_attention_count", paged);
  s.emplace_back("has_perf_model_count", with_model);
  s.emplace_back("flash_attention_detected", flash > 0 ? 1.0 : 0.0);
  s.emplace_back("paged_attention_detected", paged > 0 ? 1.0 : 0.0);
  add_peaks(s, peaks);
  sdpa_breakdown_specific(s, sheet, rows);
  sdpa_workload_specific(s, sheet, rows);
}

void conv_specific(Specific& s, const OpTable& sheet, const std::vector<std::size_t>& rows,
                   const CategoryTotals& totals) {
  std::vector<std::size_t> transposes;
  for (std::size_t r : rows) {
    if (contains(lower(sheet.rows[r].name), "transpose")) transposes.push_back(r);
  }
  const double t_ms = transposes.empty() ? 0 : nan_sum(kernel_times_us(sheet, transposes)) / 1000;
  s.emplace_back("transpose_count", static_cast<double>(transposes.size()));
  s.emplace_back("transpose_time_ms", py_round(t_ms, 3));
  s.emplace_back("transpose_overhead_percent",
                 py_round(totals.time_ms > 0 ? t_ms / totals.time_ms * 100 : 0, 2));
}

void triton_specific(Specific& s, const OpTable& sheet, const std::vector<std::size_t>& rows) {
  double counts[4] = {0, 0, 0, 0};
  const char* kinds[4] = {"pointwise", "reduction", "persistent", "other"};
  for (std::size_t r : rows) {
    const std::string kind = triton_kernel_type(sheet.rows[r].name);
    for (int k = 0; k < 4; ++k) counts[k] += kind == kinds[k];
  }
  for (int k = 0; k < 4; ++k) s.emplace_back(std::string(kinds[k]) + "_count", counts[k]);
}

void generic_specific(Specific& s, const OpTable& sheet, const std::vector<std::size_t>& rows) {
  double graph = 0;
  for (std::size_t r : rows) graph += generic_sub_category(sheet.rows[r].name) == "graph";
  s.emplace_back("communication_count", 0.0);
  s.emplace_back("graph_count", graph);
  s.emplace_back("miscellaneous_count", static_cast<double>(rows.size()) - graph);
}

Specific category_specific(Family family, const OpTable& sheet,
                           const std::vector<std::size_t>& rows, const Peaks& peaks,
                           const CategoryTotals& totals) {
  Specific s;
  switch (family) {
    case Family::kGemm:
      gemm_specific(s, sheet, rows);
      add_peaks(s, peaks);
      break;
    case Family::kSdpa:
      sdpa_specific(s, sheet, rows, peaks);
      break;
    case Family::kElementwise:
    case Family::kNorm:
      s.emplace_back("peak_hbm_bw_tbs", peaks.hbm_tbs);
      break;
    case Family::kReduce: {
      double softmax = 0;
      for (std::size_t r : rows) softmax += contains(lower(sheet.rows[r].name), "softmax");
      s.emplace_back("softmax_count", softmax);
      s.emplace_back("peak_hbm_bw_tbs", peaks.hbm_tbs);
      break;
    }
    case Family::kTriton:
      triton_specific(s, sheet, rows);
      add_peaks(s, peaks);
      break;
    case Family::kConv:
      conv_specific(s, sheet, rows, totals);
      add_peaks(s, peaks);
      break;
    case Family::kMoe:
      add_peaks(s, peaks);
      break;
    case Family::kGeneric:
      generic_specific(s, sheet, rows);
      add_peaks(s, peaks);
      break;
  }
  return s;
}

}  // namespace

// ---- Public ----

std::string category_key(std::string_view op_category) {
  if (op_category.empty() || op_category == "nan") return "other";
  std::string out = lower(op_category);
  for (char& c : out) {
    if (c == ' ' || c == '/') c = '_';
  }
  return out;
}

Family family_of(std::string_view c) {
  if (c == "gemm" || c == "groupedgemm_fwd" || c == "groupedgemm_bwd") return Family::kGemm;
  if (c == "moe_fused" || c == "moe_unfused") return Family::kMoe;
  if (c == "sdpa_fwd" || c == "sdpa_bwd" || c == "inferenceattention") return Family::kSdpa;
  if (c == "elementwise") return Family::kElementwise;
  if (c == "reduce") return Family::kReduce;
  if (c == "triton") return Family::kTriton;
  if (c == "norm" || c == "norm_fwd" || c == "norm_bwd" || c == "rmsnorm") return Family::kNorm;
  if (c == "convolution" || c == "conv_fwd" || c == "conv_bwd") return Family::kConv;
  return Family::kGeneric;
}

std::optional<double> Peaks::tflops_for(std::string_view spec) const {
  if (auto it = tflops.find(spec); !spec.empty() && it != tflops.end()) return it->second;
  if (auto it = tflops.find("matrix_bf16"); it != tflops.end()) return it->second;
  return std::nullopt;
}

std::vector<std::pair<std::string, std::string>> categories_of(const OpTable& unified) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const OpRow& row : unified.rows) {
    const std::string_view raw = row.op_category;
    const std::string key = category_key(raw);
    const bool seen =
        std::any_of(out.begin(), out.end(), [&](const auto& c) { return c.first == key; });
    if (!seen) out.emplace_back(key, raw.empty() ? std::string("Other") : std::string(raw));
  }
  return out;
}

CategoryMetrics analyze_category(const Inputs& in, std::string_view category,
                                 std::string_view display_name) {
  const OpTable& sheet = *in.ops;
  CategoryMetrics m;
  m.category = std::string(category);
  m.display_name = std::string(display_name);
  m.peaks = in.peaks;
  m.graph_launches = in.graph_launches;
  m.family = family_of(category);
  m.scope = in.scope;
  std::vector<std::size_t> rows = category_rows(sheet, category);
  if (m.category == "other") rows = strip_communication(sheet, rows, m.skipped_communication_ops);
  CategoryTotals totals;
  set_time_metrics(m, sheet, rows, in.e2e_ms, totals);
  for (std::size_t r : by_kernel_time(sheet, rows))
    m.operations.push_back(build_operation(in, m.family, r, totals));
  if (m.operations.size() > kCallChainMaxOps) {
    for (Operation& op : m.operations) op.call_chain.clear();
  }
  m.specific = category_specific(m.family, sheet, rows, in.peaks, totals);
  // Without roofline columns (no platform peaks) a modelled op's efficiency is unknown, not
  // unmodelled: only ops without a perf model may take the heuristic path then.
  const bool roofline_known = sheet.has_pct_roofline;
  if (in.compute_impact)
    m.estimates = impact_estimates(m, in.e2e_ms, in.thresholds, roofline_known);
  m.findings = category_findings(m.estimates, in.scope, in.thresholds.min_finding_impact);
  return m;
}

namespace {

// §2.6 with `mentions(marker)` standing for a search of the kernel details.
template <class Mentions>
std::optional<std::string> library_by(std::string_view op_name, const Mentions& mentions) {
  static const std::pair<const char*, const char*> kByOpName[] = {{"aiter::", "AITER"},
                                                                  {"rocm_aiter", "AITER"},
                                                                  {"fbgemm", "FBGEMM"},
                                                                  {"miopen", "MIOpen"},
                                                                  {"triton", "Triton"}};
  static const std::pair<const char*, const char*> kByKernel[] = {
      {"aiter", "AITER"},
      {"ck_tile::", "CK"},
      {"ck_tile6kentry", "CK"},
      {"FmhaFwd", "CK"},
      {"FmhaBwd", "CK"},
      {"Cijk_", "Tensile"},
      {"wvSplitK", "rocBLAS"},
      {"splitKreduce", "rocBLAS"},
      {"rocprim::", "rocPRIM"},
      {"triton_", "Triton"},
      {"void at::native::", "PyTorch Native"}};
  const std::string name = lower(op_name);
  for (const auto& [marker, lib] : kByOpName) {
    if (contains(name, marker)) return std::string(lib);
  }
  for (const auto& [marker, lib] : kByKernel) {
    if (mentions(marker)) return std::string(lib);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> library_of(std::string_view op_name, std::string_view kernel_details) {
  return library_by(op_name, [&](const char* marker) { return contains(kernel_details, marker); });
}

std::optional<std::string> library_of(std::string_view op_name, const OpRow& row) {
  return library_by(op_name, [&](const char* marker) { return row.kernels_mention(marker); });
}

bool OpRow::kernels_mention(std::string_view part, bool lowercase) const {
  if (!kernels) return false;
  auto has = [&](std::string_view text) {
    return lowercase ? contains(lower(text), part) : contains(text, part);
  };
  for (const KernelEntry& k : *kernels) {
    if (has(k.name)) return true;
    for (const auto& [key, value] : k.extras)
      if (has(value)) return true;
  }
  return false;
}

std::vector<std::string> OpRow::kernel_names() const {
  std::vector<std::string> out;
  if (kernels)
    for (const KernelEntry& k : *kernels) out.push_back(k.name);
  return out;
}

// numpy's pairwise_sum (8-way unrolled blocks of up to 128, halves above), started from the
// add identity as np.add.reduce does.
double pairwise_sum(const std::vector<double>& values) {
  struct Local {
    static double sum(const double* a, std::size_t n) {
      if (n < 8) {
        double res = 0.;
        for (std::size_t i = 0; i < n; ++i) res += a[i];
        return res;
      }
      if (n <= 128) {
        double r[8];
        for (int j = 0; j < 8; ++j) r[j] = a[j];
        std::size_t i = 8;
        for (; i < n - (n % 8); i += 8) {
          for (int j = 0; j < 8; ++j) r[j] += a[i + j];
        }
        double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; ++i) res += a[i];
        return res;
      }
      std::size_t n2 = n / 2;
      n2 -= n2 % 8;
      return sum(a, n2) + sum(a + n2, n - n2);
    }
  };
  return 0.0 + Local::sum(values.data(), values.size());
}

}  // namespace traceprism::plugins::compute
