#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <sstream>

#include "report/category_figures.hpp"
#include "report/high_variance.hpp"
#include "report/markdown_sections.hpp"
#include "report/report_writers.hpp"
#include "text/python_format.hpp"

namespace traceprism::report {
namespace {

using namespace markdown;  // NOLINT(google-build-using-namespace): this file's vocabulary

void write_top_operations(std::ostringstream& md, const AnalysisReport& r,
                          const std::vector<TopOperationRow>& rows) {
  md << "### Top Operations\n\n<!-- impact-begin kind=top_ops -->\n"
     << "| Rank | Category | Time (ms) | % of Compute Time | Ops |\n"
     << "|------|----------|-----------|-------------------|-----|\n";
  const double compute_ms = category_whole_ms(r);
  int rank = 0;
  for (const TopOperationRow& row : rows) {
    const CategoryFigures& f = row.figures;
    const double share = compute_ms > 0 ? f.time_ms / compute_ms * 100 : 0.0;
    md << "| " << ++rank << " | " << cell(row.display_name) << " | "
       << text::python_float_repr(std::round(f.time_ms * 1000) / 1000) << " | " << fixed(share)
       << " | " << static_cast<long long>(f.ops) << " | <!-- top-ops-row low="
       << (row.quantified && f.low ? text::python_float_repr(*f.low) : "null")
       << " high=" << (row.quantified && f.high ? text::python_float_repr(*f.high) : "null")
       << " -->\n";
  }
  md << "<!-- impact-end -->\n\n";
}

// "GEMM (10.9 ms, 71.2% of computation), CONV_fwd (...)": the three largest categories.
std::string largest_categories(const AnalysisReport& r) {
  const auto names = category_display_names(r);
  std::vector<std::pair<std::string, double>> cats;
  for (const findings::CategoryShare& s : r.diagnosis.computation_by_category)
    cats.emplace_back(s.category, s.time_us / 1000);
  if (cats.empty())
    for (const auto& [key, f] : category_figures(r))
      if (f.time_ms > 0) {
        auto it = names.find(key);
        cats.emplace_back(it != names.end() ? it->second : key, f.time_ms);
      }
  std::stable_sort(cats.begin(), cats.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  const double compute_ms = category_whole_ms(r);
  std::string out;
  for (std::size_t i = 0; i < cats.size() && i < 3; ++i) {
    if (i) out += i + 1 == std::min<std::size_t>(cats.size(), 3) ? " and " : ", ";
    out += cats[i].first + " (" + fixed(cats[i].second) + " ms";
    if (compute_ms > 0)
      out += ", " + fixed(cats[i].second / compute_ms * 100, 1) + "% of computation";
    out += ")";
  }
  return out;
}

// "The GPU idles 45.60% of the run in dataloader waits and 2.10% in launch overhead": the
// causes of the idle time, as % of the run, largest first.
void write_idle_causes(std::ostringstream& md, const AnalysisReport& r) {
  const auto& causes = r.diagnosis.idle_by_cause;
  if (causes.empty()) return;
  md << " By cause, the GPU idles ";
  const std::size_t shown = std::min<std::size_t>(causes.size(), 3);
  for (std::size_t i = 0; i < shown; ++i) {
    if (i) md << (i + 1 == shown ? " and " : ", ");
    std::string label = causes[i].cause;
    std::replace(label.begin(), label.end(), '_', ' ');
    md << fixed(causes[i].percent_of_e2e) << "% of the run in " << label;
  }
  if (causes.size() > shown) md << " (" << causes.size() - shown << " smaller causes follow)";
  md << ".";
}

void write_narrative(std::ostringstream& md, const AnalysisReport& r) {
  const model::GpuTimeline& t = r.timeline;
  const auto& f = r.findings;
  if (r.multi_rank)
    md << "Across " << r.multi_rank->ranks_analyzed << " ranks (" << r.multi_rank->ranks_analyzed
       << " of " << r.multi_rank->world_size << " analysed); focus rank "
       << r.multi_rank->focus_rank << ", whose timeline the figures below describe. ";
  if (t.events == 0) {
    md << "The trace has no GPU activity linked to a host launch, so GPU utilization cannot be "
          "measured; the host-side analyzers still ran.";
  } else {
    md << "Over " << fixed(t.total_us / 1e3)
       << " ms from the first to the last GPU activity, the GPU computes "
       << percent_of_total(t, t.computation_us) << "% of the time and is idle "
       << percent_of_total(t, t.idle_us) << "%; exposed communication takes "
       << percent_of_total(t, t.exposed_comm_us) << "% and exposed memory copies "
       << percent_of_total(t, t.exposed_memcpy_us) << "%.";
    const std::string largest = largest_categories(r);
    if (!largest.empty()) md << " Kernel time is dominated by " << largest << ".";
    if (const auto covered = r.diagnosis.compute_coverage_percent)
      md << " Perf models cover " << fixed(*covered, 1) << "% of the computation time.";
    write_idle_causes(md, r);
  }
  if (!f.compute.empty())
    md << " The top compute item is \"" << f.compute.front().title << "\" with "
       << impact_phrase(f.compute.front()) << ".";
  else
    md << " No compute kernel optimization opportunity was identified.";
  if (!f.fusion.empty())
    md << " The top kernel fusion candidate, \"" << f.fusion.front().title << "\", has "
       << impact_phrase(f.fusion.front()) << ".";
  if (!f.system.empty())
    md << " At the system level, the first item is \"" << f.system.front().title << "\".";
  else
    md << " No system-level bottleneck was flagged.";
  write_where_to_start(md, r);
  const std::size_t total = f.compute.size() + f.fusion.size() + f.system.size();
  md << " In all, the analysis reports " << f.compute.size() << " compute, " << f.fusion.size()
     << " fusion and " << f.system.size() << " system-level item" << (total == 1 ? "" : "s")
     << ".\n\n";
}

// multi-rank.md §9.3: the job around the focus rank, after the five rows.
void write_multi_rank_rows(std::ostringstream& md, const AnalysisReport& r) {
  if (!r.multi_rank) return;
  const pipeline::MultiRankFacts& m = *r.multi_rank;
  md << "| Ranks Analyzed | " << m.ranks_analyzed << " of " << m.world_size << " |\n";
  md << "| Focus Rank | " << m.focus_rank << " |\n";
  md << "| Slowest Rank(s) | ";
  if (m.slowest_ranks.empty()) {
    md << "none flagged";
  } else {
    for (std::size_t i = 0; i < m.slowest_ranks.size(); ++i)
      md << (i ? ", " : "") << m.slowest_ranks[i];
    md << " (last at " << fixed(m.slowest_last_percent, 0) << "% of collectives)";
  }
  md << " |\n";
  md << "| Collective Wait % | " << fixed(m.collective_wait_percent) << "% |\n";
}

void write_summary(std::ostringstream& md, const AnalysisReport& r) {
  const model::GpuTimeline& t = r.timeline;
  md << "## Executive Summary\n\n";
  write_narrative(md, r);
  md << "| Metric | Value |\n|--------|-------|\n";
  md << "| Total Time | " << fixed(t.total_us / 1e3) << " ms |\n";
  md << "| Compute % | " << percent_of_total(t, t.computation_us) << "% |\n";
  md << "| Idle % | " << percent_of_total(t, t.idle_us) << "% |\n";
  md << "| Exposed Communication % | " << percent_of_total(t, t.exposed_comm_us) << "% |\n";
  md << "| Top Bottleneck Category | " << cell(bottleneck_cell(r, top_bottleneck(r))) << " |\n";
  write_multi_rank_rows(md, r);
  md << "\n![Performance breakdown](" << kBreakdownChartFile << ")\n\n";
}

// diagnosis.md §1.4: how much of the computation the items above could judge.
void write_coverage_line(std::ostringstream& md, const AnalysisReport& r) {
  const std::optional<double> covered = r.diagnosis.compute_coverage_percent;
  if (!covered || r.findings.compute.empty()) return;
  md << "Perf models cover " << fixed(*covered, 1) << "% of the computation time; "
     << fixed(100.0 - *covered, 1)
     << "% is unassessed (items about it are marked unmodeled and rank by their low bound).\n\n";
}

}  // namespace

std::string analysis_markdown(const AnalysisReport& r) {
  const auto& f = r.findings;
  const std::vector<TopOperationRow> top_ops = top_operations(r);
  std::ostringstream md;
  md << "# " << model_label(r) << " - " << platform_label(r) << " Standalone Analysis\n\n";
  write_summary(md, r);
  write_warnings(md, r, r.multi_rank ? r.multi_rank->warnings : std::vector<std::string>{});
  md << "---\n\n## Compute Kernel Optimizations\n\n"
     << "Findings from per-category kernel analysis (GEMM, SDPA, elementwise, etc.), focused on "
        "individual kernel efficiency.\n\n";
  write_top_operations(md, r, top_ops);
  write_coverage_line(md, r);
  if (f.compute.empty()) md << no_compute_items(r);
  write_cards(md, f.compute);

  md << "---\n\n## Kernel Fusion Opportunities (Experimental)\n\n"
     << "> **Note:** Kernel fusion analysis is experimental. impact_score projections estimate the "
        "recoverable fraction of E2E with 85% memory/compute pipeline overlap. Kernels without "
        "perf models use their measured trace time as-is. Candidates where fewer than 75% of "
        "kernels have perf models are not reported. Actual recoverable time depends on "
        "implementation feasibility and interaction effects.\n\n";
  if (f.fusion.empty()) md << no_fusion_items(r);
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
  write_steps(md, r);

  write_detailed_analysis(md, f, no_compute_items(r));

  write_appendix(md, r);
  return md.str();
}

}  // namespace traceprism::report
