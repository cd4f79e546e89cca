// The parts of analysis.md both layouts share (analysis-rules.md §10): number formats, table
// cells, P-item cards and detailed blocks, warnings, steps and the appendix.
#pragma once

#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "report/high_variance.hpp"
#include "report/report_writers.hpp"

namespace traceprism::report::markdown {

std::string fixed(double v, int decimals = 2);
// `us` as % of the timeline's window, 2 decimals.
std::string percent_of_total(const model::GpuTimeline& t, double us);
// A Markdown table cell: no raw pipes or line breaks; empty -> "—".
std::string cell(std::string_view text);
std::string or_else(const std::string& text, std::string_view fallback);
std::optional<double> metric(const findings::Finding& f, std::string_view name);
std::string integer(std::optional<double> v);
std::string heading(const findings::Finding& f);  // "🔴 P1: <title> (<library>)"

void write_table(std::ostringstream& md, const findings::DataTable& t);
// One tier's cards, separated by rules as in the reference template.
void write_cards(std::ostringstream& md, const std::vector<findings::Finding>& findings);
// The Detailed Analysis block of one finding.
void write_detail(std::ostringstream& md, const findings::Finding& f);
// "## Detailed Analysis": each tier's blocks, or a sentence when it has none (`no_compute`
// for the compute tier, which differs between the layouts).
void write_detailed_analysis(std::ostringstream& md, const findings::RankedFindings& f,
                             const std::string& no_compute);

struct Bottleneck {
  std::string name;
  double time_ms = 0;
  bool from_figures = false;  // else the host's op-category fallback with its own percent
};
// diagnosis.md §6.7: the category with the most computation time (see the definition).
std::optional<Bottleneck> top_bottleneck(const AnalysisReport& r);
std::string bottleneck_cell(const AnalysisReport& r, const std::optional<Bottleneck>& b);

// What inference mode's capture merge did (model/capture_merge.hpp), and what it could not; one
// paragraph after `label` ("Trace 2: " in a comparison), nothing without a capture folder.
void write_capture_merge_note(std::ostringstream& md, const AnalysisReport& r,
                              std::string_view label = {});

// "## Warnings" when there is anything to warn about: `notes` (one paragraph each) first, then
// failed analyzers, refused plugins, malformed events and high-variance ops.
// `capture_merge` false: the caller put the capture merge's paragraph into `notes` (comparisons
// label both traces').
void write_warnings(std::ostringstream& md, const AnalysisReport& r,
                    const std::vector<std::string>& notes = {}, bool capture_merge = true);
void write_appendix(std::ostringstream& md, const AnalysisReport& r);
void write_steps(std::ostringstream& md, const AnalysisReport& r);
// The sentences for an empty compute or fusion tier (diagnosis.md §1.4).
// "impact_score 3.42 (2.93–3.90% of end-to-end time)".
std::string impact_phrase(const findings::Finding& f);
// "fusion P1, "Unfused MoE in moe_layer"".
std::string item_label(const findings::Finding& f);
// What to do first (diagnosis.md §7): " Start with <the top of the one cross-tier ranking>
// (cause: ...): <impact>. Then <the next two>."; nothing when nothing is ranked.
void write_where_to_start(std::ostringstream& md, const AnalysisReport& r);
std::string no_compute_items(const AnalysisReport& r);
std::string no_fusion_items(const AnalysisReport& r);

}  // namespace traceprism::report::markdown
