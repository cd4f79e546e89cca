#include <algorithm>
#include <cmath>
#include <sstream>

#include "report/category_figures.hpp"
#include "report/comparison_writers.hpp"
#include "report/markdown_sections.hpp"
#include "text/python_format.hpp"

namespace traceprism::report {
namespace {

using namespace markdown;  // NOLINT(google-build-using-namespace): this file's vocabulary
using comparison::TimeGroup;
using comparison::TimeRow;

constexpr std::size_t kKernelDiffRowsShown = 15;

std::string signed_fixed(double v, int decimals = 2) {
  const std::string s = fixed(std::fabs(v), decimals);
  return (v < 0 && s.find_first_not_of("0.") != std::string::npos ? "-" : "+") + s;
}

double percent_of_window(const model::GpuTimeline& t, double us) {
  return t.total_us > 0 ? us / t.total_us * 100 : 0.0;
}

void write_metric_row(std::ostringstream& md, const char* label, const model::GpuTimeline& a,
                      const model::GpuTimeline& b, double model::GpuTimeline::*field) {
  const double x = percent_of_window(a, a.*field), y = percent_of_window(b, b.*field);
  md << "| " << label << " | " << fixed(x) << "% | " << fixed(y) << "% | "
     << signed_fixed(std::stod(fixed(y)) - std::stod(fixed(x))) << "% |\n";
}

void write_metrics_table(std::ostringstream& md, const ComparativeReport& c) {
  const AnalysisReport& r1 = *c.trace1;
  const AnalysisReport& r2 = *c.trace2;
  const model::GpuTimeline& a = r1.timeline;
  const model::GpuTimeline& b = r2.timeline;
  md << "| Metric | Trace 1 - (" << cell(platform_label(r1)) << ") | Trace 2 - ("
     << cell(platform_label(r2)) << ") | Difference (T2 − T1) |\n"
     << "|--------|---------|---------|----------------------|\n";
  const double diff_ms = std::stod(fixed(b.total_us / 1e3)) - std::stod(fixed(a.total_us / 1e3));
  md << "| Total Time | " << fixed(a.total_us / 1e3) << " ms | " << fixed(b.total_us / 1e3)
     << " ms | " << signed_fixed(diff_ms) << " ms";
  if (a.total_us > 0) md << " (" << signed_fixed(diff_ms / (a.total_us / 1e3) * 100, 1) << "%)";
  md << " |\n";
  write_metric_row(md, "Compute %", a, b, &model::GpuTimeline::computation_us);
  write_metric_row(md, "Idle %", a, b, &model::GpuTimeline::idle_us);
  write_metric_row(md, "Exposed Communication %", a, b, &model::GpuTimeline::exposed_comm_us);
  md << "| Top Bottleneck Category | " << cell(bottleneck_cell(r1, top_bottleneck(r1))) << " | "
     << cell(bottleneck_cell(r2, top_bottleneck(r2))) << " | — |\n\n";
}

// Why no compute item is ranked: TraceDiff matched no op of trace 1 to trace 2, or every
// matched op is at least as fast as its counterpart (analysis-rules.md §11).
std::string no_comparative_compute(const ComparativeReport& c) {
  if (c.diff.trace_diff.empty())
    return "TraceDiff matched no operation of trace 1 to one of trace 2, so no operation's speed "
           "is compared; the time breakdown and the kernel diff below show where the time differs.";
  return "No operation of trace 1 that TraceDiff matched to trace 2 is slower than its "
         "counterpart by enough to rank (at least 0.5% of trace 1's end-to-end time).";
}

void write_summary(std::ostringstream& md, const ComparativeReport& c) {
  const auto& f = c.trace1->findings;
  md << "## Executive Summary\n\n" << c.diff.gap_summary;
  if (c.trace1->diagnosis.order.empty())
    md << " No item of trace 1 explains the gap.";
  else
    write_where_to_start(md, *c.trace1);
  if (!c.diff.in_both.empty())
    md << " " << c.diff.in_both.size() << " item"
       << (c.diff.in_both.size() == 1 ? " of trace 1 applies" : "s of trace 1 apply")
       << " to both traces alike and " << (c.diff.in_both.size() == 1 ? "is listed" : "are listed")
       << " under System-Level Optimizations, unranked.";
  if (f.compute.empty()) md << " " << no_comparative_compute(c);
  md << "\n\n";
  write_metrics_table(md, c);
  md << "![Performance breakdown](" << kBreakdownChartFile << ")\n\n";
}

std::string count_pair(const TimeRow& row) {
  if (row.count_trace1 < 0) return "—";
  return std::to_string(row.count_trace1) + " / " + std::to_string(row.count_trace2);
}

void write_time_breakdown(std::ostringstream& md, const ComparativeReport& c) {
  md << "### Where the time went\n\n"
     << "Each table below (after the timeline) divides the window: computation by op category, "
        "idle time by host cause, exposed communication by collective and exposed copies by "
        "direction. Difference = trace 1 − trace 2; `time_breakdown.csv` has every row.\n\n";
  std::optional<TimeGroup> group;
  for (const TimeRow& row : c.diff.time_rows) {
    if (!group || *group != row.group) {
      if (group) md << "\n";
      group = row.group;
      md << "**" << comparison::time_group_title(row.group) << "**\n\n"
         << "| Part | Trace 1 (ms) | Trace 2 (ms) | Difference (T1 − T2, ms) | Count (T1 / T2) |\n"
         << "|------|--------------|--------------|--------------------------|-----------------|\n";
    }
    md << "| " << cell(row.label) << " | " << fixed(row.us_trace1 / 1e3, 3) << " | "
       << fixed(row.us_trace2 / 1e3, 3) << " | " << signed_fixed(row.diff_us() / 1e3, 3) << " | "
       << count_pair(row) << " |\n";
  }
  md << "\n";
}

void write_kernel_diff(std::ostringstream& md, const ComparativeReport& c) {
  const auto& rows = c.diff.kernels;
  md << "### Kernel diff\n\n";
  if (rows.empty()) {
    md << "Neither trace has GPU kernels, copies or memsets in its timeline.\n\n";
    return;
  }
  std::size_t differing = 0;
  for (const auto& r : rows) differing += r.time_ns_diff() != 0 || r.count_diff() != 0;
  md << rows.size() << " GPU kernel, copy and memset names, " << differing
     << " of them with a different count or time; the largest time differences (all of them "
        "in `kernel_diff.csv`):\n\n"
     << "| Kernel | Count (T1 / T2) | Count diff | Trace 1 (ms) | Trace 2 (ms) | Difference (T1 − "
        "T2, "
        "ms) |\n"
     << "|--------|-----------------|------------|--------------|--------------|------------------"
        "--------|\n";
  for (std::size_t i = 0; i < rows.size() && i < kKernelDiffRowsShown; ++i) {
    const auto& r = rows[i];
    if (r.time_ns_diff() == 0 && r.count_diff() == 0) break;
    std::string name = r.name.size() > 90 ? r.name.substr(0, 87) + "..." : r.name;
    md << "| " << cell(name) << " | " << r.count_trace1 << " / " << r.count_trace2 << " | "
       << (r.count_diff() > 0 ? "+" : "") << r.count_diff() << " | "
       << fixed(static_cast<double>(r.time_ns_trace1) / 1e6, 3) << " | "
       << fixed(static_cast<double>(r.time_ns_trace2) / 1e6, 3) << " | "
       << signed_fixed(static_cast<double>(r.time_ns_diff()) / 1e6, 3) << " |\n";
  }
  md << "\n";
}

// analysis-rules.md §10.3, comparative columns: computation by category of both traces.
void write_top_operations(std::ostringstream& md, const ComparativeReport& c) {
  const AnalysisReport& r1 = *c.trace1;
  const auto figures = category_figures(r1);
  const double compute_ms = category_whole_ms(r1);
  md << "### Top Operations\n\n<!-- impact-begin kind=top_ops -->\n"
     << "| Rank | Category | Trace 1 Time (ms) | Trace 2 Time (ms) | % of Compute Time | Ops | "
        "Difference (ms) |\n"
     << "|------|----------|-------------------|-------------------|-------------------|-----|"
        "-----------------|\n";
  int rank = 0;
  for (const TimeRow& row : c.diff.time_rows) {
    if (row.group != TimeGroup::kComputation) continue;
    const auto it = figures.find(category_key(row.key));
    const std::string ops = it != figures.end() ? integer(it->second.ops) : "—";
    // The category's comparative rollup (its quantified findings), when it has one.
    const bool rollup = it != figures.end() && it->second.low && it->second.high;
    const double t1 = row.us_trace1 / 1e3, t2 = row.us_trace2 / 1e3;
    md << "| " << ++rank << " | " << cell(row.label) << " | " << fixed(t1, 3) << " | "
       << fixed(t2, 3) << " | " << fixed(compute_ms > 0 ? t1 / compute_ms * 100 : 0.0) << " | "
       << ops << " | " << signed_fixed(t2 - t1, 3)
       << " | <!-- top-ops-row low=" << (rollup ? text::python_float_repr(*it->second.low) : "null")
       << " high=" << (rollup ? text::python_float_repr(*it->second.high) : "null") << " -->\n";
  }
  md << "<!-- impact-end -->\n\n";
}

void write_in_both(std::ostringstream& md, const ComparativeReport& c) {
  if (c.diff.in_both.empty()) return;
  md << "Also in trace 2, so not ranked (they do not explain the gap):\n\n";
  for (const auto& f : c.diff.in_both) {
    md << "- " << f.title << " (" << f.analyzer << " analyzer";
    if (f.us_trace1 && f.us_trace2)
      md << "; time of its cause, " << f.cause << ": " << fixed(*f.us_trace1 / 1e3)
         << " ms in trace 1, " << fixed(*f.us_trace2 / 1e3) << " ms in trace 2";
    else
      md << "; trace 2 has the same finding";
    md << ")\n";
  }
  md << "\n";
}

}  // namespace

std::string comparative_markdown(const ComparativeReport& c) {
  const AnalysisReport& r1 = *c.trace1;
  const auto& f = r1.findings;
  std::ostringstream md;
  md << "# " << model_label(r1) << " - Comparative Analysis: " << platform_label(r1) << " vs "
     << platform_label(*c.trace2) << "\n\n";
  md << "Trace 1 (the run to speed up): `" << r1.trace_path << "`. Trace 2 (the reference it is "
     << "compared against): `" << c.trace2->trace_path << "`.\n\n";
  write_summary(md, c);
  std::vector<std::string> notes = c.diff.warnings;
  for (const auto& [label, r] :
       {std::pair{"Trace 1: ", c.trace1}, std::pair{"Trace 2: ", c.trace2}}) {
    std::ostringstream merge;
    write_capture_merge_note(merge, *r, label);
    if (std::string text = merge.str(); !text.empty()) {
      while (!text.empty() && text.back() == '\n') text.pop_back();
      notes.push_back(std::move(text));
    }
  }
  write_warnings(md, r1, notes, /*capture_merge=*/false);
  md << "---\n\n## Trace Comparison\n\n";
  write_time_breakdown(md, c);
  write_kernel_diff(md, c);

  md << "---\n\n## Compute Kernel Optimizations\n\n"
     << "Computation by op category in both traces; Difference = trace 2 − trace 1.\n\n";
  write_top_operations(md, c);
  md << "Each item is an operation of trace 1 slower than the operations TraceDiff matched it to "
        "in trace 2: efficiency is trace 1's speed as a percentage of trace 2's (never below "
        "trace 1's roofline percentage), and impact is the share of trace 1's end-to-end time "
        "recovered if it reached 75 / 87.5 / 100 % of trace 2's speed.\n\n";
  if (f.compute.empty()) md << no_comparative_compute(c) << "\n\n";
  write_cards(md, f.compute);

  md << "---\n\n## Kernel Fusion Opportunities (Experimental)\n\n"
     << "> **Note:** Kernel fusion analysis is experimental. In a comparison, a candidate is an "
        "op or module of trace 1 whose kernels TraceDiff matched to fewer kernels in trace 2; "
        "impact_score is the measured gap (trace 1's kernel time minus trace 2's) as a share of "
        "trace 1's end-to-end time, with no roofline projection.\n\n";
  if (f.fusion.empty())
    md << (c.diff.trace_diff.empty()
               ? "TraceDiff matched no operation of trace 1 to trace 2, so no fusion candidate is "
                 "compared.\n\n"
               : "No op of trace 1 runs more kernels than trace 2 for the same work with a "
                 "measured gap of at least 2% of end-to-end time.\n\n");
  write_cards(md, f.fusion);

  md << "---\n\n## System-Level Optimizations\n\n"
     << "> **Note:** System-level analysis is exploratory. The patterns and recommendations below "
        "are under active development and may be refined as system-level analysis matures.\n\n"
     << "> **Comparative Note:** System-level analysis is performed on the primary trace "
        "(Trace 1) only. An item is kept when its cause takes at least "
     << fixed(comparison::kSystemGapPercent, 0)
     << "% of trace 1's window more than in trace 2, or, without a measured cause, when trace 2 "
        "does not have it.\n\n"
     << "Findings from system-level analysis (GPU utilization, memory transfer patterns, "
        "communication/compute overlap). These affect the GPU pipeline as a whole.\n\n";
  if (f.system.empty())
    md << "✅ No system-level bottlenecks detected that trace 2 does not share. Trace 1's GPU "
          "activity breakdown shows "
       << percent_of_total(r1.timeline, r1.timeline.computation_us) << "% computation.\n\n";
  write_cards(md, f.system);
  write_in_both(md, c);

  write_detailed_analysis(md, f, no_comparative_compute(c) + "\n\n");

  write_appendix(md, r1);
  md << "- **Trace 2 platform**: " << platform_label(*c.trace2) << "\n";
  return md.str();
}

}  // namespace traceprism::report
