#include "kernel_fusion_analyzer.hpp"

#include <cstdio>
#include <set>

#include "candidate_extraction.hpp"
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

void publish_kernel_map(Context& ctx, const FusionMetrics& m) {
  Table map("high_confidence_kernel_map", {"kernel_name", "operation"});
  for (const auto& [kernel, operation] : m.high_confidence_kernel_map) map.row({kernel, operation});
  if (!ctx.publish(kKernelMapProduct, map)) ctx.debug("the host did not take the kernel map");
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
  if (inputs->peaks.hbm_tbs <= 0)
    ctx.warn("the platform has no HBM bandwidth: elementwise fusion savings read as 0");
  const KernelPerfLookup lookup(inputs->unified);
  const std::vector<FusionCandidate> candidates = extract_candidates(*inputs, lookup);
  const FusionMetrics m =
      estimate_fusion(candidates, lookup, inputs->peaks, inputs->baseline_ms, settings_);
  publish_kernel_map(ctx, m);
  ctx.record("kernel_fusion.candidate_count", static_cast<double>(m.candidates.size()));
  ctx.record("kernel_fusion.estimated_count", static_cast<double>(m.estimates.size()));
  ctx.record("kernel_fusion.total_impact_score", m.total_impact_score);
  ctx.record("kernel_fusion.total_time_ms", m.total_time_ms);
  if (!m.has_data) {
    ctx.record("kernel_fusion.rejected_count", 0);
    ctx.info("no kernel fusion candidate (" + std::to_string(candidates.size()) +
             " before the kernel-count, 2% of E2E and dedup filters)");
    return Status::kSkipped;
  }
  std::size_t rejected = 0, position = 0;
  std::vector<std::string> titles;
  std::set<std::int64_t> reported_kernels;  // GPU rows of the estimates reported so far
  for (const FusionEstimate& e : m.estimates) {
    ++position;
    const FusionCandidate& c = m.candidates[e.candidate];
    std::string reason = reject_reason(c, reject_);
    // A frame's sibling-ops estimate covers kernels its tree-walk estimate already reports
    // (Qwen's apply_rotary_pos_emb): reporting both would count the same time twice.
    if (reason.empty() && covered_by(c, reported_kernels))
      reason = "its kernels all belong to a higher-ranked fusion estimate";
    if (!reason.empty()) {
      ++rejected;
      ctx.info("kernel fusion estimate '" + e.operation + "' not reported: " + reason);
      continue;
    }
    for (const CandidateKernel& k : c.kernels)
      if (k.gpu_row >= 0) reported_kernels.insert(k.gpu_row);
    const FusionPattern pattern = pattern_of(c, e);
    FusionFindingText text = describe(c, e, pattern, inputs->baseline_ms);
    // Two estimates of one frame (its tree walk and its sibling ops) need telling apart.
    for (const std::string& t : titles)
      if (t == text.title) text.title += c.sibling_sequence ? " (sibling ops)" : " (subtree)";
    titles.push_back(text.title);
    ctx.report(Tier::kFusion, "kernel_fusion", text.title)
        .key(finding_key(position))
        .severity(Severity::kWarning)
        .insight(text.insight)
        .action(text.action)
        .identification(text.identification)
        .impact(e.impact_score_low, e.impact_score, e.impact_score_high)
        .cause("fusion")
        .metric("time_ms", e.time_ms)
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
