#include "kernel_fusion_analyzer.hpp"

#include <cstdio>
#include <set>

#include <traceprism/support.hpp>
#include <traceprism/training.hpp>

#include "candidate_extraction.hpp"
#include "comparative_candidates.hpp"
#include "fusion_context.hpp"
#include "fusion_pattern.hpp"
#include "fusion_prose.hpp"

namespace traceprism::plugins::fusion {
namespace {

std::string finding_key(std::size_t position) {
  char key[32];
  std::snprintf(key, sizeof key, "kernel_fusion#%03zu", position);
  return key;
}

bool covered_by(const FusionCandidate& c, const std::set<std::int64_t>& reported) {
  bool any = false;
  for (const CandidateKernel& k : c.kernels) {
    if (k.gpu_row < 0) continue;
    if (!reported.count(k.gpu_row)) return false;
    any = true;
  }
  return any;
}

// What every kernel-fusion finding says, standalone or comparative.
FindingBuilder& with_text_and_impact(FindingBuilder& b, const FusionFindingText& text,
                                     const FusionEstimate& e) {
  return b.severity(Severity::kWarning)
      .insight(text.insight)
      .action(text.action)
      .identification(text.identification)
      .impact(e.impact_score_low, e.impact_score, e.impact_score_high)
      .cause("fusion");
}

void publish_kernel_map(Context& ctx, const FusionMetrics& m) {
  Table map("high_confidence_kernel_map", {"kernel_name", "operation"});
  for (const auto& [kernel, operation] : m.high_confidence_kernel_map) map.row({kernel, operation});
  if (!ctx.publish(kKernelMapProduct, map)) ctx.debug("the host did not take the kernel map");
}

// diagnosis.md §1.5 (one problem, one finding): the kernels of the findings reported so far, so
// that a later finding claims only the time no earlier one does (Timesformer's aten::matmul
// inside its self-attention).
class ReportedKernels {
 public:
  explicit ReportedKernels(const TraceRows& rows) : rows_(rows), reported_(rows.size(), false) {}

  struct Claim {
    std::vector<bool> kernels;  // what the candidate's instances cover
    double covered_us = 0;      // their time
    double unreported_us = 0;   // the part no earlier finding reports
  };

  Claim claim(const FusionCandidate& c) const {
    Claim out{covered_kernels(rows_, {&c})};
    for (std::size_t g = 0; g < out.kernels.size(); ++g) {
      if (!out.kernels[g] || rows_.kind[g] != RowKind::kKernel) continue;
      out.covered_us += rows_.dur_us(g);
      if (!reported_[g]) out.unreported_us += rows_.dur_us(g);
    }
    return out;
  }
  // The claim's kernels no earlier finding reports: what this finding counts.
  std::vector<Row> unreported_kernels(const Claim& claim) const {
    std::vector<Row> out;
    for (std::size_t g = 0; g < claim.kernels.size(); ++g)
      if (claim.kernels[g] && rows_.kind[g] == RowKind::kKernel && !reported_[g])
        out.push_back(static_cast<Row>(g));
    return out;
  }
  void add(const Claim& claim) {
    for (std::size_t g = 0; g < claim.kernels.size(); ++g)
      if (claim.kernels[g]) reported_[g] = true;
  }

 private:
  const TraceRows& rows_;
  std::vector<bool> reported_;
};

// The estimate as its finding shows it: time and impacts cut to the share of its kernel time
// that no higher-ranked finding reports.
FusionEstimate unreported_part(const FusionEstimate& e, const ReportedKernels::Claim& claim) {
  if (claim.covered_us <= 0 || claim.unreported_us >= claim.covered_us) return e;
  const double share = claim.unreported_us / claim.covered_us;
  FusionEstimate out = e;
  out.time_ms = support::py_round(claim.unreported_us / 1000, 3);
  out.impact_score = support::py_round(e.impact_score * share, 2);
  out.impact_score_low = support::py_round(e.impact_score_low * share, 2);
  out.impact_score_high = support::py_round(e.impact_score_high * share, 2);
  return out;
}

// diagnosis.md §6.2: the kernel time the candidates cover, each kernel once, beside the
// reference's extrapolated sum of the estimates.
void record_measured_totals(Context& ctx, const FusionInputs& in, const FusionMetrics& m) {
  std::vector<const FusionCandidate*> all;
  for (const FusionCandidate& c : m.candidates) all.push_back(&c);
  ctx.record("kernel_fusion.covered_kernel_time_ms", covered_kernel_time_us(in.rows, all) / 1000);
  double measured = 0, extrapolated = 0;
  for (const FusionEstimate& e : m.estimates) {
    measured += e.time_ms;
    extrapolated += e.reference_extrapolated_time_ms;
  }
  ctx.record("kernel_fusion.estimated_time_ms", measured);
  ctx.record("kernel_fusion.reference_extrapolated_time_ms", extrapolated);
}

// Trace 1 of a comparison (analysis-rules §9.2, §9.5): candidates where trace 2 runs fewer
// kernels for the same ops, with the measured gap; no roofline and no reject rule.
Status run_comparative(Context& ctx, const FusionInputs& in, const FusionSettings& settings) {
  const std::vector<FusionCandidate> candidates = extract_comparative_candidates(in);
  const FusionMetrics m = estimate_comparative_fusion(candidates, in.baseline_ms, settings);
  publish_kernel_map(ctx, m);
  ctx.record("kernel_fusion.candidate_count", static_cast<double>(m.candidates.size()));
  ctx.record("kernel_fusion.estimated_count", static_cast<double>(m.estimates.size()));
  ctx.record("kernel_fusion.total_impact_score", m.total_impact_score);
  ctx.record("kernel_fusion.total_time_ms", m.total_time_ms);
  if (m.estimates.empty()) {
    ctx.info(
        "no comparative kernel fusion candidate: no op of trace 1 runs more kernels than "
        "trace 2 for a measured gap of 2% of E2E (" +
        std::to_string(candidates.size()) + " candidates before the filters)");
    return Status::kSkipped;
  }
  const bool training = has_backward_pass(ctx);
  std::size_t position = 0;
  for (const FusionEstimate& e : m.estimates) {
    const FusionCandidate& c = m.candidates[e.candidate];
    const FusionFindingText text =
        describe_comparative(c, e, pattern_of(c, e), in.baseline_ms, training);
    std::vector<Row> kernels;
    for (const CandidateKernel& k : c.kernels)
      if (k.gpu_row >= 0) kernels.push_back(static_cast<Row>(k.gpu_row));
    FindingBuilder b = ctx.report(Tier::kFusion, "kernel_fusion", text.title);
    with_text_and_impact(b.key(finding_key(++position)), text, e)
        .kernel_rows(kernels)
        .metric("time_ms", e.time_ms)
        .metric("trace2_time_ms", e.trace2_time_ms)
        .metric("instance_count", e.instance_count)
        .metric("kernel_count", e.kernel_count)
        .metric("delta_kernel_count", e.delta_kernel_count)
        .metric("modeled_kernel_count", e.modeled_kernel_count)
        .metric("confidence_level", static_cast<double>(static_cast<int>(e.confidence)))
        .table(kernels_table(e))
        .table(trace2_kernels_table(e))
        .table(estimate_table(e, text.confidence_reason))
        .emit();
  }
  return Status::kOk;
}

}  // namespace

KernelFusionAnalyzer::KernelFusionAnalyzer(Context& ctx) {
  settings_.max_kernel_count =
      static_cast<int>(ctx.declared_option<std::int64_t>("MaxKernelCount", kFusionOptions));
  settings_.min_impact_percent = ctx.declared_option<double>("MinImpactPercent", kFusionOptions);
  settings_.overlap_efficiency = ctx.declared_option<double>("OverlapEfficiency", kFusionOptions);
  reject_.reject_containers = ctx.declared_option<bool>("RejectContainers", kFusionOptions);
  reject_.reject_python_frames = ctx.declared_option<bool>("RejectPythonFrames", kFusionOptions);
}

Status KernelFusionAnalyzer::run(Context& ctx) {
  std::string why_not;
  const std::optional<FusionInputs> inputs = read_inputs(ctx, why_not);
  if (!inputs) {
    ctx.info(why_not);
    return Status::kSkipped;
  }
  if (inputs->trace_diff) return run_comparative(ctx, *inputs, settings_);
  if (inputs->peaks.hbm_tbs <= 0)
    ctx.warn("the platform has no HBM bandwidth: elementwise fusion savings read as 0");
  const KernelPerfLookup lookup(inputs->unified);
  const std::vector<FusionCandidate> candidates = extract_candidates(*inputs, lookup);
  const FusionMetrics m =
      estimate_fusion(candidates, lookup, inputs->peaks, inputs->baseline_ms, settings_);
  // The compute tier's feedback (§5.6) keeps the reference's estimates for now: the measured
  // rule adds high-confidence candidates (Timesformer's spatial attention) whose kernels the
  // compute goldens still price. docs/compatibility.md, "Measured fusion time".
  FusionSettings reference_rule = settings_;
  reference_rule.time_rule = TimeRule::kReferenceExtrapolated;
  publish_kernel_map(
      ctx, estimate_fusion(candidates, lookup, inputs->peaks, inputs->baseline_ms, reference_rule));
  ctx.record("kernel_fusion.candidate_count", static_cast<double>(m.candidates.size()));
  ctx.record("kernel_fusion.estimated_count", static_cast<double>(m.estimates.size()));
  ctx.record("kernel_fusion.total_impact_score", m.total_impact_score);
  ctx.record("kernel_fusion.total_time_ms", m.total_time_ms);
  record_measured_totals(ctx, *inputs, m);
  if (!m.has_data) {
    ctx.record("kernel_fusion.rejected_count", 0);
    ctx.info("no kernel fusion candidate (" + std::to_string(candidates.size()) +
             " before the kernel-count, 2% of E2E and dedup filters)");
    return Status::kSkipped;
  }
  const bool training = has_backward_pass(ctx);
  std::size_t rejected = 0, position = 0;
  std::vector<std::string> titles;
  std::set<std::int64_t> reported_kernels;  // GPU rows of the estimates reported so far
  ReportedKernels reported(inputs->rows);
  for (const FusionEstimate& estimate : m.estimates) {
    ++position;
    const FusionCandidate& c = m.candidates[estimate.candidate];
    std::string reason = reject_reason(c, reject_);
    // A frame's sibling-ops estimate covers kernels its tree-walk estimate already reports
    // (Qwen's apply_rotary_pos_emb): reporting both would count the same time twice.
    if (reason.empty() && covered_by(c, reported_kernels))
      reason = "its kernels all belong to a higher-ranked fusion estimate";
    const ReportedKernels::Claim claim =
        reason.empty() ? reported.claim(c) : ReportedKernels::Claim{};
    if (reason.empty() && claim.covered_us > 0 && claim.unreported_us <= 0)
      reason = "its kernels all belong to higher-ranked fusion estimates";
    if (!reason.empty()) {
      ++rejected;
      ctx.info("kernel fusion estimate '" + estimate.operation + "' not reported: " + reason);
      continue;
    }
    for (const CandidateKernel& k : c.kernels)
      if (k.gpu_row >= 0) reported_kernels.insert(k.gpu_row);
    const std::vector<Row> claimed = reported.unreported_kernels(claim);
    reported.add(claim);
    const FusionEstimate e = unreported_part(estimate, claim);
    const FusionPattern pattern = pattern_of(c, e);
    FusionFindingText text = describe(c, e, pattern, inputs->baseline_ms, training);
    // Two estimates of one frame (its tree walk and its sibling ops) need telling apart.
    for (const std::string& t : titles)
      if (t == text.title) text.title += c.sibling_sequence ? " (sibling ops)" : " (subtree)";
    titles.push_back(text.title);
    if (e.time_ms < estimate.time_ms)
      text.insight += " Another " + support::fixed(estimate.time_ms - e.time_ms, 3) +
                      " ms of these kernels belong to a higher-ranked fusion finding and count "
                      "there.";
    FindingBuilder b = ctx.report(Tier::kFusion, "kernel_fusion", text.title);
    with_text_and_impact(b.key(finding_key(position)), text, e)
        .kernel_rows(claimed)
        .metric("time_ms", e.time_ms)
        .metric("reference_extrapolated_time_ms", e.reference_extrapolated_time_ms)
        .metric("covered_kernel_time_ms", claim.covered_us / 1000)
        .metric("instance_count", e.instance_count)
        .metric("kernel_count", e.kernel_count)
        .metric("modeled_kernel_count", e.modeled_kernel_count)
        .metric("confidence_level", static_cast<double>(static_cast<int>(e.confidence)))
        .table(kernels_table(e))
        .table(estimate_table(e, text.confidence_reason))
        .emit();
  }
  ctx.record("kernel_fusion.rejected_count", static_cast<double>(rejected));
  return Status::kOk;
}

}  // namespace traceprism::plugins::fusion
