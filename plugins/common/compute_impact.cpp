#include "compute_impact.hpp"

#include <traceprism/support.hpp>

#include <algorithm>
#include <optional>
#include <string>

namespace traceprism::plugins::compute {

using support::py_round;

namespace {

// The reference's constants (analysis_utils.py, spec §5.1): the roofline targets of the low /
// mid / high scenarios and the heuristic fractions of an unmodeled op's E2E share.
constexpr double kTargetHigh = 100.0;
constexpr double kTargetLow = 75.0;
constexpr double kTargetMid = 87.5;
constexpr double kHeuristicLow = 0.15;
constexpr double kHeuristicMid = 0.30;
constexpr double kHeuristicHigh = 0.45;

std::optional<ImpactEstimate> quantified_estimate(const Operation& op, const CategoryMetrics& m,
                                                  double baseline_ms, double min_op_impact) {
  const double eff = *op.efficiency.efficiency_percent;
  const double gap_high = std::max(0.0, 1 - eff / kTargetHigh);
  const double gap_low = (kTargetLow / kTargetHigh) * gap_high;
  const double gap_mid = (kTargetMid / kTargetHigh) * gap_high;
  const double high = gap_high * op.time_ms / baseline_ms * 100;
  if (high < min_op_impact) return std::nullopt;
  ImpactEstimate e;
  e.operation = op.name;
  e.category = m.category;
  e.impact = py_round(gap_mid * op.time_ms / baseline_ms * 100, 2);
  e.low = py_round(gap_low * op.time_ms / baseline_ms * 100, 2);
  e.high = py_round(high, 2);
  e.efficiency_pct = py_round(eff, 2);
  e.bound_type = op.efficiency.bound_type;
  e.library = op.library;
  e.time_ms = py_round(op.time_ms, 3);
  return e;
}

std::optional<ImpactEstimate> heuristic_estimate(const Operation& op, const CategoryMetrics& m) {
  if (!op.percent_of_total || *op.percent_of_total <= 0) return std::nullopt;
  const double pct = *op.percent_of_total;
  ImpactEstimate e;
  e.operation = op.name;
  e.category = m.category;
  e.heuristic = true;
  e.impact = py_round(pct * kHeuristicMid, 2);
  e.low = py_round(pct * kHeuristicLow, 2);
  e.high = py_round(pct * kHeuristicHigh, 2);
  e.library = op.library;
  e.time_ms = py_round(op.time_ms, 3);
  e.percent_of_total = pct;
  return e;
}

struct Group {
  std::string key;  // (bound, library, bucket) joined, or the op name for heuristics
  CategoryFinding finding;
  double impact = 0, low = 0, high = 0, pct = 0;
};

Group& group_for(std::vector<Group>& groups, const std::string& key) {
  for (Group& g : groups) {
    if (g.key == key) return g;
  }
  groups.emplace_back();
  groups.back().key = key;
  return groups.back();
}

void add_member(Group& g, const ImpactEstimate& e) {
  g.finding.members.push_back(e);
  g.impact += e.impact;
  g.low += e.low;
  g.high += e.high;
  g.pct += e.percent_of_total.value_or(0);
}

// Sums of the rounded member values, rounded to 2; groups under the floor are dropped.
void close_groups(std::vector<Group>& groups, double floor, std::vector<CategoryFinding>& out) {
  for (Group& g : groups) {
    if (g.impact < floor) continue;
    g.finding.impact = py_round(g.impact, 2);
    g.finding.low = py_round(g.low, 2);
    g.finding.high = py_round(g.high, 2);
    if (g.finding.heuristic) g.finding.percent_of_total = py_round(g.pct, 2);
    out.push_back(std::move(g.finding));
  }
}

void add_quantified(std::vector<Group>& groups, const ImpactEstimate& e, Scope scope) {
  const std::string bound = e.bound_type.empty() ? "unknown" : e.bound_type;
  const std::string library = e.library.value_or("Unknown");
  const std::string bucket = scope == Scope::kStandalone ? eff_bucket(e.efficiency_pct) : "all";
  Group& g = group_for(groups, bound + '\n' + library + '\n' + bucket);
  g.finding.bound_type = bound;
  g.finding.library = library;
  g.finding.eff_bucket = bucket;
  add_member(g, e);
}

// Heuristic estimates group by op name; the library is the first member's that has one.
void add_heuristic(std::vector<Group>& groups, const ImpactEstimate& e) {
  Group& g = group_for(groups, e.operation);
  g.finding.heuristic = true;
  g.finding.bound_type = "unmodeled";
  g.finding.eff_bucket = "unknown";
  if (g.finding.library.empty() && e.library) g.finding.library = *e.library;
  add_member(g, e);
}

}  // namespace

std::vector<ImpactEstimate> impact_estimates(const CategoryMetrics& m, double baseline_ms,
                                             const Thresholds& t, bool roofline_known) {
  std::vector<ImpactEstimate> out;
  const bool baseline_ok = baseline_ms > 0;
  for (std::size_t i = 0; i < m.operations.size(); ++i) {
    const Operation& op = m.operations[i];
    if (op.fusion_flagged || op.time_ms <= 0) continue;
    std::optional<ImpactEstimate> e;
    if (op.efficiency.efficiency_percent && !op.efficiency.is_anomaly && baseline_ok)
      e = quantified_estimate(op, m, baseline_ms, t.min_op_impact);
    else if (m.scope == Scope::kStandalone && (roofline_known || !op.has_perf_model))
      e = heuristic_estimate(op, m);
    if (!e) continue;
    e->op = i;
    out.push_back(std::move(*e));
  }
  std::stable_sort(out.begin(), out.end(), [](const ImpactEstimate& a, const ImpactEstimate& b) {
    return a.impact > b.impact;
  });
  return out;
}

// Groups in order of first appearance over the impact-sorted estimates (quantified first),
// then a stable sort by impact: the reference's category_findings and their rank.
std::vector<CategoryFinding> category_findings(const std::vector<ImpactEstimate>& estimates,
                                               Scope scope, double floor) {
  std::vector<Group> quantified, heuristic;
  for (const ImpactEstimate& e : estimates) {
    if (e.heuristic)
      add_heuristic(heuristic, e);
    else
      add_quantified(quantified, e, scope);
  }
  for (Group& g : heuristic) {
    if (g.finding.library.empty()) g.finding.library = "Unknown";
  }
  std::vector<CategoryFinding> out;
  close_groups(quantified, floor, out);
  close_groups(heuristic, floor, out);
  std::stable_sort(out.begin(), out.end(), [](const CategoryFinding& a, const CategoryFinding& b) {
    return a.impact > b.impact;
  });
  for (std::size_t i = 0; i < out.size(); ++i) out[i].rank = static_cast<int>(i + 1);
  return out;
}

std::vector<RankedFinding> priority_order(const std::vector<CategoryMetrics>& categories) {
  std::vector<const CategoryMetrics*> files;
  for (const CategoryMetrics& m : categories) files.push_back(&m);
  std::stable_sort(files.begin(), files.end(),
                   [](const CategoryMetrics* a, const CategoryMetrics* b) {
                     return a->category + "_metrics.json" < b->category + "_metrics.json";
                   });
  std::vector<RankedFinding> out;
  for (const CategoryMetrics* m : files) {
    for (const CategoryFinding& f : m->findings) out.push_back({m, &f, 0});
  }
  std::stable_sort(out.begin(), out.end(), [](const RankedFinding& a, const RankedFinding& b) {
    return a.finding->impact > b.finding->impact;
  });
  for (std::size_t i = 0; i < out.size(); ++i) out[i].global_rank = static_cast<int>(i + 1);
  return out;
}

Rollup quantified_rollup(const CategoryMetrics& m) {
  Rollup r;
  for (const CategoryFinding& f : m.findings) {
    if (f.heuristic) continue;
    r.any = true;
    r.impact += f.impact;
    r.low += f.low;
    r.high += f.high;
  }
  r.impact = py_round(r.impact, 2);
  r.low = py_round(r.low, 2);
  r.high = py_round(r.high, 2);
  return r;
}

std::string eff_bucket(std::optional<double> efficiency_percent) {
  if (!efficiency_percent) return "unknown";
  if (*efficiency_percent < 30) return "0-30";
  if (*efficiency_percent < 60) return "30-60";
  return "60-100";
}

}  // namespace traceprism::plugins::compute
