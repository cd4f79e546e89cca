// Inductor Triton kernel op models: perf-model spec §9.7, path V2 (from the trace's args; the
// reference's path V1, which reads Inductor cache files from disk, has no place in a
// trace-only analyzer).
#include "triton_models.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace traceprism::plugins::triton {
namespace {

using std::int64_t;

// Aten op names for splitting a kernel name into its fused ops, sorted for binary search.
// The reference splits against KNOWN_OPS, ~960 aten op names generated from torch 2.11; this
// list is a hand-written SUBSET of those: every op of the FLOPs table below plus the ops that
// commonly show up in Inductor kernel names (pointwise maths, comparisons, reductions, views,
// norms, softmax, indexing, creation). What that means: a kernel name made of listed ops splits
// exactly as the reference splits it. A name with a token that no listed op covers has no
// split, and then (as in the reference, for tokens outside its own list) the kernel gets no
// fused ops and 0 FLOPs; so a kernel that fuses an aten op the reference knows but this list
// lacks loses the FLOPs of its other ops here. Add such ops to the list when a trace shows them.
// clang-format off
constexpr std::string_view kKnownAtenOps[] = {
    "_adaptive_avg_pool2d", "_adaptive_avg_pool2d_backward", "_adaptive_avg_pool3d",
    "_cdist_forward", "_embedding_bag", "_fused_rms_norm", "_fused_rms_norm_backward",
    "_log_softmax", "_log_softmax_backward_data", "_native_batch_norm_legit",
    "_native_batch_norm_legit_functional", "_native_batch_norm_legit_no_training", "_prelu_kernel",
    "_reshape_alias", "_safe_softmax", "_softmax", "_softmax_backward_data", "_to_copy",
    "_unsafe_index", "_unsafe_index_put", "_unsafe_masked_index", "_unsafe_view",
    "_upsample_bilinear2d_aa", "_upsample_nearest_exact2d", "abs", "abs_", "acos", "acosh",
    "adaptive_max_pool2d", "add", "add_", "addcdiv", "addcmul", "addmm", "alias", "all", "amax",
    "amin", "any", "arange", "argmax", "argmin", "as_strided", "as_strided_scatter", "asin",
    "asinh", "atan", "atan2", "atanh", "avg_pool2d", "avg_pool2d_backward", "avg_pool3d",
    "baddbmm", "batch_norm", "bernoulli", "bernoulli_", "bitwise_and", "bitwise_left_shift",
    "bitwise_not", "bitwise_or", "bitwise_right_shift", "bitwise_xor", "bmm", "bucketize", "cat",
    "ceil", "celu", "clamp", "clamp_", "clamp_max", "clamp_min", "clone", "constant_pad_nd",
    "convert_element_type", "convolution", "convolution_backward", "copy", "copy_", "copysign",
    "cos", "cosh", "cumprod", "cumsum", "detach", "diagonal", "diagonal_scatter", "digamma", "div",
    "div_", "dot", "elu", "elu_backward", "embedding", "embedding_dense_backward", "empty",
    "empty_like", "empty_strided", "eq", "erf", "erfc", "erfinv", "exp", "exp2", "expand", "expm1",
    "exponential", "fill", "fill_", "flip", "floor", "floor_divide", "fmod", "frac", "full",
    "full_like", "gather", "ge", "gelu", "gelu_backward", "glu", "glu_backward", "group_norm",
    "gt", "hardsigmoid", "hardsigmoid_backward", "hardswish", "hardswish_backward", "hardtanh",
    "hardtanh_backward", "hypot", "index", "index_add", "index_copy", "index_fill", "index_put",
    "index_put_", "index_select", "instance_norm", "iota", "isfinite", "isinf", "isnan",
    "layer_norm", "le", "leaky_relu", "leaky_relu_backward", "lerp", "lgamma", "lift_fresh_copy",
    "linalg_vector_norm", "log", "log10", "log1p", "log2", "log_sigmoid_backward",
    "log_sigmoid_forward", "logical_and", "logical_not", "logical_or", "logical_xor", "logit",
    "logsumexp", "lt", "masked_fill", "masked_fill_", "masked_scatter", "max",
    "max_pool2d_with_indices", "max_pool2d_with_indices_backward", "maximum", "mean", "min",
    "minimum", "mish", "mm", "mse_loss", "mse_loss_backward", "mul", "mul_", "mv", "nan_to_num",
    "native_batch_norm", "native_batch_norm_backward", "native_dropout", "native_dropout_backward",
    "native_group_norm", "native_group_norm_backward", "native_layer_norm",
    "native_layer_norm_backward", "ne", "neg", "nll_loss_backward", "nll_loss_forward", "norm",
    "ones", "ones_like", "permute", "pow", "prod", "rand", "rand_like", "randint", "randn",
    "randn_like", "reciprocal", "reflection_pad1d", "reflection_pad2d", "relu", "relu_",
    "remainder", "repeat", "replication_pad2d", "reshape", "round", "rsqrt", "rsub",
    "scalar_tensor", "scatter", "scatter_add", "scatter_reduce", "select", "select_backward",
    "select_scatter", "sgn", "sigmoid", "sigmoid_backward", "sign", "silu", "silu_backward", "sin",
    "sinh", "slice", "slice_backward", "slice_scatter", "softplus", "softplus_backward", "sort",
    "split", "split_with_sizes", "sqrt", "squeeze", "stack", "std", "sub", "sub_", "sum", "t",
    "tanh", "tanh_backward", "threshold", "threshold_backward", "topk", "transpose", "tril",
    "triu", "trunc", "unsqueeze", "upsample_bilinear2d", "upsample_bilinear2d_backward",
    "upsample_nearest2d", "upsample_nearest2d_backward", "var", "var_mean", "view", "where",
    "zeros", "zeros_like",
};
// clang-format on

constexpr bool known_ops_sorted() {
  for (std::size_t i = 1; i < std::size(kKnownAtenOps); ++i)
    if (!(kKnownAtenOps[i - 1] < kKnownAtenOps[i])) return false;
  return true;
}
static_assert(known_ops_sorted(), "kKnownAtenOps must stay sorted and unique (binary search)");

// Longest op name in kKnownAtenOps, in underscore-separated tokens (bounds the search).
constexpr std::size_t max_op_tokens() {
  std::size_t longest = 0;
  for (std::string_view op : kKnownAtenOps) {
    std::size_t tokens = 1;
    for (char ch : op) tokens += ch == '_';
    longest = std::max(longest, tokens);
  }
  return longest;
}
constexpr std::size_t kMaxOpTokens = max_op_tokens();

struct FlopsPerElement {
  std::string_view op;
  int flops;
};

// FLOPs per element of the fused ops (the reference's table); unlisted ops count 0.
constexpr FlopsPerElement kFlopsPerElement[] = {
    {"add", 1},      {"sub", 1},   {"mul", 1},     {"div", 1},       {"relu", 1}, {"abs", 1},
    {"neg", 1},      {"mean", 1},  {"sum", 1},     {"ne", 1},        {"eq", 1},   {"lt", 1},
    {"gt", 1},       {"pow", 2},   {"sqrt", 2},    {"rsqrt", 2},     {"var", 2},  {"reciprocal", 2},
    {"exp", 4},      {"log", 4},   {"sigmoid", 4}, {"tanh", 4},      {"silu", 4}, {"gelu", 8},
    {"_to_copy", 0}, {"copy_", 0}, {"clone", 0},   {"embedding", 0},
};

std::vector<std::string> split_tokens(std::string_view text) {
  std::vector<std::string> tokens;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find('_', start);
    tokens.emplace_back(text.substr(start, end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return tokens;
}

std::string join_tokens(const std::vector<std::string>& tokens, std::size_t from, std::size_t to) {
  std::string out;
  for (std::size_t i = from; i < to; ++i) {
    if (i > from) out += '_';
    out += tokens[i];
  }
  return out;
}

bool all_digits(std::string_view s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
}

// "triton_poi_fused__unsafe_view_mul_silu_2" -> "_unsafe_view_mul_silu": drop the
// "triton_<kind>_" prefix, the kernel index and the "fused" marker.
std::string_view fused_part(std::string_view name) {
  constexpr std::string_view kTriton = "triton_";
  if (name.substr(0, kTriton.size()) == kTriton) {
    name.remove_prefix(kTriton.size());
    const std::size_t kind_end = name.find('_');
    name = kind_end == std::string_view::npos ? std::string_view() : name.substr(kind_end + 1);
  }
  const std::size_t last = name.rfind('_');
  if (last != std::string_view::npos && all_digits(name.substr(last + 1))) {
    name = name.substr(0, last);
  } else if (all_digits(name)) {
    name = {};
  }
  constexpr std::string_view kFused = "fused";
  if (name.substr(0, kFused.size()) == kFused &&
      (name.size() == kFused.size() || name[kFused.size()] == '_')) {
    name.remove_prefix(std::min(name.size(), kFused.size() + 1));
  }
  return name;
}

// splittable[i]: tokens[0, i) split into known ops.
std::vector<bool> splittable_prefixes(const std::vector<std::string>& tokens) {
  std::vector<bool> splittable(tokens.size() + 1, false);
  splittable[0] = true;
  for (std::size_t i = 1; i <= tokens.size(); ++i)
    for (std::size_t j = i - std::min(i, kMaxOpTokens); j < i && !splittable[i]; ++j)
      splittable[i] = splittable[j] && is_known_aten_op(join_tokens(tokens, j, i));
  return splittable;
}

}  // namespace

bool is_known_aten_op(std::string_view op) {
  return std::binary_search(std::begin(kKnownAtenOps), std::end(kKnownAtenOps), op);
}

int flops_per_element(std::string_view op) {
  for (const auto& entry : kFlopsPerElement)
    if (entry.op == op) return entry.flops;
  return 0;
}

std::vector<std::string> fused_ops_of(std::string_view kernel_name) {
  const std::string_view part = fused_part(kernel_name);
  if (part.empty()) return {};
  const std::vector<std::string> tokens = split_tokens(part);
  const std::vector<bool> splittable = splittable_prefixes(tokens);
  // No split into known ops (e.g. a custom op's name in the kernel name): no ops at all, as in
  // the reference ("triton_poi_fused_constant_pad_nd_moe_forward_0" has fused_ops '').
  if (!splittable.back()) return {};
  // Walk back from the end, taking the longest op that leaves a splittable prefix.
  std::vector<std::string> ops;
  for (std::size_t i = tokens.size(); i > 0;) {
    std::size_t start = i - std::min(i, kMaxOpTokens);
    while (!(splittable[start] && is_known_aten_op(join_tokens(tokens, start, i)))) ++start;
    ops.push_back(join_tokens(tokens, start, i));
    i = start;
  }
  std::reverse(ops.begin(), ops.end());
  return ops;
}

namespace {

// Bytes per element in the reference's Triton model, which keys its own table by c10
// scalar-type names. Kineto writes most dtypes in C spelling ("float", "long int", "int",
// "bool"), which that table does not know: such tensors count 0 bytes and give no precision
// (the golden `triton_poi_fused__to_copy_1` row: an fp32 input and a bf16 output move 16 MiB,
// with Compute Spec vector_bfloat16). Kept for parity.
std::optional<int64_t> c10_bytes_per_element(std::string_view dtype) {
  static constexpr std::pair<std::string_view, int64_t> kSizes[] = {
      {"c10::bfloat16", 2},       {"c10::half", 2},
      {"c10::float", 4},          {"c10::double", 8},
      {"c10::long", 8},           {"c10::int", 4},
      {"c10::short", 2},          {"c10::char", 1},
      {"c10::byte", 1},           {"c10::bool", 1},
      {"c10::float8_e4m3fn", 1},  {"c10::float8_e4m3fnuz", 1},
      {"c10::float8_e5m2", 1},    {"c10::float8_e5m2fnuz", 1},
      {"c10::float8_e8m0fnu", 1}, {"c10::float4_e2m1fn_x2", 1}};
  const std::string lower = lower_ascii(dtype);
  for (const auto& [name, bpe] : kSizes)
    if (lower == name) return bpe;
  return std::nullopt;
}

bool is_tensor_type(const std::string& type) {
  return !type.empty() && type != "Scalar" && type != "ScalarList";
}

// "c10::BFloat16" -> "bfloat16": the dtype lower-cased without its namespace.
std::string triton_precision(std::string_view dtype) {
  const std::size_t colon = dtype.rfind("::");
  if (colon != std::string_view::npos) dtype.remove_prefix(colon + 2);
  return lower_ascii(dtype);
}

// The integer Concrete Inputs (the kernel's numel arguments), in order.
std::vector<int64_t> concrete_ints(const OpCall& c) {
  std::vector<int64_t> ints;
  for (std::size_t i = 0; i < c.concrete_count(); ++i) {
    try {
      ints.push_back(parse_int(c.concrete(i)));
    } catch (const BadArgs&) {
    }
  }
  return ints;
}

bool is_pointwise(std::string_view name) {
  return name.substr(0, 11) == "triton_poi_";
}

// A tensor's dims (ints), not a tensor list's (a list of shapes).
bool is_single_shape(const ArgValue& dims) {
  return !dims.is_int && std::all_of(dims.items.begin(), dims.items.end(),
                                     [](const ArgValue& d) { return d.is_int; });
}

struct TensorTraffic {
  int64_t bytes = 0;
  int64_t first_bpe = 0;        // the first tensor arg's (the output pointer's) size, 0 unknown
  std::string precision_dtype;  // the first tensor arg with a known size
};

TensorTraffic tensor_traffic(const OpCall& c) {
  TensorTraffic t;
  bool first = true;
  const std::size_t n = std::min(c.arg_count(), c.type_count());
  for (std::size_t i = 0; i < n; ++i) {
    if (!is_tensor_type(c.type(i)) || !is_single_shape(c.dims(i))) continue;
    const int64_t bpe = c10_bytes_per_element(c.type(i)).value_or(0);
    if (first) t.first_bpe = bpe;
    first = false;
    if (bpe != 0 && t.precision_dtype.empty()) t.precision_dtype = c.type(i);
    t.bytes += numel(c.shape(i)) * bpe;
  }
  return t;
}

std::string fused_ops_param(const std::vector<std::string>& ops) {
  std::string out;
  for (const auto& op : ops) out += (out.empty() ? "aten." : ", aten.") + op;
  return out;
}

}  // namespace

void model_triton_kernel(const OpCall& c, OpModelResult& r) {
  r.category = "triton";
  // The reference's can_model: without shape or numel args the op has no model (category
  // only, so the unified table keeps it as a leaf op with its kernel time).
  if (!c.has_dims() || !c.has_types() || !c.has_concrete()) {
    r.has_model = false;
    return;
  }
  const bool pointwise = is_pointwise(c.name());
  const std::vector<int64_t> ints = concrete_ints(c);
  if (ints.size() < (pointwise ? 1u : 2u)) {
    r.has_model = false;
    return;
  }
  // Pointwise: xnumel is the last integer; reductions: (xnumel, rnumel) are the last two.
  const int64_t xnumel = pointwise ? ints.back() : ints[ints.size() - 2];
  const int64_t rnumel = pointwise ? 1 : ints.back();
  const std::vector<std::string> ops = fused_ops_of(c.name());
  r.param_str("fused_ops", fused_ops_param(ops));
  r.param("xnumel", xnumel);
  r.param("rnumel", rnumel);
  int64_t flops_per_elem = 0;
  for (const auto& op : ops) flops_per_elem += flops_per_element(op);
  r.flops = static_cast<double>(flops_per_elem * xnumel * rnumel);
  const TensorTraffic t = tensor_traffic(c);
  // The tensor args are read once; a pointwise kernel also writes xnumel elements of its first
  // pointer's dtype (a reduction's output is left out).
  int64_t bytes = t.bytes;
  if (pointwise) bytes += t.first_bpe * xnumel;
  r.bytes = static_cast<double>(bytes);
  if (!t.precision_dtype.empty())
    r.compute_spec = compute_spec("vector", triton_precision(t.precision_dtype));
}

const char* const kTritonKernelNames[] = {"triton_poi_*", "triton_red_*", "triton_per_*", nullptr};

}  // namespace traceprism::plugins::triton
