// The text patterns the report validator looks for in analysis.md lines, matched by hand rather
// than with std::regex: libstdc++'s regex matcher recurses once per character matched, and a
// long line (a trace's op or kernel name can be any length; validate-report reads any file)
// overflowed the stack. Each function gives the ECMAScript regex whose std::regex_search (or
// std::sregex_iterator) answer it reproduces exactly; all run in linear time without recursion.
// `\s` is [ \t\n\v\f\r], `\w` is [A-Za-z0-9_], `$` is the end of the text. The views returned
// point into the argument.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace traceprism::validate {

// `\bP\d+:` occurs: "### 🔴 P1: ..." is a P-item heading.
bool has_p_number(std::string_view line);

// `\|\s*(X ms|Y%|Z%|W%)\s*(\||$)` occurs: an Executive Summary cell still holding the
// template's placeholder.
bool has_placeholder_cell(std::string_view line);

// The leftmost match of `[-+]?\d+(\.\d+)?`: "1.5 ms (42%)" -> "1.5"; nullopt when none.
std::optional<std::string_view> first_number(std::string_view text);

// Group 1 of the leftmost match of `<!--\s*top-ops-row\s+(.*?)-->`: the attribute text of a
// Top Operations row marker, "low=1 high=2 " of "| ... <!-- top-ops-row low=1 high=2 -->".
std::optional<std::string_view> top_ops_row_attributes(std::string_view line);

// Group 1 of every match of `<a id="([^"]+)"`, in order: the anchors a line defines.
std::vector<std::string_view> anchor_ids(std::string_view line);

// Group 1 of every match of `\]\(#([^)\s]+)\)`, in order: the in-page anchors a line links to.
std::vector<std::string_view> anchor_link_targets(std::string_view line);

// Group 1 of every match of `!\[[^\]]*\]\(([^)\s]+)\)`, in order: the images a line shows.
std::vector<std::string_view> image_targets(std::string_view line);

// `impact_score:\s*[\d.]+\s*\(perf-model coverage \d+/\d+ kernels\)` occurs: a standalone
// fusion card's Impact line.
bool has_standalone_fusion_impact(std::string_view line);

// `impact_score:\s*[\d.]+\s*$` occurs: a comparative fusion card's Impact line.
bool has_comparative_fusion_impact(std::string_view line);

}  // namespace traceprism::validate
