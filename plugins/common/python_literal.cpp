#include "python_literal.hpp"

#include <cctype>
#include <cstdlib>

namespace traceprism::compute {
namespace {

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

  std::optional<PyValue> value() {
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

  std::string_view s_;
  std::size_t pos_ = 0;
};

std::string quoted(const std::string& text) {
  const char quote =
      text.find('\'') != std::string::npos && text.find('"') == std::string::npos ? '"' : '\'';
  std::string out(1, quote);
  for (char c : text) {
    if (c == '\\' || c == quote) out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  out += quote;
  return out;
}

std::string join_repr(const std::vector<PyValue>& items, std::size_t step) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); i += step) {
    if (i > 0) out += ", ";
    out += items[i].repr();
    if (step == 2) out += ": " + items[i + 1].repr();
  }
  return out;
}

}  // namespace

const PyValue* PyValue::get(std::string_view key) const {
  if (type != Type::kDict) return nullptr;
  for (std::size_t i = 0; i + 1 < items.size(); i += 2) {
    if (items[i].type == Type::kString && items[i].text == key) return &items[i + 1];
  }
  return nullptr;
}

std::string PyValue::str() const {
  return type == Type::kString ? text : repr();
}

std::string PyValue::repr() const {
  switch (type) {
    case Type::kNone:
      return "None";
    case Type::kBool:
      return boolean ? "True" : "False";
    case Type::kInt:
    case Type::kFloat:
      return text;
    case Type::kString:
      return quoted(text);
    case Type::kList:
      return "[" + join_repr(items, 1) + "]";
    case Type::kTuple:
      return "(" + join_repr(items, 1) + (items.size() == 1 ? ",)" : ")");
    case Type::kDict:
      return "{" + join_repr(items, 2) + "}";
  }
  return {};
}

std::optional<PyValue> parse_python_literal(std::string_view text) {
  return Parser(text).parse_all();
}

}  // namespace traceprism::compute
