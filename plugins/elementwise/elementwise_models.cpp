#include "elementwise_models.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace traceprism::plugins::elementwise {

namespace {

using Shape = std::vector<std::int64_t>;

constexpr const char* kElementwise = "elementwise";

// ---- reading the args the way the reference does -----------------------------------------------

using py::list_repr;
using py::stride_or_none;
using py::tuple_repr;

// Input type[0], or nullptr when the key is absent or the list empty (`.get("Input type", [])`).
const std::string* first_type_or_null(const OpCall& call) {
  if (!call.has_types() || call.type_count() == 0) return nullptr;
  return &call.type(0);
}

// name2bpe as a whole number of bytes (every size the reference knows is one).
std::optional<std::int64_t> bpe_of(std::string_view dtype) {
  const auto bpe = bytes_per_element(dtype);
  if (!bpe) return std::nullopt;
  return static_cast<std::int64_t>(*bpe);
}

std::string dtype_repr(const std::optional<std::string>& dtype) {
  return dtype ? py::str_repr(*dtype) : std::string(py::none());
}

std::string vector_spec(std::string_view dtype) {
  return compute_spec("vector", compute_precision(dtype));
}

// ast.literal_eval of an int list such as "[128]" or "[1, 1, 2, 0]"; anything else raises there.
Shape parse_python_int_list(std::string_view text) {
  const auto start = text.find_first_not_of(' ');
  if (start == std::string_view::npos || text[start] != '[')
    throw BadArgs("expected an int list, got '" + std::string(text) + "'");
  return parse_int_list(text);
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

// ---- UnaryElementwise ---------------------------------------------------------------------------

struct UnaryArgs {
  Shape op_shape;
  std::string dtype_in;
  std::optional<std::string> dtype_out;  // None: the output has the input's dtype
  std::string stride_input = py::none();
  std::string stride_output = py::none();
};

void set_unary_category(OpModelResult& r) {
  r.category = kElementwise;
  r.sheet = "UnaryElementwise";
}

void write_unary_params(const UnaryArgs& u, OpModelResult& r) {
  r.param_repr("op_shape", py::tuple(u.op_shape));
  r.param_repr("dtype_in_out", py::tuple({py::str_repr(u.dtype_in), dtype_repr(u.dtype_out)}));
  r.param_repr("stride_input", u.stride_input);
  r.param_repr("stride_output", u.stride_output);
}

// UnaryElementwise base: one FLOP per element; read n at bpe_in, write n at bpe_out.
void finish_unary(const UnaryArgs& u, OpModelResult& r) {
  write_unary_params(u, r);
  const std::int64_t n = numel(u.op_shape);
  r.flops = static_cast<double>(n);
  const auto bpe_in = bpe_of(u.dtype_in);
  const auto bpe_out = u.dtype_out ? bpe_of(*u.dtype_out) : bpe_in;
  if (bpe_in && bpe_out) r.bytes = static_cast<double>(n * *bpe_in + n * *bpe_out);
  r.compute_spec = vector_spec(u.dtype_in);
}

// replication_pad and upsample_nearest: op_shape is the output; the input is read once (repeated
// reads of an element are assumed to hit the cache) and the output written once.
void finish_resize(const OpCall& call, const Shape& in, const Shape& out, OpModelResult& r) {
  const std::string& dtype = call.type(0);
  // Key order as the reference's dict (its perf_params column): the shapes come first.
  r.param_repr("input_shape", py::tuple(in));
  r.param_repr("output_shape", py::tuple(out));
  r.param_repr("op_shape", py::tuple(out));
  r.param_repr("dtype_in_out", py::tuple({py::str_repr(dtype), py::str_repr(dtype)}));
  r.param_repr("stride_input", tuple_repr(call.strides(0)));
  r.param_repr("stride_output", py::none());
  r.flops = static_cast<double>(numel(out));
  if (const auto bpe = bpe_of(dtype))
    r.bytes = static_cast<double>((numel(in) + numel(out)) * *bpe);
  r.compute_spec = vector_spec(dtype);
}

// silu/gelu_and_mul(out, input): input holds gate and up (2·inter), so it is read at twice the
// output's element count.
void model_gated_activation(const OpCall& call, OpModelResult& r, std::int64_t flops_per_elem) {
  set_unary_category(r);
  UnaryArgs u;
  u.op_shape = call.shape(0);
  u.dtype_in = call.type(1);
  u.dtype_out = call.type(0);
  u.stride_input = tuple_repr(call.strides(1));
  u.stride_output = tuple_repr(call.strides(0));
  write_unary_params(u, r);
  const std::int64_t n = numel(u.op_shape);
  r.flops = static_cast<double>(flops_per_elem * n);
  const auto bpe_in = bpe_of(u.dtype_in);
  const auto bpe_out = bpe_of(*u.dtype_out);
  // The reference multiplies by None here (TypeError): an unknown dtype fails the row.
  if (!bpe_in || !bpe_out) throw BadArgs("gated activation on a dtype without a byte size");
  r.bytes = static_cast<double>(2 * n * *bpe_in + n * *bpe_out);
  r.compute_spec = vector_spec(u.dtype_in);
}

// ---- BinaryElementwise --------------------------------------------------------------------------

struct BinaryArgs {
  Shape shape_in1, shape_in2;
  std::string dtype_in1, dtype_in2;
  std::optional<std::string> dtype_out;
  std::string stride_input1, stride_input2;
  std::string stride_output = py::none();
};

void set_binary_category(OpModelResult& r) {
  r.category = kElementwise;
  r.sheet = "BinaryElementwise";
}

// NumPy broadcasting: left-pad with 1s; a pair of sizes must match unless one of them is 1.
Shape broadcast_shape(Shape a, Shape b) {
  const std::size_t ndim = std::max(a.size(), b.size());
  a.insert(a.begin(), ndim - a.size(), 1);
  b.insert(b.begin(), ndim - b.size(), 1);
  Shape out;
  for (std::size_t i = 0; i < ndim; ++i) {
    if (a[i] != b[i] && a[i] != 1 && b[i] != 1) throw BadArgs("shapes not broadcastable");
    out.push_back(std::max(a[i], b[i]));
  }
  return out;
}

// The output dtype when the op has no out tensor: the wider input when both are real tensors (a
// 0-dim tensor has shape () like a Scalar, so it does not count), else the first input's.
std::optional<std::int64_t> binary_bpe_out(const BinaryArgs& b, std::optional<std::int64_t> bpe1,
                                           std::optional<std::int64_t> bpe2) {
  if (b.dtype_out) return bpe_of(*b.dtype_out);
  if (!bpe1 || !bpe2) return std::nullopt;
  if (!b.shape_in1.empty() && !b.shape_in2.empty()) return std::max(*bpe1, *bpe2);
  return bpe1;
}

// One FLOP per output element; each input is read once at its own size (a broadcast operand is
// assumed to stay in cache), the output written once.
void finish_binary(const BinaryArgs& b, OpModelResult& r) {
  r.param_repr("shape_in1", py::tuple(b.shape_in1));
  r.param_repr("shape_in2", py::tuple(b.shape_in2));
  r.param_repr("dtype_in1_in2_out", py::tuple({py::str_repr(b.dtype_in1), py::str_repr(b.dtype_in2),
                                               dtype_repr(b.dtype_out)}));
  r.param_repr("stride_input1", b.stride_input1);
  r.param_repr("stride_input2", b.stride_input2);
  r.param_repr("stride_output", b.stride_output);
  const std::int64_t n_out = numel(broadcast_shape(b.shape_in1, b.shape_in2));
  const std::int64_t n1 = numel(b.shape_in1), n2 = numel(b.shape_in2);
  r.flops = static_cast<double>(n_out);
  const auto bpe1 = bpe_of(b.dtype_in1), bpe2 = bpe_of(b.dtype_in2);
  const auto bpe_out = binary_bpe_out(b, bpe1, bpe2);
  if (bpe1 && bpe2 && bpe_out)
    r.bytes = static_cast<double>(n1 * *bpe1 + n2 * *bpe2 + n_out * *bpe_out);
  r.compute_spec = vector_spec(b.dtype_in1);
}

BinaryArgs read_two_operands(const OpCall& call) {
  BinaryArgs b;
  b.shape_in1 = call.shape(0);
  b.shape_in2 = call.shape(1);
  b.dtype_in1 = call.type(0);
  b.dtype_in2 = call.type(1);
  b.stride_input1 = tuple_repr(call.strides(0));
  b.stride_input2 = tuple_repr(call.strides(1));
  return b;
}

// bpe of Input type[0] for RoPE / CrossEntropy: bf16 when the types are missing, and 2 bytes for a
// dtype the reference cannot size.
std::int64_t bpe_or_two(const std::string* dtype) {
  const std::string name = dtype ? *dtype : std::string("c10::BFloat16");
  if (name.empty()) return 2;
  return bpe_of(name).value_or(2);
}

}  // namespace

// ---- UnaryElementwise models ------------------------------------------------------------------

void model_unary(const OpCall& call, OpModelResult& r) {
  set_unary_category(r);
  UnaryArgs u;
  u.op_shape = call.shape(0);
  u.dtype_in = call.type(0);
  u.stride_input = tuple_repr(call.strides(0));
  // A second tensor argument (copy_'s src, pow's tensor exponent) sets the output dtype.
  if (call.arg_count() > 1 && !call.dims(1).empty()) {
    u.dtype_out = call.type(1);
    u.stride_output = tuple_repr(call.strides(1));
  }
  finish_unary(u, r);
}

void model_replication_pad(const OpCall& call, OpModelResult& r) {
  set_unary_category(r);
  const Shape in = call.shape(0);
  const Shape pad = parse_python_int_list(call.concrete(1));
  Shape out = in;
  // Pad pairs (before, after) apply from the last dim inwards.
  for (std::size_t i = 0; i < pad.size() / 2; ++i) {
    if (i >= out.size()) throw BadArgs("more padding pairs than dims");
    out[out.size() - 1 - i] += pad[2 * i] + pad[2 * i + 1];
  }
  finish_resize(call, in, out, r);
}

void model_upsample_nearest(const OpCall& call, OpModelResult& r) {
  set_unary_category(r);
  const Shape in = call.shape(0);
  if (in.size() < 2) throw BadArgs("upsample_nearest expects (N, C, *spatial)");
  Shape out{in[0], in[1]};
  for (std::int64_t size : parse_python_int_list(call.concrete(1))) out.push_back(size);
  finish_resize(call, in, out, r);
}

void model_quantize_fp8_tensorwise(const OpCall& call, OpModelResult& r) {
  set_unary_category(r);
  UnaryArgs u;
  u.op_shape = call.shape(0);
  u.dtype_in = call.type(0);
  u.dtype_out = "c10::Float8_e4m3fnuz";  // fixed output dtype: 1 byte per element
  u.stride_input = stride_or_none(call, 0);
  finish_unary(u, r);
}

void model_quantize_mxfp4_dual(const OpCall& call, OpModelResult& r) {
  set_unary_category(r);
  UnaryArgs u;
  u.op_shape = call.shape(0);
  u.dtype_in = call.type(0);
  u.dtype_out = "c10::Float4_e2m1fn_x2";
  u.stride_input = stride_or_none(call, 0);
  write_unary_params(u, r);
  r.flops = static_cast<double>(numel(u.op_shape));
  r.compute_spec = vector_spec(u.dtype_in);
  if (u.op_shape.size() != 2) throw BadArgs("quantize_mxfp4_dual expects an (M, N) input");
  const std::int64_t m = u.op_shape[0], n = u.op_shape[1];
  const auto bpe_in = bpe_of(u.dtype_in);
  if (!bpe_in) return;
  // Read the input; write rowwise and colwise packed fp4 (2 per byte) and one E8M0 scale per
  // 32-element block along each direction.
  constexpr std::int64_t kBlock = 32;
  const std::int64_t bytes = m * n * *bpe_in + (m * n + 1) / 2 + (n * m + 1) / 2 +
                             m * ceil_div(n, kBlock) + n * ceil_div(m, kBlock);
  r.bytes = static_cast<double>(bytes);
}

void model_silu_and_mul(const OpCall& call, OpModelResult& r) {
  model_gated_activation(call, r, 5);
}

void model_gelu_and_mul(const OpCall& call, OpModelResult& r) {
  model_gated_activation(call, r, 8);
}

void model_gelu_tanh_and_mul(const OpCall& call, OpModelResult& r) {
  model_gated_activation(call, r, 10);
}

// ---- BinaryElementwise models -------------------------------------------------------------------

void model_binary(const OpCall& call, OpModelResult& r) {
  set_binary_category(r);
  BinaryArgs b = read_two_operands(call);
  // A third tensor argument is an out tensor; add's alpha Scalar shows as [] and is ignored.
  if (call.arg_count() > 2 && !call.dims(2).empty()) {
    b.dtype_out = call.type(2);
    b.stride_output = tuple_repr(call.strides(2));
  }
  finish_binary(b, r);
}

void model_liger_silu_mul(const OpCall& call, OpModelResult& r) {
  set_binary_category(r);
  finish_binary(read_two_operands(call), r);
}

// ---- RoPE / CrossEntropy ------------------------------------------------------------------------

void model_fused_rope(const OpCall& call, OpModelResult& r) {
  // No bwd_category (the backward is category-only) and no sheet of its own: the host derives
  // the RoPE sheet from the category.
  r.category = "RoPE_fwd";
  const Shape t = call.shape(0);  // (s, b, h, d)
  if (t.size() < 4) throw BadArgs("FusedRoPEFunc expects an (s, b, h, d) input");
  const std::int64_t n = numel(t);
  r.param("seq_len", t[0]);
  r.param("batch", t[1]);
  r.param("heads", t[2]);
  r.param("head_dim", t[3]);
  r.param("num_elements", n);
  const std::string* dtype = first_type_or_null(call);
  // 6 ops per rotated pair; read and write t once (the cos/sin table is not counted).
  r.flops = static_cast<double>(3 * n);
  r.bytes = static_cast<double>(2 * n * bpe_or_two(dtype));
  r.compute_spec = vector_spec(dtype ? *dtype : std::string());
}

void model_rotary_embedding(const OpCall& call, OpModelResult& r) {
  r.category = "RoPE_fwd";
  // (positions, query, key, head_size, cos_sin_cache, is_neox): the kernel rotates query and key
  // in place, so the maths are the fused RoPE's over both (the reference's sheet agrees).
  if (call.arg_count() < 2 || call.shape(1).empty())
    throw BadArgs("rotary_embedding expects a query tensor as input 1");
  const Shape key = call.arg_count() > 2 ? call.shape(2) : Shape{};
  const std::int64_t n = numel(call.shape(1)) + (key.empty() ? 0 : numel(key));
  r.param("num_elements", n);
  const std::string* dtype = call.has_types() && call.type_count() > 1 ? &call.type(1) : nullptr;
  r.flops = static_cast<double>(3 * n);
  r.bytes = static_cast<double>(2 * n * bpe_or_two(dtype));
  r.compute_spec = vector_spec(dtype ? *dtype : std::string());
}

void model_fused_rope_backward(const OpCall&, OpModelResult& r) {
  r.category = "RoPE_bwd";
  r.has_model = false;
}

void model_cross_entropy(const OpCall& call, OpModelResult& r) {
  r.category = "CrossEntropy_fwd";
  const Shape logits = call.shape(0);
  if (logits.empty()) throw BadArgs("CrossEntropyFunction expects a logits tensor");
  const std::int64_t batch = logits.front(), vocab = logits.back();
  r.param("batch", batch);
  r.param("vocab_size", vocab);
  r.param_repr("logits_shape", list_repr(call.dims(0)));  // kept as the trace's list
  const std::string* dtype = first_type_or_null(call);
  // exp, sum, log, subtract, lookup per logit; read the logits, int64 targets, write fp32 loss.
  r.flops = static_cast<double>(5 * batch * vocab);
  r.bytes = static_cast<double>(numel(logits) * bpe_or_two(dtype) + batch * 8 + batch * 4);
  r.compute_spec = vector_spec(dtype ? *dtype : std::string());
}

void model_cross_entropy_backward(const OpCall&, OpModelResult& r) {
  r.category = "CrossEntropy_bwd";
  r.has_model = false;
}

// ---- op names -----------------------------------------------------------------------------------

const char* const kUnaryOpNames[] = {"aten::copy",       "aten::copy_",     "aten::clamp_min",
                                     "aten::clamp_min_", "aten::clamp_max", "aten::clamp_max_",
                                     "aten::sigmoid",    "aten::rsqrt",     "aten::silu",
                                     "aten::neg",        "aten::pow",       nullptr};
const char* const kReplicationPadOpNames[] = {"aten::replication_pad1d", "aten::replication_pad2d",
                                              "aten::replication_pad3d", nullptr};
const char* const kUpsampleNearestOpNames[] = {
    "aten::upsample_nearest1d", "aten::upsample_nearest2d", "aten::upsample_nearest3d", nullptr};
const char* const kQuantizeFp8TensorwiseOpNames[] = {
    "primus_turbo_cpp_extension::quantize_fp8_tensorwise", "primus_turbo::quantize_fp8_tensorwise",
    nullptr};
const char* const kQuantizeMxfp4DualOpNames[] = {"primus_turbo_cpp_extension::quantize_mxfp4_dual",
                                                 "primus_turbo::quantize_mxfp4_dual",
                                                 "primus::quantize_mxfp4_dual", nullptr};
const char* const kSiluAndMulOpNames[] = {"aiter::silu_and_mul", "_C::silu_and_mul",
                                          "sgl_kernel::silu_and_mul", nullptr};
const char* const kGeluAndMulOpNames[] = {"aiter::gelu_and_mul", nullptr};
const char* const kGeluTanhAndMulOpNames[] = {"aiter::gelu_tanh_and_mul", nullptr};
const char* const kBinaryOpNames[] = {"aten::div",
                                      "aten::div_",
                                      "aten::mul",
                                      "aten::mul_",
                                      "aten::add",
                                      "aten::add_",
                                      "aten::sigmoid_backward",
                                      "aten::threshold_backward",
                                      nullptr};
const char* const kLigerSiluMulOpNames[] = {"LigerSiLUMulFunction", nullptr};
const char* const kFusedRopeOpNames[] = {"FusedRoPEFunc", nullptr};
const char* const kRotaryEmbeddingOpNames[] = {"sgl_kernel::rotary_embedding", nullptr};
const char* const kFusedRopeBackwardOpNames[] = {"FusedRoPEFuncBackward", nullptr};
const char* const kCrossEntropyOpNames[] = {"CrossEntropyFunction", nullptr};
const char* const kCrossEntropyBackwardOpNames[] = {"CrossEntropyFunctionBackward", nullptr};

}  // namespace traceprism::plugins::elementwise
