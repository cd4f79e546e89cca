// A Python literal (ast.literal_eval subset) as the perf report writes it into text cells:
// `Input Dims` tuples, `perf_params` dicts, `kernel_details_summary` lists of dicts and
// `call_stack_full` nested lists of strings. Analyzers read those texts the way the reference's
// analysis scripts do (ast.literal_eval), so the shapes, kernel names and call stacks they
// render are the reference's. The host reads its own cells with it too (model identification,
// validate-report). Header-only C++17.
#pragma once

#include <traceprism/python_text.hpp>

#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace traceprism {

struct PyValue {
  enum class Type { kNone, kBool, kInt, kFloat, kString, kList, kTuple, kDict };
  Type type = Type::kNone;
  bool boolean = false;
  double number = 0;  // kInt and kFloat (ints of the report fit a double exactly)
  // kString: the decoded text; kInt/kFloat: the source token, so that str() reprints it.
  std::string text;
  std::vector<PyValue> items;  // kList/kTuple elements; kDict: key, value, key, value, ...

  bool is_sequence() const { return type == Type::kList || type == Type::kTuple; }
  bool is_number() const { return type == Type::kInt || type == Type::kFloat; }
  bool is_string() const { return type == Type::kString; }
  // Python truthiness (None, False, 0, "" and empty containers are false).
  bool truthy() const {
    switch (type) {
      case Type::kNone:
        return false;
      case Type::kBool:
        return boolean;
      case Type::kInt:
      case Type::kFloat:
        return number != 0;
      case Type::kString:
        return !text.empty();
      default:
        return !items.empty();
    }
  }
  // The value of a dict's string key, or nullptr.
  const PyValue* get(std::string_view key) const;
  // Python's str() of the value: strings bare, numbers as written, containers as repr.
  std::string str() const;
  // Python's repr(): strings quoted.
  std::string repr() const;
};

namespace detail_py {

class Parser {
 public:
  explicit Parser(std::string_view text) : s_(text) {}

  std::optional<PyValue> parse_all() {
    std::optional<PyValue> v = value();
    skip_space();
    if (!v || pos_ != s_.size()) return std::nullopt;
    return v;
  }

 private:
  bool at_end() const { return pos_ >= s_.size(); }
  char peek() const { return at_end() ? '\0' : s_[pos_]; }
  void skip_space() {
    while (!at_end() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool eat(char c) {
    skip_space();
    if (peek() != c) return false;
    ++pos_;
    return true;
  }

  // The report's cells nest a few levels; deeper input is refused, not recursed into.
  static constexpr int kMaxDepth = 64;

  std::optional<PyValue> value() {
    if (depth_ >= kMaxDepth) return std::nullopt;
    const DepthGuard guard(depth_);
    skip_space();
    const char c = peek();
    if (c == '[') return sequence(']', PyValue::Type::kList);
    if (c == '(') return parenthesized();
    if (c == '{') return dict();
    if (c == '\'' || c == '"') return string();
    if (c == '-' || c == '+' || c == '.' || std::isdigit(static_cast<unsigned char>(c)))
      return number();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') return word();
    return std::nullopt;
  }

  // [a, b] and the elements of (a, b); a trailing comma is allowed.
  bool elements(char close, std::vector<PyValue>& out, bool* saw_comma) {
    if (eat(close)) return true;
    for (;;) {
      std::optional<PyValue> v = value();
      if (!v) return false;
      out.push_back(std::move(*v));
      if (eat(close)) return true;
      if (!eat(',')) return false;
      if (saw_comma) *saw_comma = true;
      if (eat(close)) return true;
    }
  }

  std::optional<PyValue> sequence(char close, PyValue::Type type) {
    ++pos_;
    PyValue v;
    v.type = type;
    if (!elements(close, v.items, nullptr)) return std::nullopt;
    return v;
  }

  // "()" and "(a,)" are tuples; "(a)" is just a.
  std::optional<PyValue> parenthesized() {
    ++pos_;
    PyValue v;
    v.type = PyValue::Type::kTuple;
    bool saw_comma = false;
    if (!elements(')', v.items, &saw_comma)) return std::nullopt;
    if (v.items.size() == 1 && !saw_comma) return std::move(v.items.front());
    return v;
  }

  std::optional<PyValue> dict() {
    ++pos_;
    PyValue v;
    v.type = PyValue::Type::kDict;
    if (eat('}')) return v;
    for (;;) {
      std::optional<PyValue> key = value();
      if (!key || !eat(':')) return std::nullopt;
      std::optional<PyValue> item = value();
      if (!item) return std::nullopt;
      v.items.push_back(std::move(*key));
      v.items.push_back(std::move(*item));
      if (eat('}')) return v;
      if (!eat(',')) return std::nullopt;
      if (eat('}')) return v;
    }
  }

  std::optional<PyValue> string() {
    const char quote = s_[pos_++];
    PyValue v;
    v.type = PyValue::Type::kString;
    while (!at_end() && s_[pos_] != quote) {
      char c = s_[pos_++];
      if (c != '\\' || at_end()) {
        v.text += c;
        continue;
      }
      const char e = s_[pos_++];
      switch (e) {
        case 'n':
          v.text += '\n';
          break;
        case 't':
          v.text += '\t';
          break;
        case 'r':
          v.text += '\r';
          break;
        case '0':
          v.text += '\0';
          break;
        case 'x':
          if (pos_ + 2 <= s_.size()) {
            v.text += static_cast<char>(
                std::strtol(std::string(s_.substr(pos_, 2)).c_str(), nullptr, 16));
            pos_ += 2;
          }
          break;
        default:
          v.text += e;
          break;  // \\ \' \" and anything unknown: the character itself
      }
    }
    if (at_end()) return std::nullopt;
    ++pos_;
    return v;
  }

  std::optional<PyValue> number() {
    const std::size_t start = pos_;
    if (peek() == '-' || peek() == '+') ++pos_;
    bool is_float = false;
    while (!at_end()) {
      const char c = s_[pos_];
      if (std::isdigit(static_cast<unsigned char>(c))) {
        ++pos_;
      } else if (c == '.' || c == 'e' || c == 'E') {
        is_float = true;
        ++pos_;
        if ((c == 'e' || c == 'E') && (peek() == '-' || peek() == '+')) ++pos_;
      } else {
        break;
      }
    }
    PyValue v;
    v.type = is_float ? PyValue::Type::kFloat : PyValue::Type::kInt;
    v.text = std::string(s_.substr(start, pos_ - start));
    char* end = nullptr;
    v.number = std::strtod(v.text.c_str(), &end);
    if (end != v.text.c_str() + v.text.size()) return std::nullopt;
    return v;
  }

  // None / True / False, or a call such as np.float64(1.5), read as its single argument.
  std::optional<PyValue> word() {
    const std::size_t start = pos_;
    while (!at_end() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_' ||
                         s_[pos_] == '.'))
      ++pos_;
    const std::string_view w = s_.substr(start, pos_ - start);
    PyValue v;
    if (w == "None") return v;
    if (w == "True" || w == "False") {
      v.type = PyValue::Type::kBool;
      v.boolean = w == "True";
      return v;
    }
    if (!eat('(')) return std::nullopt;
    std::optional<PyValue> inner = value();
    if (!inner || !eat(')')) return std::nullopt;
    return inner;
  }

  class DepthGuard {
   public:
    explicit DepthGuard(int& depth) : depth_(depth) { ++depth_; }
    ~DepthGuard() { --depth_; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;

   private:
    int& depth_;
  };

  std::string_view s_;
  std::size_t pos_ = 0;
  int depth_ = 0;
};

inline std::string join_repr(const std::vector<PyValue>& items, std::size_t step) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); i += step) {
    if (i > 0) out += ", ";
    out += items[i].repr();
    if (step == 2) out += ": " + items[i + 1].repr();
  }
  return out;
}

}  // namespace detail_py

inline const PyValue* PyValue::get(std::string_view key) const {
  if (type != Type::kDict) return nullptr;
  for (std::size_t i = 0; i + 1 < items.size(); i += 2) {
    if (items[i].type == Type::kString && items[i].text == key) return &items[i + 1];
  }
  return nullptr;
}

inline std::string PyValue::str() const {
  return type == Type::kString ? text : repr();
}

inline std::string PyValue::repr() const {
  switch (type) {
    case Type::kNone:
      return "None";
    case Type::kBool:
      return boolean ? "True" : "False";
    case Type::kInt:
    case Type::kFloat:
      return text;
    case Type::kString:
      return py::str_repr(text);
    case Type::kList:
      return "[" + detail_py::join_repr(items, 1) + "]";
    case Type::kTuple:
      return "(" + detail_py::join_repr(items, 1) + (items.size() == 1 ? ",)" : ")");
    case Type::kDict:
      return "{" + detail_py::join_repr(items, 2) + "}";
  }
  return {};
}

// Parses one literal (None, True/False, numbers, quoted strings, lists, tuples, dicts; a call
// such as np.float64(1.5) reads as its argument); nullopt when the text is not one.
inline std::optional<PyValue> parse_python_literal(std::string_view text) {
  return detail_py::Parser(text).parse_all();
}

}  // namespace traceprism
