#include "report/shape_args.hpp"

#include <algorithm>
#include <cctype>
#include <map>

#include "io/ascii_text.hpp"
#include "report/py_literal.hpp"

namespace traceprism::report {
namespace {

using io::ascii_lower;

// One (shape, dtype) pair: "(d1,d2) dtype", a trailing comma for 1-D shapes; nothing for a
// shapeless scalar.
std::string render_one(const PyLiteral& dims, const PyLiteral& dtype) {
  static const std::vector<PyLiteral> kNoShape;
  const std::vector<PyLiteral>& shape = dims.is_sequence() ? dims.items : kNoShape;
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

std::optional<std::string> short_dtype(std::string_view torch_dtype) {
  static const std::map<std::string, std::string, std::less<>> kDtypes = {
      {"float", "fp32"},
      {"double", "fp64"},
      {"c10::half", "fp16"},
      {"c10::bfloat16", "bf16"},
      {"c10::float8_e4m3fnuz", "fp8"},
      {"c10::float8_e4m3fn", "fp8"},
      {"unsigned char", "fp8"},
      {"fp8", "fp8"},
      {"fp4", "fp4"},
      {"mxfp4", "fp4"},
      {"c10::float4_e2m1fn_x2", "fp4"},
  };
  auto it = kDtypes.find(ascii_lower(torch_dtype));
  if (it == kDtypes.end()) return std::nullopt;
  return it->second;
}

std::string render_shape_args(std::string_view input_dims, std::string_view input_type) {
  const auto dims = parse_py_literal(input_dims);
  const auto types = parse_py_literal(input_type);
  if (!dims || !types || !dims->is_sequence() || !types->is_sequence()) return {};
  std::string out;
  const std::size_t n = std::min(dims->items.size(), types->items.size());
  for (std::size_t i = 0; i < n; ++i) {
    const std::string part = render_one(dims->items[i], types->items[i]);
    if (!part.empty()) out += (out.empty() ? "" : "<br>") + part;
  }
  return out;
}

}  // namespace traceprism::report
