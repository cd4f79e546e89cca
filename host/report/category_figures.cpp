#include "report/category_figures.hpp"

#include <algorithm>
#include <cctype>

namespace traceprism::report {

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
  return out;
}

std::map<std::string, std::string> category_display_names(const AnalysisReport& r) {
  std::map<std::string, std::string> out;
  if (!r.unified) return out;
  for (const perf_report::UnifiedGroup& g : r.unified->groups) {
    std::string k = g.category;
    for (char& ch : k) {
      if (ch == ' ' || ch == '/') ch = '_';
      ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    }
    out.emplace(k, g.category);
  }
  return out;
}

std::vector<TopOperationRow> top_operations(const AnalysisReport& r) {
  const auto figures = category_figures(r);
  const auto names = category_display_names(r);
  std::vector<TopOperationRow> rollups, fallbacks;
  for (const auto& [key, f] : figures) {
    auto it = names.find(key);
    TopOperationRow row{key, it != names.end() ? it->second : key, f, false};
    if (f.impact && *f.impact > 0) {
      row.quantified = true;
      rollups.push_back(row);
    } else if (f.findings == 0) {
      fallbacks.push_back(row);
    }
  }
  std::stable_sort(rollups.begin(), rollups.end(), [](const auto& a, const auto& b) {
    return *a.figures.impact > *b.figures.impact;
  });
  if (rollups.size() > 6) rollups.resize(6);
  const double compute_ms = r.timeline.computation_us / 1000;
  std::erase_if(fallbacks, [&](const auto& c) { return c.figures.time_ms < 0.05 * compute_ms; });
  std::stable_sort(fallbacks.begin(), fallbacks.end(), [](const auto& a, const auto& b) {
    return a.figures.time_ms > b.figures.time_ms;
  });
  rollups.insert(rollups.end(), fallbacks.begin(), fallbacks.end());
  return rollups;
}

}  // namespace traceprism::report
