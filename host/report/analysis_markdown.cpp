#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "report/analysis_report.hpp"
#include "report/csv_parse.hpp"
#include "report/python_format.hpp"

namespace traceprism::report {
namespace {

std::string fixed(double v, int decimals = 2) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string percent_of_total(const model::GpuTimeline& t, double us) {
  return fixed(t.total_us > 0 ? us / t.total_us * 100 : 0.0);
}

// Markdown table cells: no raw pipes or line breaks.
std::string cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n')
      out += "<br>";
    else
      out += c;
  }
  return out.empty() ? "—" : out;
}

// One compute category as its analyzer recorded it ("<category>.total_time_ms", ".ops",
// ".findings", ".impact_score*": the reference's manifest and quantified rollup).
struct CategoryFigures {
  double time_ms = 0, ops = 0, findings = 0;
  std::optional<double> impact, low, high;
};

std::map<std::string, CategoryFigures> category_figures(const AnalysisReport& r) {
  std::map<std::string, std::map<std::string, double>> raw;
  for (const AnalyzerOutcome& a : r.graph.analyzers)
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

// The reference's display name of a category key: the op category as the unified sheet
// writes it ("GEMM", "CONV_fwd").
std::string display_name(const AnalysisReport& r, const std::string& key) {
  for (const PerfSheet& sheet : r.perf_sheets) {
    if (sheet.name != "unified_perf_summary") continue;
    const CsvSheet table = parse_csv_sheet(sheet.csv);
    const std::size_t c = table.column_index("op category");
    for (const auto& row : table.rows) {
      if (c >= row.size()) continue;
      std::string k = row[c];
      for (char& ch : k) {
        if (ch == ' ' || ch == '/') ch = '_';
        ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      }
      if (k == key) return row[c];
    }
  }
  return key;
}

// Top Operations (analysis-rules.md §5.4, §10.3): the categories by quantified impact (at most
// six), then the categories without any finding that hold >= 5% of the computation time.
void write_top_operations(std::ostringstream& md, const AnalysisReport& r) {
  md << "### Top Operations\n\n<!-- impact-begin kind=top_ops -->\n"
     << "| Rank | Category | Time (ms) | % of Compute Time | Ops |\n"
     << "|------|----------|-----------|-------------------|-----|\n";
  const auto figures = category_figures(r);
  std::vector<std::pair<std::string, CategoryFigures>> rollups, fallbacks;
  for (const auto& [key, f] : figures) {
    if (f.impact && *f.impact > 0)
      rollups.emplace_back(key, f);
    else if (f.findings == 0)
      fallbacks.emplace_back(key, f);
  }
  std::stable_sort(rollups.begin(), rollups.end(), [](const auto& a, const auto& b) {
    return *a.second.impact > *b.second.impact;
  });
  if (rollups.size() > 6) rollups.resize(6);
  const double compute_ms = r.timeline.computation_us / 1000;
  std::erase_if(fallbacks, [&](const auto& c) { return c.second.time_ms < 0.05 * compute_ms; });
  std::stable_sort(fallbacks.begin(), fallbacks.end(), [](const auto& a, const auto& b) {
    return a.second.time_ms > b.second.time_ms;
  });
  int rank = 0;
  auto row = [&](const std::string& key, const CategoryFigures& f, bool quantified) {
    const double share = compute_ms > 0 ? f.time_ms / compute_ms * 100 : 0.0;
    md << "| " << ++rank << " | " << cell(display_name(r, key)) << " | "
       << python_float_repr(f.time_ms) << " | " << fixed(share) << " | "
       << static_cast<long long>(f.ops)
       << " | <!-- top-ops-row low=" << (quantified && f.low ? python_float_repr(*f.low) : "null")
       << " high=" << (quantified && f.high ? python_float_repr(*f.high) : "null") << " -->\n";
  };
  for (const auto& [key, f] : rollups) row(key, f, true);
  for (const auto& [key, f] : fallbacks) row(key, f, false);
  md << "<!-- impact-end -->\n\n";
}

// Severity icons by position within a tier (analysis-rules.md §5.5).
const char* icon(int rank) {
  return rank == 1 ? "🔴" : rank == 2 ? "🟡" : "🟢";
}

std::string heading(const Finding& f) {
  std::string h = std::string(icon(f.rank)) + " P" + std::to_string(f.rank) + ": " + f.title;
  if (f.tier == Tier::kCompute && !f.library.empty() && f.library != "Unknown")
    h += " (" + f.library + ")";
  return h;
}

std::string anchor(const Finding& f) {
  if (f.tier == Tier::kFusion) return "detailed-analysis-fusion-P" + std::to_string(f.rank);
  return "detailed-analysis-" + std::string(tier_name(f.tier)) + "-p" + std::to_string(f.rank);
}

const char* tier_label(Tier t) {
  return t == Tier::kCompute  ? "Compute kernel insights"
         : t == Tier::kFusion ? "Kernel fusion insights"
                              : "System-level insights";
}

void write_table(std::ostringstream& md, const DataTable& t) {
  md << "|";
  for (const auto& c : t.columns) md << " " << cell(c) << " |";
  md << "\n|";
  for (std::size_t i = 0; i < t.columns.size(); ++i) md << "---|";
  md << "\n";
  for (const auto& row : t.rows) {
    md << "|";
    for (const auto& c : row) md << " " << cell(c) << " |";
    md << "\n";
  }
}

void write_impact_marker(std::ostringstream& md, const Finding& f) {
  if (f.impact_kind == ImpactKind::kNotQuantifiable) {
    md << "<!-- impact-begin kind=p_item low=null mid=null high=null -->\n"
       << "**Impact**: Not quantifiable from trace data\n<!-- impact-end -->\n\n";
    return;
  }
  md << "<!-- impact-begin kind=p_item";
  if (f.tier == Tier::kCompute) md << " category=" << (f.category.empty() ? "other" : f.category);
  md << " low=" << fixed(f.impact_low) << " mid=" << fixed(f.impact_mid)
     << " high=" << fixed(f.impact_high) << " -->\n"
     << "**Impact**: impact_score: " << fixed(f.impact_mid) << "\n<!-- impact-end -->\n\n";
  if (f.impact_kind == ImpactKind::kHeuristic && f.share_percent >= 0)
    md << "> **Warning — estimated:** No performance model for this op; impact is derived from its "
          "E2E GPU-time share ("
       << fixed(f.share_percent) << "%), not a gap projection.\n\n";
}

void write_card(std::ostringstream& md, const Finding& f) {
  md << "### " << heading(f) << "\n\n";
  md << "**Insight**: " << f.insight << "\n\n";
  md << "**Action**: " << f.action << "\n\n";
  write_impact_marker(md, f);
  md << "→ *See [Detailed Analysis: " << tier_label(f.tier) << " > P" << f.rank << "](#"
     << anchor(f) << ") for details*\n\n";
}

// Cards of one tier, separated by rules as in the reference template.
void write_cards(std::ostringstream& md, const std::vector<Finding>& findings) {
  for (std::size_t i = 0; i < findings.size(); ++i) {
    if (i > 0) md << "---\n\n";
    write_card(md, findings[i]);
  }
}

void write_detail(std::ostringstream& md, const Finding& f) {
  md << "<a id=\"" << anchor(f) << "\"></a>\n";
  md << "<!-- reasoning-candidate tier=" << tier_name(f.tier) << " rank=" << f.rank << " -->\n";
  md << "#### " << heading(f) << "\n";
  md << "**Identification:** " << f.identification << "\n\n";
  md << "**Data:**\n\n";
  for (std::size_t i = 0; i < f.tables.size(); ++i) {
    if (i > 0 && !f.tables[i].title.empty()) md << "*" << f.tables[i].title << "*\n\n";
    write_table(md, f.tables[i]);
    md << "\n";
  }
  if (f.tables.empty()) md << "No data table.\n\n";
  md << "**Reasoning for Slowdown:** " << f.reasoning << "\n\n";
  md << "**Resolution:** " << f.resolution << "\n\n";
  md << "**Impact estimate:**\n";
  if (f.impact_kind == ImpactKind::kNotQuantifiable) {
    md << "Impact estimate is not quantifiable from trace data.\n\n";
  } else {
    md << "<!-- impact-begin kind=detail_estimate low=" << fixed(f.impact_low)
       << " high=" << fixed(f.impact_high) << " -->\n"
       << "- Low end impact_score: " << fixed(f.impact_low) << "\n"
       << "- High end impact_score: " << fixed(f.impact_high) << "\n<!-- impact-end -->\n\n";
  }
}

std::string platform_label(const AnalysisReport& r) {
  if (!r.platform.name.empty()) return r.platform.name;
  if (!r.platform.device_name.empty()) return r.platform.device_name;
  return "Unknown platform";
}

void write_summary(std::ostringstream& md, const AnalysisReport& r) {
  const model::GpuTimeline& t = r.timeline;
  const auto& f = r.findings;
  md << "## Executive Summary\n\n";
  if (t.events == 0) {
    md << "The trace has no GPU activity linked to a host launch, so GPU utilization cannot be "
          "measured; the host-side analyzers still ran.";
  } else {
    md << "Over " << fixed(t.total_us / 1e3)
       << " ms from the first to the last GPU activity, the GPU "
       << "computes " << percent_of_total(t, t.computation_us) << "% of the time and is idle "
       << percent_of_total(t, t.idle_us) << "%; exposed communication takes "
       << percent_of_total(t, t.exposed_comm_us) << "% and exposed memory copies "
       << percent_of_total(t, t.exposed_memcpy_us) << "%.";
  }
  std::size_t total = f.compute.size() + f.fusion.size() + f.system.size();
  md << " The analysis found " << f.compute.size() << " compute, " << f.fusion.size()
     << " fusion and " << f.system.size() << " system-level item" << (total == 1 ? "" : "s") << ".";
  const Finding* first = !f.compute.empty()  ? &f.compute.front()
                         : !f.system.empty() ? &f.system.front()
                         : !f.fusion.empty() ? &f.fusion.front()
                                             : nullptr;
  if (first) md << " Start with: " << first->title << ".";
  md << "\n\n";
  md << "| Metric | Value |\n|--------|-------|\n";
  md << "| Total Time | " << fixed(t.total_us / 1e3) << " ms |\n";
  md << "| Compute % | " << percent_of_total(t, t.computation_us) << "% |\n";
  md << "| Idle % | " << percent_of_total(t, t.idle_us) << "% |\n";
  md << "| Exposed Communication % | " << percent_of_total(t, t.exposed_comm_us) << "% |\n";
  md << "| Top Bottleneck Category | "
     << (r.top_category.empty() ? std::string("None (no GPU work linked to an op)")
                                : r.top_category + " (" + fixed(r.top_category_percent) + "%)")
     << " |\n\n";
}

void write_warnings(std::ostringstream& md, const AnalysisReport& r) {
  std::vector<const AnalyzerOutcome*> failed;
  for (const auto& a : r.graph.analyzers)
    if (a.status == AnalyzerStatus::kFailed) failed.push_back(&a);
  const auto skipped = r.index->stats().skipped_events();
  std::size_t ran = 0;
  for (const auto& a : r.graph.analyzers)
    if (a.status == AnalyzerStatus::kOk || a.status == AnalyzerStatus::kSkipped) ++ran;
  if (failed.empty() && r.refused_plugins.empty() && skipped == 0 && ran > 0) return;
  md << "## Warnings\n\n";
  if (ran == 0)
    md << "No analyzer ran (none was loaded, or all were disabled), so the sections below report "
          "nothing; run `traceprism plugins` to see what is installed.\n\n";
  if (!failed.empty()) {
    md << "| Analysis | Tier | Error Summary |\n|----------|------|---------------|\n";
    for (const auto* a : failed)
      md << "| " << cell(a->name) << " | Analyzer | " << cell(a->error) << " |\n";
    md << "\nThese are excluded from the recommendations below.\n\n";
  }
  if (!r.refused_plugins.empty()) {
    md << "| Plugin | Reason refused |\n|--------|----------------|\n";
    for (const auto& p : r.refused_plugins)
      md << "| " << cell(p.path.filename().string()) << " | " << cell(p.reason) << " |\n";
    md << "\n";
  }
  if (skipped > 0)
    md << "The trace had " << skipped << " malformed event" << (skipped == 1 ? "" : "s")
       << ", counted and skipped (see findings.json `data_quality`).\n\n";
}

}  // namespace

std::string analysis_markdown(const AnalysisReport& r) {
  const auto& f = r.findings;
  std::ostringstream md;
  md << "# Workload - " << platform_label(r) << " Standalone Analysis\n\n";
  write_summary(md, r);
  write_warnings(md, r);
  md << "---\n\n## Compute Kernel Optimizations\n\n"
     << "Findings from per-category kernel analysis (GEMM, SDPA, elementwise, etc.), focused on "
        "individual kernel efficiency.\n\n";
  write_top_operations(md, r);
  if (f.compute.empty())
    md << "✅ No compute kernel optimization opportunities identified. All categories are within "
          "target performance bounds.\n\n";
  write_cards(md, f.compute);

  md << "---\n\n## Kernel Fusion Opportunities (Experimental)\n\n"
     << "> **Note:** Kernel fusion analysis is experimental. impact_score projections estimate the "
        "recoverable fraction of E2E with 85% memory/compute pipeline overlap. Kernels without "
        "perf "
        "models use their measured trace time as-is. Candidates where fewer than 75% of kernels "
        "have perf models are not reported. Actual recoverable time depends on implementation "
        "feasibility and interaction effects.\n\n";
  if (f.fusion.empty()) md << "No kernel fusion opportunities detected.\n\n";
  write_cards(md, f.fusion);

  md << "---\n\n## System-Level Optimizations\n\n"
     << "> **Note:** System-level analysis is exploratory. The patterns and recommendations below "
        "are under active development and may be refined as system-level analysis matures.\n\n"
     << "Findings from system-level analysis (GPU utilization, memory transfer patterns, "
        "communication/compute overlap). These affect the GPU pipeline as a whole.\n\n";
  if (f.system.empty())
    md << "✅ No system-level bottlenecks detected. GPU activity breakdown shows "
       << percent_of_total(r.timeline, r.timeline.computation_us)
       << "% computation, with negligible memcpy and communication overhead.\n\n";
  write_cards(md, f.system);

  md << "---\n\n## Detailed Analysis\n\n### Compute Kernel Insights\n\n";
  if (f.compute.empty())
    md << "✅ No compute kernel optimization opportunities identified. All categories are within "
          "target performance bounds.\n\n";
  for (const Finding& x : f.compute) write_detail(md, x);
  md << "### Kernel Fusion Insights\n\n";
  if (f.fusion.empty()) md << "No fusion impact estimates available.\n\n";
  for (const Finding& x : f.fusion) write_detail(md, x);
  md << "### System-Level Insights\n\n";
  if (f.system.empty()) md << "✅ No system-level bottlenecks detected.\n\n";
  for (const Finding& x : f.system) write_detail(md, x);

  md << "---\n\n## Appendix\n\n### Model Architecture\n"
     << "- **Model**: Cannot be inferred from trace\n"
     << "- **Architecture**: Cannot be inferred from trace\n"
     << "- **Scale**: Cannot be inferred from trace\n"
     << "- **Precision**: Cannot be inferred from trace\n\n"
     << "### Hardware Reference\n"
     << "- **Platform**: " << platform_label(r) << "\n";
  // Roofline numbers: the measured achievable value when the platform has one, else the peak.
  if (auto bw = r.platform.roofline_bandwidth_gbps())
    md << "- **Peak HBM BW**: " << fixed(*bw / 1000, 1) << " TB/s\n";
  if (auto maf = r.platform.roofline_tflops("matrix_bf16"))
    md << "- **Peak MAF (BF16)**: " << fixed(*maf, 0) << " TFLOPS\n";
  if (auto maf = r.platform.roofline_tflops("matrix_fp8"))
    md << "- **Peak MAF (FP8)**: " << fixed(*maf, 0) << " TFLOPS\n";
  if (r.platform.numbers.empty())
    md << "- Peak numbers: none loaded (no platform file selected).\n";
  return md.str();
}

}  // namespace traceprism::report
