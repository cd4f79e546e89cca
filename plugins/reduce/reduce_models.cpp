#include "reduce_models.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace traceprism::plugins::reduce {

namespace {

bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

// The reference's informational reduce_type, picked by substring of the op name (so amax is
// "max" and linalg_norm "norm"; cumsum, std, var and logsumexp fall back to "sum").
const char* reduce_type_of(std::string_view name) {
  if (contains(name, "mean")) return "mean";
  if (contains(name, "max")) return "max";
  if (contains(name, "min")) return "min";
  if (contains(name, "norm")) return "norm";
  return "sum";
}

// Quirk Q1 (copied for parity): the reference looks for `dim`/`keepdim` among Concrete Inputs as
// Python ints/bools, but Kineto prints them as strings, so neither is ever found and every
// reduction is costed as producing one element; only the scans keep the input's size.
std::int64_t output_elems(std::string_view name, std::int64_t input_elems) {
  if (contains(name, "cumsum") || contains(name, "cumprod")) return input_elems;
  return 1;
}

std::optional<std::int64_t> bpe_of(const std::optional<std::string>& dtype) {
  if (!dtype || dtype->empty()) return std::nullopt;
  const auto bpe = bytes_per_element(*dtype);
  if (!bpe) return std::nullopt;
  return static_cast<std::int64_t>(*bpe);
}

std::string dtype_in_out_repr(const std::optional<std::string>& dtype_in) {
  // The output dtype would come from an `Output type` arg, which Kineto never records.
  return py::tuple({dtype_in ? py::str_repr(*dtype_in) : std::string(py::none()), py::none()});
}

// Without shapes the reference still answers: 0 FLOPs, unknown bytes, and no reduce_type.
void model_without_shapes(OpModelResult& r) {
  r.param("num_input_elems", std::int64_t{0});
  r.param("num_output_elems", std::int64_t{0});
  r.param_repr("dtype_in_out", py::tuple(std::vector<std::string>{py::none(), py::none()}));
  r.flops = 0;
  r.backward([&] { r.flops_bwd = 0; });  // bytes_bwd stays unknown
}

}  // namespace

void model_reduce(const OpCall& call, OpModelResult& r) {
  r.category = "reduce";  // no bwd_category in the reference; the Reduce_bwd sheet still uses
  r.sheet = "Reduce";     // the backward formulas through autograd linking
  if (!call.has_dims() || call.arg_count() == 0) return model_without_shapes(r);
  const std::int64_t n_in = numel(call.shape(0));
  const std::int64_t n_out = output_elems(call.name(), n_in);
  std::optional<std::string> dtype_in;
  if (call.has_types() && call.type_count() > 0) dtype_in = call.type(0);
  r.param("num_input_elems", n_in);
  r.param("num_output_elems", n_out);
  r.param_repr("dtype_in_out", dtype_in_out_repr(dtype_in));
  r.param_str("reduce_type", reduce_type_of(call.name()));
  r.compute_spec = compute_spec("vector", compute_precision(dtype_in.value_or("")));
  const auto bpe = bpe_of(dtype_in);  // the output has the input's dtype
  r.flops = static_cast<double>(n_in);
  if (bpe) r.bytes = static_cast<double>(n_in * *bpe + n_out * *bpe);
  r.backward([&] {
    r.flops_bwd = r.flops;  // read grad_out, write grad_input
    r.bytes_bwd = r.bytes;
  });
}

const char* const kReduceOpNames[] = {"aten::sum",    "aten::mean",    "aten::max",
                                      "aten::min",    "aten::norm",    "aten::linalg_norm",
                                      "aten::std",    "aten::var",     "aten::logsumexp",
                                      "aten::cumsum", "aten::cumprod", "aten::amin",
                                      "aten::amax",   nullptr};

}  // namespace traceprism::plugins::reduce
