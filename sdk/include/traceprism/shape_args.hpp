// traceprism SDK: the `args` text of an op (analysis-rules.md §4.3), its input shapes and dtypes
// as the compute Data tables print them, e.g. "(256,131072) bf16<br>(131072,512) bf16". The
// compute analyzers render it for their tables and the host renders it to check reports against
// the perf report and to read shapes for model identification: one implementation for both.
// Header-only C++17.
#pragma once

#include <traceprism/dtype.hpp>
#include <traceprism/python_literal.hpp>

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <vector>

namespace traceprism {

// One (shape, dtype) pair: "(d1,d2) dtype", a trailing comma for 1-D shapes; "" for a
// shapeless scalar.
inline std::string render_shape_arg(const PyValue& dims, const PyValue& dtype) {
  static const std::vector<PyValue> kNoShape;
  const std::vector<PyValue>& shape = dims.is_sequence() ? dims.items : kNoShape;
  std::string kind;
  if (dtype.truthy()) kind = short_dtype(dtype.str()).value_or(dtype.str());
  if (shape.empty() && (kind.empty() || kind == "Scalar")) return {};
  std::string body;
  for (std::size_t i = 0; i < shape.size(); ++i) body += (i ? "," : "") + shape[i].str();
  if (shape.size() == 1) body += ",";
  std::string part = "(" + body + ") " + kind;
  while (!part.empty() && std::isspace(static_cast<unsigned char>(part.back()))) part.pop_back();
  return part;
}

// `Input Dims` and `Input type` cells (Python tuple literals) zipped and rendered, joined by
// "<br>"; "" when either cell is not a sequence or nothing renders.
inline std::string render_shape_args(std::string_view input_dims, std::string_view input_type) {
  const std::optional<PyValue> dims = parse_python_literal(input_dims);
  const std::optional<PyValue> types = parse_python_literal(input_type);
  if (!dims || !types || !dims->is_sequence() || !types->is_sequence()) return {};
  std::string out;
  const std::size_t n = std::min(dims->items.size(), types->items.size());
  for (std::size_t i = 0; i < n; ++i) {
    const std::string part = render_shape_arg(dims->items[i], types->items[i]);
    if (!part.empty()) out += (out.empty() ? "" : "<br>") + part;
  }
  return out;
}

}  // namespace traceprism
