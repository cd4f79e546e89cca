// A Python literal (ast.literal_eval subset) as the perf report writes it into text cells:
// `Input Dims` tuples, `perf_params` dicts, `kernel_details_summary` lists of dicts and
// `call_stack_full` nested lists of strings. The compute analyzers read those cells the way the
// reference's analysis scripts do (ast.literal_eval), so the shapes, kernel names and call
// stacks they render are the reference's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace traceprism::compute {

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
  // The value of a dict's string key, or nullptr.
  const PyValue* get(std::string_view key) const;
  // Python's str() of the value: strings bare, numbers as written, containers as repr.
  std::string str() const;
  // Python's repr(): strings quoted.
  std::string repr() const;
};

// Parses one literal (None, True/False, numbers, quoted strings, lists, tuples, dicts; a call
// such as np.float64(1.5) reads as its argument); nullopt when the text is not one.
std::optional<PyValue> parse_python_literal(std::string_view text);

}  // namespace traceprism::compute
