#include "findings/ranker.hpp"

#include <algorithm>
#include <set>
#include <tuple>

#include "findings/shared_kernels.hpp"

namespace traceprism::findings {
namespace {

bool quantified(const Finding& f) {
  return f.impact_kind != ImpactKind::kNotQuantifiable;
}

bool ranks_before(const Finding& a, const Finding& b) {
  if (quantified(a) != quantified(b)) return quantified(a);
  if (quantified(a)) {
    if (ranking_impact(a) != ranking_impact(b)) return ranking_impact(a) > ranking_impact(b);
    if (a.impact_mid != b.impact_mid) return a.impact_mid > b.impact_mid;
    if (a.tier == Tier::kSystem && a.impact_low != b.impact_low) return a.impact_low > b.impact_low;
    if ((a.impact_kind == ImpactKind::kQuantified) != (b.impact_kind == ImpactKind::kQuantified))
      return a.impact_kind == ImpactKind::kQuantified;
  } else if (a.tier == Tier::kSystem) {
    if (a.share_percent != b.share_percent) return a.share_percent > b.share_percent;
    if (a.severity != b.severity) return a.severity > b.severity;
  }
  return std::tie(a.analyzer, a.key, a.first_evidence_ts_ns, a.title) <
         std::tie(b.analyzer, b.key, b.first_evidence_ts_ns, b.title);
}

std::vector<Finding*> all_findings(RankedFindings& r) {
  std::vector<Finding*> all;
  for (auto* tier : {&r.compute, &r.fusion, &r.system})
    for (Finding& f : *tier) all.push_back(&f);
  return all;
}

// diagnosis.md §1.5: shared kernel time goes to the most specific finding; the findings that
// only repeat another leave their tier for RankedFindings::folded.
void share_kernel_time(RankedFindings& r, std::span<const std::int64_t> dur_ns) {
  if (dur_ns.empty()) return;
  give_each_kernel_to_one_finding(all_findings(r), dur_ns);
  for (auto* tier : {&r.compute, &r.fusion, &r.system}) {
    std::vector<Finding> kept;
    for (Finding& f : *tier)
      (f.folded_into_analyzer.empty() ? kept : r.folded).push_back(std::move(f));
    *tier = std::move(kept);
  }
}

}  // namespace

RankedFindings rank_findings(const std::vector<AnalyzerOutcome>& outcomes,
                             std::span<const std::int64_t> dur_ns) {
  RankedFindings out;
  for (const AnalyzerOutcome& o : outcomes) {
    if (o.status != AnalyzerStatus::kOk && o.status != AnalyzerStatus::kSkipped) continue;
    std::set<std::string> keys;
    for (const Finding& f : o.findings) {
      if (!f.key.empty() && !keys.insert(f.key).second) {
        ++out.duplicates_dropped;
        continue;
      }
      (f.tier == Tier::kCompute  ? out.compute
       : f.tier == Tier::kFusion ? out.fusion
                                 : out.system)
          .push_back(f);
    }
  }
  share_kernel_time(out, dur_ns);
  for (auto* tier : {&out.compute, &out.fusion, &out.system}) {
    std::stable_sort(tier->begin(), tier->end(), ranks_before);
    std::vector<Finding> kept;
    std::vector<std::vector<std::uint32_t>> seen;
    for (Finding& f : *tier) {
      std::vector<std::uint32_t> rows = f.rows;
      std::sort(rows.begin(), rows.end());
      if (!rows.empty() && std::find(seen.begin(), seen.end(), rows) != seen.end()) {
        ++out.duplicates_dropped;
        continue;
      }
      seen.push_back(std::move(rows));
      kept.push_back(std::move(f));
    }
    for (std::size_t i = 0; i < kept.size(); ++i) kept[i].rank = static_cast<int>(i + 1);
    *tier = std::move(kept);
  }
  describe_shared_kernels(all_findings(out), out.folded);
  return out;
}

std::vector<const Finding*> cross_tier_order(const RankedFindings& ranked) {
  std::vector<const Finding*> all;
  for (Tier t : {Tier::kCompute, Tier::kFusion, Tier::kSystem})
    for (const Finding& f : ranked.tier(t)) all.push_back(&f);
  std::stable_sort(all.begin(), all.end(), [](const Finding* a, const Finding* b) {
    if (quantified(*a) != quantified(*b)) return quantified(*a);
    if (quantified(*a)) {
      if (ranking_impact(*a) != ranking_impact(*b)) return ranking_impact(*a) > ranking_impact(*b);
      if (a->impact_mid != b->impact_mid) return a->impact_mid > b->impact_mid;
      if (a->impact_low != b->impact_low) return a->impact_low > b->impact_low;
    }
    return std::tie(a->tier, a->rank) < std::tie(b->tier, b->rank);
  });
  return all;
}

}  // namespace traceprism::findings
