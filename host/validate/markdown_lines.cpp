#include "validate/markdown_lines.hpp"

#include <cctype>
#include <cstdlib>

namespace traceprism::validate {
namespace {

int heading_level(std::string_view line) {
  std::size_t n = 0;
  while (n < line.size() && line[n] == '#') ++n;
  return n > 0 && n < line.size() && line[n] == ' ' ? static_cast<int>(n) : 0;
}

std::vector<std::string> tokens_of(std::string_view text) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    const std::size_t start = i;
    while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    if (i > start) out.emplace_back(text.substr(start, i - start));
  }
  return out;
}

bool is_word(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

// The text between "<!-- <name>" and "-->" on a line that is exactly such a comment.
std::optional<std::string_view> comment_body(std::string_view line, std::string_view name) {
  const std::string_view open = "<!--";
  std::string_view s = line;
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  if (!s.starts_with(open)) return std::nullopt;
  s.remove_prefix(open.size());
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  if (!s.starts_with(name)) return std::nullopt;
  s.remove_prefix(name.size());
  if (!s.empty() && !std::isspace(static_cast<unsigned char>(s.front())) && !s.starts_with("-->"))
    return std::nullopt;  // "impact-beginning" is not "impact-begin"
  const std::size_t close = s.find("-->");
  if (close == std::string_view::npos) return std::nullopt;
  return s.substr(0, close);
}

}  // namespace

std::string trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

MarkdownLines MarkdownLines::split(std::string_view text) {
  MarkdownLines md;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    md.lines.emplace_back(line);
    start = end + 1;
  }
  return md;
}

std::optional<LineRange> section(const MarkdownLines& md, std::string_view heading,
                                 LineRange within) {
  const int level = heading_level(heading);
  for (std::size_t i = within.begin; i < within.end; ++i) {
    if (trim(md.lines[i]) != heading) continue;
    std::size_t end = i + 1;
    while (end < within.end) {
      const int l = heading_level(md.lines[end]);
      if (l > 0 && l <= level) break;
      ++end;
    }
    return LineRange{i + 1, end};
  }
  return std::nullopt;
}

bool is_table_row(std::string_view line) {
  return trim(line).starts_with("|");
}

bool is_separator_row(std::string_view line) {
  const std::string t = trim(line);
  if (!t.starts_with("|")) return false;
  bool dash = false;
  for (char c : t) {
    if (c == '-')
      dash = true;
    else if (c != '|' && c != ':' && c != ' ')
      return false;
  }
  return dash;
}

std::vector<std::string> table_cells(std::string_view row) {
  std::string t = trim(row);
  // A trailing HTML comment (the top-ops-row marker) follows the last pipe.
  if (const std::size_t last = t.rfind('|'); last != std::string::npos) t.resize(last + 1);
  std::vector<std::string> cells;
  std::string current;
  bool open = false;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    if (c == '\\' && i + 1 < t.size() && t[i + 1] == '|') {
      current += '|';
      ++i;
    } else if (c == '|') {
      if (open) cells.push_back(trim(current));
      current.clear();
      open = true;
    } else {
      current += c;
    }
  }
  return cells;
}

std::string ImpactMarker::attribute(const std::string& key) const {
  auto it = attributes.find(key);
  return it == attributes.end() ? std::string() : it->second;
}

bool is_impact_begin(std::string_view line) {
  return comment_body(line, "impact-begin").has_value();
}

bool is_impact_end(std::string_view line) {
  return comment_body(line, "impact-end").has_value();
}

ImpactMarker parse_impact_begin(std::string_view line, std::size_t index) {
  ImpactMarker m;
  m.line = index;
  m.tokens = tokens_of(comment_body(line, "impact-begin").value_or(""));
  for (const std::string& t : m.tokens) {
    const std::size_t eq = t.find('=');
    if (eq == std::string::npos || eq + 1 == t.size() || !is_word(t.substr(0, eq))) continue;
    m.attributes.emplace(t.substr(0, eq), t.substr(eq + 1));
  }
  return m;
}

std::optional<ReasoningCandidate> parse_reasoning_candidate(std::string_view line) {
  auto body = comment_body(line, "reasoning-candidate");
  if (!body) return std::nullopt;
  ReasoningCandidate c;
  for (const std::string& t : tokens_of(*body)) {
    if (t.starts_with("tier=")) c.tier = t.substr(5);
    if (t.starts_with("rank=")) c.rank = std::atoi(t.c_str() + 5);
  }
  return c;
}

}  // namespace traceprism::validate
