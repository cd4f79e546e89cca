#include "report/category_figures.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace traceprism::report {
namespace {

// diagnosis.md §1.5: the analyzers' category rollups count each of their findings as emitted;
// the impact the ranker moved to a more specific finding (shrunk or folded items) leaves the
// category's rollup with it, so that Top Operations agrees with the items listed below it.
void leave_shared_impact_to_its_owner(const AnalysisReport& r,
                                      std::map<std::string, CategoryFigures>& out) {
  auto subtract = [&](const findings::Finding& f, double low, double mid, double high) {
    auto it = out.find(f.category);
    if (f.tier != findings::Tier::kCompute || it == out.end() || !it->second.impact) return;
    CategoryFigures& c = it->second;
    c.impact_moved = true;
    auto less = [](std::optional<double>& v, double d) {
      if (v) v = std::max(0.0, std::round((*v - d) * 100) / 100);  // the rollups' 2 decimals
    };
    less(c.low, low);
    less(c.impact, mid);
    less(c.high, high);
  };
  // The rollups sum the model-quantified findings only (heuristic ones stay out of them).
  for (const findings::Finding& f : r.findings.compute)
    if (!f.elsewhere.empty() && f.impact_kind == findings::ImpactKind::kQuantified)
      subtract(f, f.emitted_low - f.impact_low, f.emitted_mid - f.impact_mid,
               f.emitted_high - f.impact_high);
  for (const findings::Finding& f : r.findings.folded)
    if (f.impact_kind == findings::ImpactKind::kQuantified)
      subtract(f, f.emitted_low, f.emitted_mid, f.emitted_high);
}

}  // namespace

std::map<std::string, CategoryFigures> category_figures(const AnalysisReport& r) {
  std::map<std::string, std::map<std::string, double>> raw;
  for (const findings::AnalyzerOutcome& a : r.graph.analyzers)
    for (const auto& [key, value] : a.figures) {
      const auto dot = key.find('.');
      if (dot != std::string::npos) raw[key.substr(0, dot)][key.substr(dot + 1)] = value;
    }
  std::map<std::string, CategoryFigures> out;
  for (const auto& [category, f] : raw) {
    if (!f.contains("total_time_ms") || !f.contains("ops") || !f.contains("percent_of_compute"))
      continue;  // not a compute category (system analyzers record other figures)
    CategoryFigures c;
    c.time_ms = f.at("total_time_ms");
    c.ops = f.at("ops");
    if (auto it = f.find("findings"); it != f.end()) c.findings = it->second;
    if (auto it = f.find("impact_score"); it != f.end()) c.impact = it->second;
    if (auto it = f.find("impact_score_low"); it != f.end()) c.low = it->second;
    if (auto it = f.find("impact_score_high"); it != f.end()) c.high = it->second;
    out[category] = c;
  }
  leave_shared_impact_to_its_owner(r, out);
  return out;
}

std::string category_key(std::string_view category) {
  std::string k(category);
  for (char& ch : k) {
    if (ch == ' ' || ch == '/') ch = '_';
    ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  }
  return k;
}

std::map<std::string, std::string> category_display_names(const AnalysisReport& r) {
  std::map<std::string, std::string> out;
  if (r.unified)
    for (const perf_report::UnifiedGroup& g : r.unified->groups)
      out.emplace(category_key(g.category), g.category);
  for (const findings::CategoryShare& s : r.diagnosis.computation_by_category)
    out.emplace(category_key(s.category), s.category);
  return out;
}

double category_whole_ms(const AnalysisReport& r) {
  const auto& partition = r.diagnosis.computation_by_category;
  if (!partition.empty()) {
    double us = 0;
    for (const findings::CategoryShare& s : partition) us += s.time_us;
    return us / 1000;
  }
  double sum = 0;
  for (const auto& [key, f] : category_figures(r)) sum += f.time_ms;
  return std::max(r.timeline.computation_us / 1000, sum);
}

double category_time_ms(const AnalysisReport& r, const std::string& key,
                        const CategoryFigures& figures) {
  const auto& partition = r.diagnosis.computation_by_category;
  if (partition.empty()) return figures.time_ms;
  for (const findings::CategoryShare& s : partition)
    if (category_key(s.category) == key) return s.time_us / 1000;
  return 0;
}

std::vector<TopOperationRow> top_operations(const AnalysisReport& r) {
  const auto figures = category_figures(r);
  const auto names = category_display_names(r);
  std::vector<TopOperationRow> rollups, fallbacks;
  for (const auto& [key, f] : figures) {
    auto it = names.find(key);
    TopOperationRow row{key, it != names.end() ? it->second : key, f, false};
    row.figures.time_ms = category_time_ms(r, key, f);
    if (f.impact && (*f.impact > 0 || f.impact_moved)) {
      row.quantified = true;
      rollups.push_back(row);
    } else if (f.findings == 0) {
      fallbacks.push_back(row);
    }
  }
  // The categories of the compute findings, for a table that would otherwise be empty; a
  // category no compute analyzer rolls up (a precision or recompute finding's) by its time.
  std::vector<TopOperationRow> finding_categories;
  for (const findings::Finding& f : r.findings.compute) {
    const std::string key = category_key(f.category);
    if (std::any_of(finding_categories.begin(), finding_categories.end(),
                    [&](const auto& c) { return c.key == key; }))
      continue;
    auto it = names.find(key);
    auto known = figures.find(key);
    const CategoryFigures f_figures = known != figures.end() ? known->second : CategoryFigures{};
    TopOperationRow row{key, it != names.end() ? it->second : f.category, f_figures, false};
    row.figures.time_ms = category_time_ms(r, key, f_figures);
    // A category that is no op category (a layout-transform finding's): the finding's own time.
    if (row.figures.time_ms <= 0 && f.share_percent > 0)
      row.figures.time_ms = f.share_percent / 100 * r.timeline.total_us / 1000;
    if (row.figures.time_ms > 0) finding_categories.push_back(row);
  }
  std::stable_sort(rollups.begin(), rollups.end(), [](const auto& a, const auto& b) {
    return *a.figures.impact > *b.figures.impact;
  });
  if (rollups.size() > 6) rollups.resize(6);
  const double compute_ms = category_whole_ms(r);
  std::erase_if(fallbacks, [&](const auto& c) { return c.figures.time_ms < 0.05 * compute_ms; });
  std::stable_sort(fallbacks.begin(), fallbacks.end(), [](const auto& a, const auto& b) {
    return a.figures.time_ms > b.figures.time_ms;
  });
  rollups.insert(rollups.end(), fallbacks.begin(), fallbacks.end());
  if (rollups.empty() && !r.findings.compute.empty()) {
    std::stable_sort(
        finding_categories.begin(), finding_categories.end(),
        [](const auto& a, const auto& b) { return a.figures.time_ms > b.figures.time_ms; });
    return finding_categories;
  }
  return rollups;
}

}  // namespace traceprism::report
