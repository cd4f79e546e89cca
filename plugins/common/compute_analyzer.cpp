#include "compute_analyzer.hpp"

#include <traceprism/roofline.hpp>
#include <traceprism/support.hpp>

#include <algorithm>
#include <cstdio>
#include <set>

#include "compute_classify.hpp"
#include "compute_prose.hpp"

namespace traceprism::plugins::compute {
namespace {

Peaks peaks_of(const Context& ctx, const OpTable& unified) {
  // FP8 and FP4 too: the advice names a narrower precision only where the platform has it.
  std::set<std::string> specs = {"matrix_bf16", "matrix_fp8", "matrix_fp4"};
  for (const OpRow& row : unified.rows) {
    if (!row.compute_spec.empty()) specs.emplace(row.compute_spec);
  }
  Peaks p;
  for (const std::string& spec : specs) {
    if (auto v = roofline_tflops(ctx, spec)) p.tflops[spec] = *v;
  }
  if (auto bw = roofline_hbm_gbps(ctx)) p.hbm_tbs = *bw / 1000;
  return p;
}

Severity severity_of(const CategoryFinding& f) {
  if (f.heuristic) return Severity::kWarning;
  if (f.impact >= 10) return Severity::kCritical;
  return f.impact >= 1 ? Severity::kWarning : Severity::kInfo;
}

// Evidence: each member op's example event (ex_UID is the event's row). Synthetic ops have
// UIDs past the last event and no event of their own, so they give none.
std::vector<Row> evidence_of(const Context& ctx, const CategoryMetrics& m,
                             const CategoryFinding& f) {
  const std::size_t events = ctx.events().size();
  std::vector<Row> rows;
  for (const ImpactEstimate& e : f.members) {
    const std::optional<std::int64_t>& uid = m.operations[e.op].ex_uid;
    if (uid && *uid >= 0 && static_cast<std::size_t>(*uid) < events)
      rows.push_back(static_cast<Row>(*uid));
  }
  return rows;
}

// Every GPU event of the finding's ops (ABI 1.7), for the host's one-finding-per-kernel rule.
std::vector<Row> kernels_of(const OpMetrics& metrics, const CategoryMetrics& m,
                            const CategoryFinding& f) {
  std::vector<Row> rows;
  for (const ImpactEstimate& e : f.members) {
    const std::size_t row = m.operations[e.op].sheet_row;
    if (row >= metrics.size()) continue;
    for (Row g : metrics.gpu_events(row)) rows.push_back(g);
  }
  return rows;
}

void add_efficiency_range(FindingBuilder& b, const CategoryFinding& f) {
  std::optional<double> lo, hi;
  for (const ImpactEstimate& e : f.members) {
    if (!e.efficiency_pct) continue;
    lo = lo ? std::min(*lo, *e.efficiency_pct) : *e.efficiency_pct;
    hi = hi ? std::max(*hi, *e.efficiency_pct) : *e.efficiency_pct;
  }
  if (lo) b.metric("efficiency_min_percent", *lo).metric("efficiency_max_percent", *hi);
}

void emit_finding(Context& ctx, const OpMetrics& metrics, const CategoryMetrics& m,
                  const CategoryFinding& f) {
  const FindingText text = finding_text(m, f);
  double time_ms = 0, share = 0;
  for (const ImpactEstimate& e : f.members) {
    time_ms += e.time_ms;
    share += m.operations[e.op].percent_of_total.value_or(0);
  }
  FindingBuilder b = ctx.report(Tier::kCompute, m.category, text.title);
  b.key(finding_key(m, f))
      .severity(severity_of(f))
      .insight(text.insight)
      .action(text.action)
      .identification(text.identification)
      .reasoning(text.reasoning)
      .resolution(text.resolution)
      .library(f.library)
      .impact(f.low, f.impact, f.high, f.heuristic)
      .cause(f.heuristic ? "unmodeled" : "roofline")
      .share_percent(support::py_round(share, 2))
      .evidence_rows(evidence_of(ctx, m, f))
      .kernel_rows(kernels_of(metrics, m, f))
      .metric("category_rank", f.rank)
      .metric("member_count", static_cast<double>(f.members.size()))
      .metric("time_ms", support::py_round(time_ms, 3))
      .metric("percent_of_total", support::py_round(share, 2))
      .table(data_table(m, f));
  add_efficiency_range(b, f);
  if (!b.emit()) ctx.warn("finding " + finding_key(m, f) + " was refused by the host");
}

// Figures of a category (findings.json figures.<analyzer>), recorded whether or not it has
// findings: the reference's <cat>_metrics.json totals and category_specific, and the
// priority_data.json rollup of its quantified findings.
void record_figures(Context& ctx, const CategoryMetrics& m) {
  const std::string p = m.category + ".";
  ctx.record(p + "total_time_ms", m.total_time_ms);
  ctx.record(p + "percent_of_compute", m.percent_of_compute);
  ctx.record(p + "operation_count", static_cast<double>(m.operation_count));
  ctx.record(p + "ops", static_cast<double>(m.operations.size()));
  ctx.record(p + "impact_estimates", static_cast<double>(m.estimates.size()));
  ctx.record(p + "findings", static_cast<double>(m.findings.size()));
  double high_variance = 0;
  for (const Operation& op : m.operations) high_variance += op.high_variance;
  ctx.record(p + "high_variance_ops", high_variance);
  const Rollup r = quantified_rollup(m);
  if (r.any) {
    ctx.record(p + "impact_score", r.impact);
    ctx.record(p + "impact_score_low", r.low);
    ctx.record(p + "impact_score_high", r.high);
  }
  for (const auto& [key, value] : m.specific) {
    if (value) ctx.record(p + "category_specific." + key, *value);
  }
  if (!m.skipped_communication_ops.empty()) {
    // other_analysis.py leaves collectives to the communication analysis; say which.
    ctx.record(p + "communication_ops_skipped",
               static_cast<double>(m.skipped_communication_ops.size()));
    std::string names;
    for (const std::string& n : m.skipped_communication_ops)
      names += (names.empty() ? "" : ", ") + n;
    ctx.info("communication ops left to the communication analysis: " + names);
  }
}

// Fusion feedback (spec §5.6): kernel name → high-confidence fusion candidate, as the
// kernel-fusion analyzer published it; empty when that analyzer is not loaded or found none.
// Covered ops get no estimate, so their time is not counted in two tiers.
std::map<std::string, std::string, std::less<>> fusion_kernel_map(const Context& ctx) {
  std::map<std::string, std::string, std::less<>> map;
  const std::optional<Sheet> product = ctx.product(kFusionKernelMapProduct);
  if (!product || !product->has("kernel_name") || !product->has("operation")) return map;
  for (std::size_t r = 0; r < product->row_count(); ++r)
    map.emplace(std::string(product->cell(r, "kernel_name")),
                std::string(product->cell(r, "operation")));
  return map;
}

bool is_copy_kernel(std::string_view name) {
  return starts_with(name, "Memcpy ") || starts_with(name, "Memset ") ||
         starts_with(name, "MEMORY_COPY_") || starts_with(name, "__amd_rocclr_copyBuffer");
}

// A finding whose ops run only copies and memsets (aten::copy_ of a host tensor, .to(device)):
// copy traffic is judged against the link that carries it by the memcpy analyzer, never as
// compute against the HBM roofline (diagnosis.md §5). The category's figures keep the ops
// (reference parity); only the finding is left out.
bool about_copies_only(const CategoryMetrics& m, const CategoryFinding& f) {
  if (f.members.empty()) return false;
  return std::all_of(f.members.begin(), f.members.end(), [&](const ImpactEstimate& e) {
    const std::vector<std::string>& kernels = m.operations[e.op].kernels;
    return !kernels.empty() && std::all_of(kernels.begin(), kernels.end(),
                                           [](const auto& k) { return is_copy_kernel(k); });
  });
}

// cudaGraphLaunch / hipGraphLaunch calls, which replay kernels the trace shows under no op.
std::uint64_t graph_launches(Context& ctx) {
  const EventView ev = ctx.events();
  std::uint64_t n = 0;
  for (Kind kind : {Kind::kRuntime, Kind::kDriver})
    for (Row r : ctx.rows(kind))
      if (ev.name(r).find("GraphLaunch") != std::string_view::npos) ++n;
  return n;
}

}  // namespace

OpTable op_table_of(const OpMetrics& m) {
  OpTable t;
  t.has_pct_roofline = m.has_roofline_columns();
  t.has_tflops = m.has_model_columns();
  t.rows.resize(m.size());
  for (std::size_t i = 0; i < m.size(); ++i) {
    OpRow& r = t.rows[i];
    r.name = std::string(m.name(i));
    r.op_category = std::string(m.op_category(i));
    r.input_dims = std::string(m.input_dims(i).value_or(""));
    r.input_type = std::string(m.input_type(i).value_or(""));
    r.perf_params = std::string(m.perf_params(i).value_or(""));
    r.compute_spec = std::string(m.compute_spec(i).value_or(""));
    r.roofline_bound = m.bound(i) == Bound::kCompute  ? "COMPUTE_BOUND"
                       : m.bound(i) == Bound::kMemory ? "MEMORY_BOUND"
                                                      : "";
    r.has_perf_model = m.has_perf_model(i);
    r.ex_uid = static_cast<std::int64_t>(m.ex_uid(i));
    r.operation_count = static_cast<double>(m.operation_count(i));
    r.kernel_time_sum_us = m.kernel_time_sum_us(i);
    r.kernel_time_mean_us = m.kernel_time_us(i).mean;
    r.kernel_time_std_us = m.kernel_time_us(i).std;
    r.flops_per_byte = m.flops_per_byte(i);
    r.tflops_per_s_mean = m.tflops_per_s(i).mean;
    r.tb_per_s_mean = m.tb_per_s(i).mean;
    r.pct_roofline_mean = m.pct_roofline(i).mean;
    // Trace 1 of a comparison (ABI 1.8): trace 2's time of the same ops, from TraceDiff.
    r.t2_kernel_time_us = m.lca_time_trace2_us(i);
    r.count_trace2 = m.lca_count_trace2(i);
    r.delta_us = m.delta_us(i);
    r.speedup = m.speedup(i);
    // ABI 1.10: where the op is called from, when the host computed call stacks.
    r.entry_point = std::string(m.entry_point(i).value_or(""));
    r.call_stack_full = std::string(m.call_stack_full(i).value_or(""));
    const OpKernels kernels = m.kernels(i);
    r.kernels.emplace();
    for (std::size_t j = 0; j < kernels.size(); ++j) {
      const OpKernel k = kernels[j];
      KernelEntry& e = r.kernels->emplace_back();
      e.name = std::string(k.name());
      e.mean_us = k.mean_us();
      for (std::size_t x = 0; x < k.extra_count(); ++x)
        e.extras.emplace_back(std::string(k.extra_key(x)), std::string(k.extra_value(x)));
    }
  }
  return t;
}

ComputeSettings compute_settings(const Context& ctx, bool quantify_by_default) {
  ComputeSettings s;
  s.thresholds.min_finding_impact =
      ctx.declared_option<double>("MinFindingImpactPercent", kComputeOptions);
  s.thresholds.min_op_impact = ctx.declared_option<double>("MinOpImpactPercent", kComputeOptions);
  s.compute_impact = ctx.option("QuantifyImpact", quantify_by_default);
  return s;
}

std::string finding_key(const CategoryMetrics& m, const CategoryFinding& f) {
  char rank[16];
  std::snprintf(rank, sizeof rank, "%03d", f.rank);
  return m.category + "_metrics#" + rank;
}

Status run_compute_analyzer(Context& ctx, const ComputeSettings& settings, FamilyFilter handles) {
  const std::optional<OpMetrics> metrics = ctx.op_metrics();
  if (!metrics) {
    ctx.info(
        "the run has no unified_perf_summary sheet (no cpu_op events, or no perf report): nothing "
        "to analyse");
    return Status::kSkipped;
  }
  const OpTable unified = op_table_of(*metrics);
  if (!unified.has_pct_roofline)
    ctx.warn(
        "the perf report has no roofline columns (no platform peaks): efficiencies are "
        "unknown, and only ops without a performance model get (heuristic) findings");
  Inputs in;
  in.ops = &unified;
  in.e2e_ms = metrics->gpu_total_ms();
  in.peaks = peaks_of(ctx, unified);
  in.compute_impact = settings.compute_impact;
  in.thresholds = settings.thresholds;
  in.fusion_kernel_map = fusion_kernel_map(ctx);
  in.graph_launches = graph_launches(ctx);
  // In a comparison, efficiency is trace 1's speed relative to trace 2 (analysis spec §11).
  in.scope = metrics->comparative() ? Scope::kComparative : Scope::kStandalone;
  bool any = false;
  for (const auto& [category, display] : categories_of(unified)) {
    if (!handles(family_of(category))) continue;
    any = true;
    const CategoryMetrics m = analyze_category(in, category, display);
    record_figures(ctx, m);
    for (const CategoryFinding& f : m.findings)
      if (!about_copies_only(m, f)) emit_finding(ctx, *metrics, m, f);
  }
  if (!any) {
    ctx.info("no op category of this analyzer in the unified perf summary");
    return Status::kSkipped;
  }
  return Status::kOk;
}

}  // namespace traceprism::plugins::compute
