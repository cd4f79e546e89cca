// A small reader of the Python literals the perf report writes into text cells (`Input Dims`,
// `Input type`). The host cannot link the plugins' parser (plugins/common), and the report
// validator and model identification need to read those cells the way the reference does
// (ast.literal_eval), so the host keeps its own.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace traceprism::text {

struct PyLiteral {
  enum class Type { kNone, kBool, kInt, kFloat, kString, kList, kTuple, kDict };
  Type type = Type::kNone;
  bool boolean = false;
  double number = 0;
  // kString: the decoded text; kInt/kFloat: the token as written, so str() reprints it exactly.
  std::string text;
  std::vector<PyLiteral> items;  // list/tuple elements; dict: key, value, key, value, ...

  bool is_sequence() const { return type == Type::kList || type == Type::kTuple; }
  bool is_number() const { return type == Type::kInt || type == Type::kFloat; }
  // Python truthiness (None, False, 0, "" and empty containers are false).
  bool truthy() const;
  // Python's str(): strings bare, numbers as written, containers as their repr.
  std::string str() const;
  std::string repr() const;
};

// One literal: None, True/False, numbers, quoted strings, lists, tuples, dicts; a call such as
// np.float64(1.5) reads as its argument. nullopt when the whole text is not one literal.
std::optional<PyLiteral> parse_py_literal(std::string_view text);

}  // namespace traceprism::text
