#include "validate/markdown_patterns.hpp"

#include <array>
#include <cstddef>

namespace traceprism::validate {
namespace {

constexpr std::size_t kNpos = std::string_view::npos;

// The characters of ECMAScript's `\s` in the "C" locale, and what `[^)\s]` stops at.
constexpr std::string_view kSpaces = " \t\n\v\f\r";
constexpr std::string_view kParenOrSpace = ") \t\n\v\f\r";

bool is_space(char c) {
  return kSpaces.find(c) != kNpos;
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

bool is_word(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

// Where the run of characters that `in_run` accepts, starting at `from`, ends.
template <typename Pred>
std::size_t run_end(std::string_view s, std::size_t from, Pred in_run) {
  while (from < s.size() && in_run(s[from])) ++from;
  return from;
}

std::size_t spaces_end(std::string_view s, std::size_t from) {
  return run_end(s, from, is_space);
}

std::size_t digits_end(std::string_view s, std::size_t from) {
  return run_end(s, from, is_digit);
}

bool at(std::string_view s, std::size_t pos, std::string_view literal) {
  return pos <= s.size() && s.substr(pos).starts_with(literal);
}

// The first position at or after `from` that `find` returns, remembered: a regex retried at
// each of many starts would rescan the same tail from each one (quadratic), while the answer
// stays the same until `from` passes it. Asked with non-decreasing `from`.
template <typename Find>
class NextOf {
 public:
  explicit NextOf(Find find) : find_(find) {}

  std::size_t operator()(std::size_t from) {
    if (!known_ || from < from_ || from > found_) {
      found_ = find_(from);
      known_ = true;
    }
    from_ = from;
    return found_;
  }

 private:
  Find find_;
  bool known_ = false;
  std::size_t from_ = 0, found_ = 0;
};

// `[^)\s]+\)` at `from`: the end of the run (the ')'), or kNpos when there is no such match.
template <typename Stop>
std::size_t paren_target_end(std::string_view s, std::size_t from, Stop& stop) {
  const std::size_t end = stop(from);
  return end != kNpos && end > from && s[end] == ')' ? end : kNpos;
}

// `impact_score:\s*[\d.]+\s*` at `pos`: where it ends, or kNpos.
std::size_t impact_score_end(std::string_view s, std::size_t pos) {
  constexpr std::string_view kKey = "impact_score:";
  if (!at(s, pos, kKey)) return kNpos;
  const std::size_t number = spaces_end(s, pos + kKey.size());
  const std::size_t end = run_end(s, number, [](char c) { return is_digit(c) || c == '.'; });
  return end > number ? spaces_end(s, end) : kNpos;
}

// Every position where `impact_score:` starts.
template <typename Accept>
bool any_impact_score(std::string_view s, Accept accept) {
  for (std::size_t i = s.find("impact_score:"); i != kNpos; i = s.find("impact_score:", i + 1))
    if (const std::size_t end = impact_score_end(s, i); end != kNpos && accept(end)) return true;
  return false;
}

}  // namespace

bool has_p_number(std::string_view line) {
  for (std::size_t i = line.find('P'); i != kNpos; i = line.find('P', i + 1)) {
    if (i > 0 && is_word(line[i - 1])) continue;  // `\b`: 'P' is a word character
    const std::size_t end = digits_end(line, i + 1);
    if (end > i + 1 && end < line.size() && line[end] == ':') return true;
  }
  return false;
}

bool has_placeholder_cell(std::string_view line) {
  static constexpr std::array<std::string_view, 4> kCells = {"X ms", "Y%", "Z%", "W%"};
  for (std::size_t i = line.find('|'); i != kNpos; i = line.find('|', i + 1)) {
    const std::size_t cell = spaces_end(line, i + 1);
    for (std::string_view placeholder : kCells) {
      if (!at(line, cell, placeholder)) continue;
      const std::size_t end = spaces_end(line, cell + placeholder.size());
      if (end == line.size() || line[end] == '|') return true;
    }
  }
  return false;
}

std::optional<std::string_view> first_number(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    std::size_t digits = i;
    if ((text[i] == '-' || text[i] == '+') && i + 1 < text.size() && is_digit(text[i + 1]))
      digits = i + 1;
    else if (!is_digit(text[i]))
      continue;
    std::size_t end = digits_end(text, digits);
    if (end + 1 < text.size() && text[end] == '.' && is_digit(text[end + 1]))
      end = digits_end(text, end + 1);
    return text.substr(i, end - i);
  }
  return std::nullopt;
}

std::optional<std::string_view> top_ops_row_attributes(std::string_view line) {
  static constexpr std::string_view kOpen = "<!--", kName = "top-ops-row", kClose = "-->";
  NextOf close([line](std::size_t from) { return line.find(kClose, from); });
  // `.` stops at a line break.
  NextOf line_break([line](std::size_t from) { return line.find_first_of("\n\r", from); });
  for (std::size_t i = line.find(kOpen); i != kNpos; i = line.find(kOpen, i + 1)) {
    const std::size_t name = spaces_end(line, i + kOpen.size());
    if (!at(line, name, kName)) continue;
    const std::size_t from = spaces_end(line, name + kName.size());
    if (from == name + kName.size()) continue;  // `\s+`
    // `\s+` takes every blank, and `(.*?)-->` the nearest `-->` on the line: giving a blank
    // back to `.*?` cannot find another.
    const std::size_t end = close(from);
    if (end != kNpos && end <= line_break(from)) return line.substr(from, end - from);
  }
  return std::nullopt;
}

std::vector<std::string_view> anchor_ids(std::string_view line) {
  constexpr std::string_view kOpen = "<a id=\"";
  std::vector<std::string_view> out;
  for (std::size_t i = line.find(kOpen); i != kNpos;) {
    const std::size_t from = i + kOpen.size();
    const std::size_t quote = line.find('"', from);
    if (quote == kNpos) break;  // a later `<a id="` would hold a quote after `from`
    if (quote > from) {
      out.push_back(line.substr(from, quote - from));
      i = line.find(kOpen, quote + 1);
    } else {
      i = line.find(kOpen, i + 1);
    }
  }
  return out;
}

std::vector<std::string_view> anchor_link_targets(std::string_view line) {
  constexpr std::string_view kOpen = "](#";
  NextOf stop([line](std::size_t from) { return line.find_first_of(kParenOrSpace, from); });
  std::vector<std::string_view> out;
  for (std::size_t i = line.find(kOpen); i != kNpos;) {
    const std::size_t from = i + kOpen.size();
    if (const std::size_t end = paren_target_end(line, from, stop); end != kNpos) {
      out.push_back(line.substr(from, end - from));
      i = line.find(kOpen, end + 1);
    } else {
      i = line.find(kOpen, i + 1);
    }
  }
  return out;
}

std::vector<std::string_view> image_targets(std::string_view line) {
  constexpr std::string_view kOpen = "![";
  NextOf bracket([line](std::size_t from) { return line.find(']', from); });
  NextOf stop([line](std::size_t from) { return line.find_first_of(kParenOrSpace, from); });
  std::vector<std::string_view> out;
  for (std::size_t i = line.find(kOpen); i != kNpos;) {
    // `[^\]]*` runs to the first ']', and no shorter run is followed by one.
    const std::size_t close = bracket(i + kOpen.size());
    if (close == kNpos) break;
    if (at(line, close, "](")) {
      const std::size_t from = close + 2;
      if (const std::size_t end = paren_target_end(line, from, stop); end != kNpos) {
        out.push_back(line.substr(from, end - from));
        i = line.find(kOpen, end + 1);
        continue;
      }
    }
    i = line.find(kOpen, i + 1);
  }
  return out;
}

bool has_standalone_fusion_impact(std::string_view line) {
  return any_impact_score(line, [line](std::size_t pos) {
    constexpr std::string_view kCoverage = "(perf-model coverage ";
    if (!at(line, pos, kCoverage)) return false;
    const std::size_t covered = pos + kCoverage.size();
    const std::size_t slash = digits_end(line, covered);
    if (slash == covered || !at(line, slash, "/")) return false;
    const std::size_t end = digits_end(line, slash + 1);
    return end > slash + 1 && at(line, end, " kernels)");
  });
}

bool has_comparative_fusion_impact(std::string_view line) {
  return any_impact_score(line, [line](std::size_t pos) { return pos == line.size(); });
}

}  // namespace traceprism::validate
