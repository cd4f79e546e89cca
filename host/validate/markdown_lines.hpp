// analysis.md read back as numbered lines, with the few Markdown shapes the report validator
// needs: sections by heading, table rows split into cells, impact markers.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace traceprism::validate {

struct MarkdownLines {
  std::vector<std::string> lines;  // without line ends; lines[i] is line i + 1

  static MarkdownLines split(std::string_view text);
  std::size_t size() const { return lines.size(); }
};

// A range of lines [begin, end) (0-based indexes), e.g. one `## ` section.
struct LineRange {
  std::size_t begin = 0, end = 0;
  bool contains(std::size_t i) const { return i >= begin && i < end; }
};

// The lines under the heading line equal to `heading` up to the next heading of the same or a
// higher level (`## ` ends at `## ` or `# `), searched from `within`; nullopt when absent.
std::optional<LineRange> section(const MarkdownLines& md, std::string_view heading,
                                 LineRange within);

// Cells of a table row "| a | b \| c |" -> {"a", "b | c"}; an HTML comment after the last
// pipe is not a cell. Cells are trimmed; "\|" is an escaped pipe.
std::vector<std::string> table_cells(std::string_view row);
bool is_table_row(std::string_view line);
bool is_separator_row(std::string_view line);  // |---|:--| ...

// `<!-- impact-begin kind=... low=... -->`: the attribute tokens in order, as written.
struct ImpactMarker {
  std::size_t line = 0;                                 // 0-based
  std::vector<std::string> tokens;                      // every token after "impact-begin"
  std::map<std::string, std::string> attributes;        // the well-formed key=value ones
  std::string attribute(const std::string& key) const;  // "" when absent
};
bool is_impact_begin(std::string_view line);
bool is_impact_end(std::string_view line);
ImpactMarker parse_impact_begin(std::string_view line, std::size_t index);

// "<!-- reasoning-candidate tier=compute rank=1 -->": tier and rank, or nullopt.
struct ReasoningCandidate {
  std::string tier;
  int rank = 0;
};
std::optional<ReasoningCandidate> parse_reasoning_candidate(std::string_view line);

std::string trim(std::string_view s);

}  // namespace traceprism::validate
