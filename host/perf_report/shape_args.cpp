#include "perf_report/shape_args.hpp"

#include <algorithm>
#include <cctype>

#include <traceprism/python_literal.hpp>

namespace traceprism::perf_report {
namespace {

// One (shape, dtype) pair: "(d1,d2) dtype", a trailing comma for 1-D shapes; nothing for a
// shapeless scalar.
std::string render_one(const PyValue& dims, const PyValue& dtype) {
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

}  // namespace

std::string render_shape_args(std::string_view input_dims, std::string_view input_type) {
  const auto dims = parse_python_literal(input_dims);
  const auto types = parse_python_literal(input_type);
  if (!dims || !types || !dims->is_sequence() || !types->is_sequence()) return {};
  std::string out;
  const std::size_t n = std::min(dims->items.size(), types->items.size());
  for (std::size_t i = 0; i < n; ++i) {
    const std::string part = render_one(dims->items[i], types->items[i]);
    if (!part.empty()) out += (out.empty() ? "" : "<br>") + part;
  }
  return out;
}

}  // namespace traceprism::perf_report
