#pragma once
// A perf-report sheet against the reference's CSV: same rows in the same order; numbers within
// 1e-4 relative (1e-6 absolute near 0); other cells exactly once np.float64(x) / np.int64(x)
// are unwrapped, Python literals (kernel summaries, tuples, dicts) compared as parsed
// structures; an empty golden `param:` cell matches any null spelling (the reference prints a
// missing parameter as empty, "None" or "nan" depending on its version).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "support/csv.hpp"

namespace traceprism::testing {

// A parsed Python literal: None, bool, number, string, or a list/tuple/dict of them.
struct PyValue {
  enum class Kind { kNone, kBool, kNumber, kString, kList, kDict } kind = Kind::kNone;
  double number = 0;
  std::string text;
  std::vector<PyValue> items;  // list / tuple items, or dict keys and values alternating
};

class PyParser {
 public:
  explicit PyParser(std::string_view s) : s_(s) {}
  std::optional<PyValue> parse() {
    auto v = value();
    skip();
    if (!v || i_ != s_.size()) return std::nullopt;
    return v;
  }

 private:
  void skip() {
    while (i_ < s_.size() && s_[i_] == ' ') ++i_;
  }
  bool eat(std::string_view word) {
    skip();
    if (s_.substr(i_, word.size()) != word) return false;
    i_ += word.size();
    return true;
  }
  std::optional<PyValue> sequence(char close, bool dict) {
    PyValue v;
    v.kind = dict ? PyValue::Kind::kDict : PyValue::Kind::kList;
    while (true) {
      skip();
      if (i_ < s_.size() && s_[i_] == close) {
        ++i_;
        return v;
      }
      auto item = value();
      if (!item) return std::nullopt;
      v.items.push_back(*item);
      if (dict) {
        if (!eat(":")) return std::nullopt;
        auto val = value();
        if (!val) return std::nullopt;
        v.items.push_back(*val);
      }
      skip();
      if (i_ < s_.size() && s_[i_] == ',') ++i_;
    }
  }
  std::optional<PyValue> string() {
    const char quote = s_[i_++];
    PyValue v;
    v.kind = PyValue::Kind::kString;
    while (i_ < s_.size() && s_[i_] != quote) {
      if (s_[i_] == '\\' && i_ + 1 < s_.size()) ++i_;
      v.text += s_[i_++];
    }
    if (i_ >= s_.size()) return std::nullopt;
    ++i_;
    return v;
  }
  std::optional<PyValue> value() {
    skip();
    if (i_ >= s_.size()) return std::nullopt;
    const char c = s_[i_];
    if (c == '[' || c == '(') return ++i_, sequence(c == '[' ? ']' : ')', false);
    if (c == '{') return ++i_, sequence('}', true);
    if (c == '\'' || c == '"') return string();
    if (eat("None")) return PyValue{};
    for (const auto& [word, truth] : {std::pair{"True", 1.0}, std::pair{"False", 0.0}}) {
      if (!eat(word)) continue;
      PyValue v;
      v.kind = PyValue::Kind::kBool;
      v.number = truth;
      return v;
    }
    if (eat("np.float64(") || eat("np.int64(")) {  // numpy scalars as numpy >= 2 prints them
      auto v = value();
      if (!v || !eat(")")) return std::nullopt;
      return v;
    }
    const std::size_t start = i_;
    while (i_ < s_.size() &&
           std::string_view("+-.0123456789eEinfa").find(s_[i_]) != std::string_view::npos)
      ++i_;
    if (start == i_) return std::nullopt;
    PyValue v;
    v.kind = PyValue::Kind::kNumber;
    v.number = std::strtod(std::string(s_.substr(start, i_ - start)).c_str(), nullptr);
    return v;
  }
  std::string_view s_;
  std::size_t i_ = 0;
};

inline bool same_number(double golden, double ours) {
  if (std::isnan(golden) || std::isnan(ours)) return std::isnan(golden) && std::isnan(ours);
  return std::fabs(golden - ours) <= std::max(1e-6, 1e-4 * std::fabs(golden));
}

inline bool same_value(const PyValue& a, const PyValue& b);

// Python dicts compare equal whatever their key order.
inline bool same_dict(const PyValue& a, const PyValue& b) {
  if (a.items.size() != b.items.size()) return false;
  for (std::size_t i = 0; i < a.items.size(); i += 2) {
    bool found = false;
    for (std::size_t j = 0; j < b.items.size() && !found; j += 2)
      found = same_value(a.items[i], b.items[j]) && same_value(a.items[i + 1], b.items[j + 1]);
    if (!found) return false;
  }
  return true;
}

inline bool same_value(const PyValue& a, const PyValue& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case PyValue::Kind::kNone:
      return true;
    case PyValue::Kind::kBool:
      return a.number == b.number;
    case PyValue::Kind::kNumber:
      return same_number(a.number, b.number);
    case PyValue::Kind::kString:
      return a.text == b.text;
    case PyValue::Kind::kDict:
      return same_dict(a, b);
    default:
      if (a.items.size() != b.items.size()) return false;
      for (std::size_t i = 0; i < a.items.size(); ++i)
        if (!same_value(a.items[i], b.items[i])) return false;
      return true;
  }
}

inline bool same_cell(const std::string& column, const std::string& golden,
                      const std::string& ours) {
  if (golden == ours) return true;
  if (column.starts_with("param: ")) {
    // The reference prints a missing / None parameter as empty, "None" or "nan" depending on
    // its version and pandas' dtype inference; its own test skips the empty golden cells.
    auto is_null = [](const std::string& s) { return s.empty() || s == "None" || s == "nan"; };
    if (golden.empty() && is_null(ours)) return true;
    if (is_null(golden) && is_null(ours)) return true;
  }
  auto g = cell_number(golden), o = cell_number(ours);
  if (g && o) return same_number(*g, *o);
  auto gv = PyParser(golden).parse(), ov = PyParser(ours).parse();
  return gv && ov && same_value(*gv, *ov);
}

// Every golden column in ours, in the same relative order; rows aligned by position.
inline void compare_sheet(const std::string& sheet, const Csv& golden, const Csv& ours) {
  std::vector<std::size_t> golden_at, ours_at;
  bool ordered = true;
  for (std::size_t g = 0; g < golden.header.size(); ++g) {
    const std::size_t c = ours.column(golden.header[g]);
    if (c == ours.header.size()) {
      ADD_FAILURE() << sheet << ": missing column '" << golden.header[g] << "'";
      return;
    }
    if (!ours_at.empty() && c < ours_at.back()) ordered = false;
    golden_at.push_back(g);
    ours_at.push_back(c);
  }
  EXPECT_TRUE(ordered) << sheet << ": columns out of the golden order";
  ASSERT_EQ(ours.rows.size(), golden.rows.size()) << sheet << ": row count";
  int reported = 0;
  for (std::size_t r = 0; r < golden.rows.size(); ++r) {
    for (std::size_t i = 0; i < golden_at.size(); ++i) {
      const std::string& column = golden.header[golden_at[i]];
      const std::string& g = golden.rows[r][golden_at[i]];
      const std::string& o = ours.rows[r][ours_at[i]];
      if (same_cell(column, g, o)) continue;
      if (reported++ < 12)
        ADD_FAILURE() << sheet << " row " << r << " (" << golden.rows[r][0] << ") column '"
                      << column << "':\n  golden: " << g << "\n  ours:   " << o;
    }
  }
  EXPECT_EQ(reported, 0) << sheet << ": " << reported << " cells differ";
}

}  // namespace traceprism::testing
