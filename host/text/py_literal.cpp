#include "text/py_literal.hpp"

#include <cctype>
#include <cstdlib>

#include "text/python_repr.hpp"

namespace traceprism::text {
namespace {

// Recursive-descent reader over the text; every parse_* leaves pos_ after what it read.
class Reader {
 public:
  explicit Reader(std::string_view text) : s_(text) {}

  std::optional<PyLiteral> whole() {
    auto v = value(0);
    skip_space();
    if (!v || pos_ != s_.size()) return std::nullopt;
    return v;
  }

 private:
  static constexpr int kMaxDepth = 64;  // the report's cells nest a few levels; stop runaway input

  void skip_space() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool eat(char c) {
    skip_space();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  std::optional<PyLiteral> value(int depth) {
    if (depth > kMaxDepth) return std::nullopt;
    skip_space();
    if (pos_ >= s_.size()) return std::nullopt;
    const char c = s_[pos_];
    if (c == '(') return sequence(')', PyLiteral::Type::kTuple, depth);
    if (c == '[') return sequence(']', PyLiteral::Type::kList, depth);
    if (c == '{') return sequence('}', PyLiteral::Type::kDict, depth);
    if (c == '\'' || c == '"') return string();
    if (c == '-' || c == '+' || c == '.' || std::isdigit(static_cast<unsigned char>(c)))
      return number();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') return word(depth);
    return std::nullopt;
  }

  // Tuples, lists and dicts: items separated by commas (dicts also by colons), a trailing
  // comma allowed; "(x)" without a comma is x itself, as in Python.
  std::optional<PyLiteral> sequence(char close, PyLiteral::Type type, int depth) {
    ++pos_;
    PyLiteral out;
    out.type = type;
    bool saw_comma = false;
    while (!eat(close)) {
      auto item = value(depth + 1);
      if (!item) return std::nullopt;
      out.items.push_back(std::move(*item));
      if (type == PyLiteral::Type::kDict) {
        if (!eat(':')) return std::nullopt;
        auto v = value(depth + 1);
        if (!v) return std::nullopt;
        out.items.push_back(std::move(*v));
      }
      if (eat(',')) {
        saw_comma = true;
        continue;
      }
      if (!eat(close)) return std::nullopt;
      break;
    }
    if (type == PyLiteral::Type::kTuple && out.items.size() == 1 && !saw_comma)
      return std::move(out.items.front());
    return out;
  }

  std::optional<PyLiteral> string() {
    const char quote = s_[pos_++];
    PyLiteral out;
    out.type = PyLiteral::Type::kString;
    while (pos_ < s_.size() && s_[pos_] != quote) {
      char c = s_[pos_++];
      if (c == '\\' && pos_ < s_.size()) {
        const char e = s_[pos_++];
        c = e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e;
      }
      out.text += c;
    }
    if (pos_ >= s_.size()) return std::nullopt;
    ++pos_;
    return out;
  }

  std::optional<PyLiteral> number() {
    const std::size_t start = pos_;
    bool is_float = false;
    if (s_[pos_] == '-' || s_[pos_] == '+') ++pos_;
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (std::isdigit(static_cast<unsigned char>(c))) {
      } else if (c == '.' || c == 'e' || c == 'E') {
        is_float = true;
      } else if ((c == '-' || c == '+') && (s_[pos_ - 1] == 'e' || s_[pos_ - 1] == 'E')) {
      } else {
        break;
      }
      ++pos_;
    }
    PyLiteral out;
    out.text = std::string(s_.substr(start, pos_ - start));
    char* end = nullptr;
    out.number = std::strtod(out.text.c_str(), &end);
    if (end != out.text.c_str() + out.text.size()) return std::nullopt;
    out.type = is_float ? PyLiteral::Type::kFloat : PyLiteral::Type::kInt;
    return out;
  }

  // None / True / False, or a call such as np.float64(1.5), read as its argument.
  std::optional<PyLiteral> word(int depth) {
    const std::size_t start = pos_;
    while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) ||
                                s_[pos_] == '_' || s_[pos_] == '.'))
      ++pos_;
    const std::string_view w = s_.substr(start, pos_ - start);
    PyLiteral out;
    if (w == "None") return out;
    if (w == "True" || w == "False") {
      out.type = PyLiteral::Type::kBool;
      out.boolean = w == "True";
      return out;
    }
    if (!eat('(')) return std::nullopt;
    auto arg = value(depth + 1);
    if (!arg || !eat(')')) return std::nullopt;
    return arg;
  }

  std::string_view s_;
  std::size_t pos_ = 0;
};

}  // namespace

bool PyLiteral::truthy() const {
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

std::string PyLiteral::str() const {
  return type == Type::kString ? text : repr();
}

std::string PyLiteral::repr() const {
  switch (type) {
    case Type::kNone:
      return "None";
    case Type::kBool:
      return boolean ? "True" : "False";
    case Type::kInt:
    case Type::kFloat:
      return text;
    case Type::kString:
      return python_string_repr(text);
    case Type::kDict: {
      std::string out = "{";
      for (std::size_t i = 0; i + 1 < items.size(); i += 2)
        out += (i ? ", " : "") + items[i].repr() + ": " + items[i + 1].repr();
      return out + "}";
    }
    default: {
      const bool tuple = type == Type::kTuple;
      std::string out = tuple ? "(" : "[";
      for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i].repr();
      if (tuple && items.size() == 1) out += ",";
      return out + (tuple ? ")" : "]");
    }
  }
}

std::optional<PyLiteral> parse_py_literal(std::string_view text) {
  return Reader(text).whole();
}

}  // namespace traceprism::text
