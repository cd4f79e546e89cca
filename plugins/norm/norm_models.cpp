#include "norm_models.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace traceprism::plugins::norm {

namespace {

using Shape = std::vector<std::int64_t>;

// ---- reading the args the way the reference does -----------------------------------------------

using py::list_repr;
using py::stride_or_none;
using py::tuple_repr;

// `Input Dims[i] is not None`: true whenever the slot exists, because Kineto writes an absent
// optional tensor as [] (quirk Q3: affine and bias always count). A missing slot raises.
bool slot_present(const OpCall& call, std::size_t i) {
  call.dims(i);
  return true;
}

std::int64_t dim_at(const Shape& shape, std::size_t i) {
  if (i >= shape.size()) throw BadArgs("tensor has too few dims");
  return shape[i];
}

// `bool(Concrete Inputs[i])` on the printed text (quirk Q2): "False" is true, only "" is false.
bool string_truthiness(const OpCall& call, std::size_t i) {
  return !call.concrete(i).empty();
}

std::string_view trim_spaces(std::string_view text) {
  const auto start = text.find_first_not_of(' ');
  if (start == std::string_view::npos) return {};
  const auto end = text.find_last_not_of(' ');
  return text.substr(start, end - start + 1);
}

// The items of a printed Python list "[a, b, c]"; anything else fails as ast.literal_eval would
// (or as iterating a non-list would).
std::vector<std::string_view> python_list_items(std::string_view text) {
  text = trim_spaces(text);
  if (text.size() < 2 || text.front() != '[' || text.back() != ']')
    throw BadArgs("expected a list, got '" + std::string(text) + "'");
  std::vector<std::string_view> items;
  std::string_view body = text.substr(1, text.size() - 2);
  while (!trim_spaces(body).empty()) {
    const auto comma = body.find(',');
    items.push_back(trim_spaces(body.substr(0, comma)));
    if (comma == std::string_view::npos) break;
    body.remove_prefix(comma + 1);
  }
  return items;
}

// prod(parse_list(text, int)): a normalized_shape such as "[16, 32, 32]".
std::int64_t product_of_int_list(std::string_view text) {
  std::int64_t product = 1;
  for (auto item : python_list_items(text)) product *= parse_int(item);
  return product;
}

// parse_list(text, bool): an output mask such as "[True, False, False]".
std::vector<bool> parse_mask(std::string_view text) {
  std::vector<bool> mask;
  for (auto item : python_list_items(text)) {
    if (item == "True" || item == "False")
      mask.push_back(item == "True");
    else
      mask.push_back(parse_int(item) != 0);
  }
  return mask;
}

bool mask_at(const std::vector<bool>& mask, std::size_t i) {
  if (i >= mask.size()) throw BadArgs("output mask too short");
  return mask[i];
}

// name2bpe as a whole number of bytes; the norm byte formulas multiply by it unguarded, so an
// unknown dtype is a TypeError there: the row fails.
std::int64_t bpe_or_fail(std::string_view dtype) {
  const auto bpe = bytes_per_element(dtype);
  if (!bpe) throw BadArgs("norm on a dtype without a byte size: '" + std::string(dtype) + "'");
  return static_cast<std::int64_t>(*bpe);
}

// ---- the reference's Normalization fields -------------------------------------------------------

struct NormArgs {
  Shape op_shape;
  std::string dtype_in;  // the output dtype is never set: it is the input's
  std::string stride_input = py::none();
  double num_channels = 0;          // C
  bool channels_are_float = false;  // group_norm_backward's C / groups is a Python float
  bool has_bias = true;
  bool is_affine = true;
  bool is_training = true;
  std::optional<std::vector<bool>> output_mask;  // a param of the backward classes only
};

void set_norm_category(OpModelResult& r, const char* category) {
  r.category = category;
  r.bwd_category = "NORM_bwd";  // declared by the Normalization base class for every subclass
  r.sheet = "Normalization";
}

void set_rmsnorm_extension_category(OpModelResult& r) {
  r.category = "RMSNorm";  // no bwd_category
  r.sheet = "RMSNorm";
}

void write_params(const NormArgs& a, OpModelResult& r) {
  r.param_repr("op_shape", py::tuple(a.op_shape));
  r.param_repr("dtype_in_out", py::tuple({py::str_repr(a.dtype_in), py::none()}));
  r.param_repr("stride_input", a.stride_input);
  r.param_repr("stride_output", py::none());
  if (a.channels_are_float)
    r.param("num_channels", a.num_channels);
  else
    r.param("num_channels", static_cast<std::int64_t>(a.num_channels));
  r.param("has_bias", a.has_bias);
  r.param("is_affine", a.is_affine);
  r.param("is_training", a.is_training);
  if (a.output_mask) {
    std::vector<std::string> items;
    for (bool bit : *a.output_mask) items.push_back(py::repr(bit));
    r.param_repr("output_mask", py::list(items));
  }
}

std::int64_t channels_int(const NormArgs& a) {
  return static_cast<std::int64_t>(a.num_channels);
}

// Generic forward: per-channel scale/shift (3C), batch statistics when training (3N), inverse
// std (3C), then a multiply-add per element (2N).
double generic_flops_fwd(const NormArgs& a) {
  const std::int64_t n = numel(a.op_shape), c = channels_int(a);
  return static_cast<double>(3 * c + (a.is_training ? 3 * n : 0) + 3 * c + 2 * n);
}

// Read x, write y, and per channel: mean and var, weight and bias when affine, and the running
// statistics written back when training.
double generic_bytes_fwd(const NormArgs& a) {
  const std::int64_t n = numel(a.op_shape), c = channels_int(a), bpe = bpe_or_fail(a.dtype_in);
  std::int64_t per_channel_tensors = 2;
  if (a.is_affine) per_channel_tensors += a.has_bias ? 2 : 1;
  if (a.is_training) per_channel_tensors += 2;
  return static_cast<double>(n * bpe + n * bpe + per_channel_tensors * c * bpe);
}

// Generic backward, in the reference's float arithmetic (elements per channel is N / C).
double generic_flops_bwd(const NormArgs& a) {
  if (a.num_channels == 0) throw BadArgs("division by zero channels");
  const double elems_per_channel = static_cast<double>(numel(a.op_shape)) / a.num_channels;
  double per_channel = a.is_training ? 0 : 3;  // recompute invstd without saved statistics
  per_channel += 4 * elems_per_channel;        // dot product
  if (mask_at(*a.output_mask, 0)) {
    if (a.is_training) per_channel += 5 * elems_per_channel;
  } else {
    per_channel += 2 * elems_per_channel;
  }
  return a.num_channels * per_channel;
}

double generic_bytes_bwd(const NormArgs& a) {
  const std::int64_t n = numel(a.op_shape), bpe = bpe_or_fail(a.dtype_in);
  const bool grad_input = mask_at(*a.output_mask, 0);
  double bytes = static_cast<double>(n * bpe + n * bpe * (grad_input && a.is_training ? 2 : 1));
  const double c = a.num_channels;
  if (a.is_training) bytes += c * static_cast<double>(bpe);  // saved invstd
  if (a.is_affine) {
    bytes += c * static_cast<double>(bpe);  // weight
    if (a.is_training) bytes += c * static_cast<double>(bpe) * (a.has_bias ? 2 : 1);
  }
  return bytes;
}

void set_vector_spec(const NormArgs& a, OpModelResult& r) {
  r.compute_spec = compute_spec("vector", compute_precision(a.dtype_in));
}

// A forward class: generic forward formulas; its flops_bwd/bytes_bwd raise NotImplementedError
// in the reference, so no backward result (bwd_status stays kNotModelled).
void finish_forward(const NormArgs& a, OpModelResult& r) {
  write_params(a, r);
  set_vector_spec(a, r);
  r.flops = generic_flops_fwd(a);
  r.bytes = generic_bytes_fwd(a);
}

// A backward class: its forward metrics are the generic backward formulas, and so are the
// flops_bwd/bytes_bwd it inherits.
void finish_backward(const NormArgs& a, OpModelResult& r) {
  write_params(a, r);
  set_vector_spec(a, r);
  r.flops = generic_flops_bwd(a);
  r.bytes = generic_bytes_bwd(a);
  r.backward([&] {
    r.flops_bwd = r.flops;
    r.bytes_bwd = r.bytes;
  });
}

// ---- RMSNorm maths ----------------------------------------------------------------------------

// rsqrt of the mean square per row ((N/C)·(2C + 2), a float), then scale each element by it and
// by the weight when affine.
double rms_flops(const NormArgs& a) {
  if (a.num_channels == 0) throw BadArgs("division by zero channels");
  const std::int64_t n = numel(a.op_shape), c = channels_int(a);
  double flops = static_cast<double>(n) / a.num_channels * static_cast<double>(2 * c + 2);
  flops += static_cast<double>(n * (a.is_affine ? 2 : 1));
  return flops;
}

double rms_bytes(const NormArgs& a) {
  const std::int64_t n = numel(a.op_shape), c = channels_int(a), bpe = bpe_or_fail(a.dtype_in);
  return static_cast<double>(n * bpe + n * bpe + (a.is_affine ? c * bpe : 0));
}

// The extension RMSNorm ops: input at `input_slot`, C = the weight's length at `weight_slot`;
// affine, no bias, inference.
NormArgs read_rmsnorm_extension(const OpCall& call, std::size_t input_slot,
                                std::size_t weight_slot) {
  NormArgs a;
  a.op_shape = call.shape(input_slot);
  a.dtype_in = call.type(input_slot);
  a.stride_input = tuple_repr(call.strides(input_slot));
  a.num_channels = static_cast<double>(dim_at(call.shape(weight_slot), 0));
  a.has_bias = false;
  a.is_affine = true;
  a.is_training = false;
  return a;
}

void finish_rmsnorm_extension(const NormArgs& a, OpModelResult& r) {
  write_params(a, r);
  set_vector_spec(a, r);
  r.flops = rms_flops(a);
  r.bytes = rms_bytes(a);
}

}  // namespace

// ---- batch norm ---------------------------------------------------------------------------------

void model_batch_norm(const OpCall& call, OpModelResult& r) {
  set_norm_category(r, "NORM_fwd");
  NormArgs a;  // batch_norm(x, w?, b?, running_mean?, running_var?, training, momentum, eps, ...)
  a.op_shape = call.shape(0);
  a.dtype_in = call.type(0);
  a.stride_input = tuple_repr(call.strides(0));
  a.is_affine = slot_present(call, 2);
  a.is_training = string_truthiness(call, 5);
  a.num_channels = static_cast<double>(dim_at(a.op_shape, 1));  // exactly one batch dim
  finish_forward(a, r);
}

void model_batch_norm_backward(const OpCall& call, OpModelResult& r) {
  set_norm_category(r, "NORM_bwd");
  // native_batch_norm_backward(grad_out, x, w?, rm?, rv?, save_mean?, save_invstd?, train, eps,
  // mask); the cudnn/miopen variants put x first and imply inference statistics.
  const bool x_first = call.name() == "aten::cudnn_batch_norm_backward" ||
                       call.name() == "aten::miopen_batch_norm_backward";
  const std::size_t input = x_first ? 0 : 1;
  NormArgs a;
  const bool has_output = slot_present(call, 0);  // the mask is [grad_out is not None]
  a.is_training = x_first ? false : string_truthiness(call, 7);
  a.op_shape = call.shape(input);
  a.num_channels = static_cast<double>(dim_at(a.op_shape, 1));
  a.dtype_in = call.type(input);
  a.stride_input = tuple_repr(call.strides(input));
  a.output_mask = std::vector<bool>{has_output};
  a.is_affine = slot_present(call, 2);
  finish_backward(a, r);
}

// ---- layer norm ---------------------------------------------------------------------------------

void model_layer_norm(const OpCall& call, OpModelResult& r) {
  set_norm_category(r, "NORM_fwd");
  NormArgs a;  // layer_norm(x, normalized_shape, w?, b?, eps, cudnn_enable)
  a.op_shape = call.shape(0);
  a.num_channels = static_cast<double>(product_of_int_list(call.concrete(1)));
  a.has_bias = slot_present(call, 3);
  a.dtype_in = call.type(0);
  a.stride_input = tuple_repr(call.strides(0));
  a.is_affine = slot_present(call, 2);
  finish_forward(a, r);
}

void model_layer_norm_backward(const OpCall& call, OpModelResult& r) {
  set_norm_category(r, "NORM_bwd");
  NormArgs
      a;  // native_layer_norm_backward(grad_out, x, normalized_shape, mean, rstd, w?, b?, mask)
  a.op_shape = call.shape(1);
  a.num_channels = static_cast<double>(product_of_int_list(call.concrete(2)));
  a.dtype_in = call.type(1);
  a.stride_input = tuple_repr(call.strides(1));
  a.output_mask = parse_mask(call.concrete(7));
  a.is_affine = mask_at(*a.output_mask, 1);  // the mask, not the optional tensors, decides here
  a.has_bias = mask_at(*a.output_mask, 2);
  finish_backward(a, r);
}

// ---- group norm ---------------------------------------------------------------------------------

void model_group_norm(const OpCall& call, OpModelResult& r) {
  set_norm_category(r, "NORM_fwd");
  NormArgs a;  // group_norm(x, groups, w?, b?, eps, cudnn_enable)
  a.op_shape = call.shape(0);
  a.dtype_in = call.type(0);
  a.stride_input = tuple_repr(call.strides(0));
  a.is_affine = slot_present(call, 2);
  a.num_channels = static_cast<double>(dim_at(a.op_shape, 1));  // C, not the group count
  finish_forward(a, r);
}

void model_group_norm_backward(const OpCall& call, OpModelResult& r) {
  set_norm_category(r, "NORM_bwd");
  NormArgs a;  // native_group_norm_backward(grad_out, x, mean, rstd, w?, N, C, HxW, groups, mask)
  a.op_shape = call.shape(1);
  a.dtype_in = call.type(1);
  a.stride_input = tuple_repr(call.strides(1));
  a.is_affine = slot_present(call, 5);
  a.output_mask = parse_mask(call.concrete(9));
  const std::int64_t groups = parse_int(call.concrete(8));
  if (groups == 0) throw BadArgs("zero groups");
  // Channels per group, a float as in Python's true division.
  a.num_channels = static_cast<double>(dim_at(a.op_shape, 1)) / static_cast<double>(groups);
  a.channels_are_float = true;
  finish_backward(a, r);
}

// ---- instance norm ------------------------------------------------------------------------------

void model_instance_norm(const OpCall& call, OpModelResult& r) {
  set_norm_category(r, "NORM_fwd");
  NormArgs a;  // instance_norm(x, w?, b?, rm?, rv?, use_input_stats, momentum, eps, cudnn)
  a.op_shape = call.shape(0);
  a.dtype_in = call.type(0);
  a.stride_input = tuple_repr(call.strides(0));
  a.is_affine = slot_present(call, 2);
  a.is_training = string_truthiness(call, 5);  // use_input_stats plays the training role
  a.num_channels = static_cast<double>(dim_at(a.op_shape, 1));
  finish_forward(a, r);
}

void model_instance_norm_backward(const OpCall&, OpModelResult& r) {
  set_norm_category(r, "NORM_bwd");
  throw NotModelled("backward pass for InstanceNorm is not defined");
}

// ---- RMS norm -----------------------------------------------------------------------------------

void model_fused_rms_norm(const OpCall& call, OpModelResult& r) {
  set_norm_category(r, "NORM_fwd");
  NormArgs a;  // _fused_rms_norm(x, normalized_shape, w?, eps)
  a.op_shape = call.shape(0);
  a.dtype_in = call.type(0);
  a.stride_input = tuple_repr(call.strides(0));
  a.is_affine = slot_present(call, 2);
  a.num_channels = static_cast<double>(product_of_int_list(call.concrete(1)));
  a.has_bias = false;
  a.is_training = false;
  write_params(a, r);
  set_vector_spec(a, r);
  r.flops = rms_flops(a);
  r.bytes = rms_bytes(a);
}

namespace {

// grad_weight = sum(grad_out · x_hat) accumulates across rows only when there is more than one.
double rms_backward_flops(const NormArgs& a) {
  if (a.num_channels == 0) throw BadArgs("division by zero channels");
  const std::int64_t n = numel(a.op_shape);
  const double rows = static_cast<double>(n) / a.num_channels;
  std::int64_t flops = a.is_affine ? n : 0;                // grad_out times weight
  flops += n;                                              // x_hat = x · rstd
  if (mask_at(*a.output_mask, 0)) flops += 2 * n + 4 * n;  // dot product, then grad_in
  if (mask_at(*a.output_mask, 1) && a.is_affine) {
    flops += n;
    if (rows > 1) flops += n;
  }
  return static_cast<double>(flops);
}

}  // namespace

void model_rms_norm_backward(const OpCall& call, OpModelResult& r) {
  set_norm_category(r, "NORM_bwd");
  NormArgs a;  // _fused_rms_norm_backward(grad_out, x, normalized_shape, rstd, w?, mask)
  a.op_shape = call.shape(1);
  a.dtype_in = call.type(1);
  a.stride_input = tuple_repr(call.strides(1));
  a.is_affine = slot_present(call, 4);
  a.num_channels = static_cast<double>(product_of_int_list(call.concrete(2)));
  a.output_mask = parse_mask(call.concrete(5));
  a.has_bias = false;
  a.is_training = false;
  write_params(a, r);
  set_vector_spec(a, r);
  r.flops = rms_backward_flops(a);
  // Read grad_out and x, write grad_in; read the weight and write its gradient when affine.
  const std::int64_t n = numel(a.op_shape), c = channels_int(a), bpe = bpe_or_fail(a.dtype_in);
  r.bytes = static_cast<double>(n * bpe + n * bpe * 2 + (a.is_affine ? c * bpe * 2 : 0));
  r.backward([&] {
    r.flops_bwd = r.flops;
    r.bytes_bwd = r.bytes;
  });
}

// ---- primus fused LayerNorm + modulate ----------------------------------------------------------

// x: (T, B, H) with scale and shift (B, H); mean and rstd are fp32, one per row.
NormArgs read_ln_modulate(const OpCall& call) {
  NormArgs a;
  a.op_shape = call.shape(0);
  a.dtype_in = call.type(0);
  a.stride_input = stride_or_none(call, 0);
  a.num_channels = static_cast<double>(dim_at(a.op_shape, 2));
  return a;
}

void model_fused_ln_modulate(const OpCall& call, OpModelResult& r) {
  set_norm_category(r, "NORM_fwd");
  const NormArgs a = read_ln_modulate(call);
  write_params(a, r);
  set_vector_spec(a, r);
  const std::int64_t n = numel(a.op_shape), t = a.op_shape[0], b = a.op_shape[1];
  const std::int64_t h = channels_int(a), bpe = bpe_or_fail(a.dtype_in);
  r.flops = static_cast<double>(n * 12);  // LayerNorm ~8, modulate 2, residual 2 per element
  // Read x, write y, read scale and shift, write mean and rstd.
  r.bytes = static_cast<double>(n * bpe + n * bpe + 2 * b * h * bpe + 2 * t * b * 4);
}

void model_fused_ln_modulate_backward(const OpCall& call, OpModelResult& r) {
  set_norm_category(r, "NORM_bwd");
  NormArgs a = read_ln_modulate(call);  // grad_out (T, B, H), x_norm, mean, rstd, mod_grad
  a.output_mask = std::vector<bool>{true, true, true};
  write_params(a, r);
  set_vector_spec(a, r);
  const std::int64_t n = numel(a.op_shape), t = a.op_shape[0], b = a.op_shape[1];
  const std::int64_t h = channels_int(a), bpe = bpe_or_fail(a.dtype_in);
  r.flops = static_cast<double>(n * 15);
  // Read grad_out and x_norm, mean and rstd; write x_grad, scale and shift grads; read mod_grad.
  r.bytes =
      static_cast<double>(2 * n * bpe + 2 * b * t * 4 + n * bpe + 2 * b * h * bpe + b * h * bpe);
}

// ---- extension RMSNorm family -------------------------------------------------------------------

void model_aiter_rms_norm(const OpCall& call, OpModelResult& r) {
  set_rmsnorm_extension_category(r);
  finish_rmsnorm_extension(read_rmsnorm_extension(call, 0, 1), r);
}

void model_aiter_rmsnorm(const OpCall& call, OpModelResult& r) {
  set_rmsnorm_extension_category(r);
  finish_rmsnorm_extension(read_rmsnorm_extension(call, 1, 2), r);
}

void model_rmsnorm_with_add(const OpCall& call, OpModelResult& r) {
  set_rmsnorm_extension_category(r);
  const NormArgs a = read_rmsnorm_extension(call, 1, 4);
  write_params(a, r);
  set_vector_spec(a, r);
  const std::int64_t n = numel(a.op_shape), c = channels_int(a), bpe = bpe_or_fail(a.dtype_in);
  r.flops = static_cast<double>(n) + rms_flops(a);  // the residual add, then RMSNorm
  // Read input, residual_in and weight; write out and residual_out.
  r.bytes = static_cast<double>(2 * n * bpe + c * bpe + 2 * n * bpe);
}

void model_rmsnorm_dynamic_quant(const OpCall& call, OpModelResult& r) {
  set_rmsnorm_extension_category(r);
  const NormArgs a = read_rmsnorm_extension(call, 1, 3);
  write_params(a, r);
  set_vector_spec(a, r);
  const std::int64_t n = numel(a.op_shape), c = channels_int(a), bpe = bpe_or_fail(a.dtype_in);
  if (c == 0) throw BadArgs("division by zero channels");
  const std::int64_t rows = n / c;
  r.flops = rms_flops(a) + static_cast<double>(2 * n);  // + max-abs and scale per element
  // Read input and weight; write the fp8 output and one fp32 scale per token.
  r.bytes = static_cast<double>(n * bpe + c * bpe + n * 1 + rows * 4);
}

// ---- op names -----------------------------------------------------------------------------------

const char* const kBatchNormOpNames[] = {"aten::batch_norm", "aten::native_batch_norm",
                                         "aten::miopen_batch_norm", "aten::cudnn_batch_norm",
                                         nullptr};
const char* const kBatchNormBackwardOpNames[] = {
    "aten::batch_norm_backward", "aten::native_batch_norm_backward",
    "aten::miopen_batch_norm_backward", "aten::cudnn_batch_norm_backward", nullptr};
const char* const kLayerNormOpNames[] = {"aten::layer_norm", "aten::native_layer_norm",
                                         "aten::miopen_layer_norm", "aten::cudnn_layer_norm",
                                         nullptr};
const char* const kLayerNormBackwardOpNames[] = {
    "aten::layer_norm_backward", "aten::native_layer_norm_backward",
    "aten::miopen_layer_norm_backward", "aten::cudnn_layer_norm_backward", nullptr};
const char* const kGroupNormOpNames[] = {"aten::group_norm",        "aten::native_group_norm",
                                         "aten::miopen_group_norm", "aten::cudnn_group_norm",
                                         "aiter::_groupnorm_run",   nullptr};
const char* const kGroupNormBackwardOpNames[] = {
    "aten::group_norm_backward", "aten::native_group_norm_backward",
    "aten::miopen_group_norm_backward", "aten::cudnn_group_norm_backward", nullptr};
const char* const kInstanceNormOpNames[] = {"aten::instance_norm", "aten::native_instance_norm",
                                            "aten::miopen_instance_norm",
                                            "aten::cudnn_instance_norm", nullptr};
const char* const kInstanceNormBackwardOpNames[] = {
    "aten::instance_norm_backward", "aten::native_instance_norm_backward",
    "aten::miopen_instance_norm_backward", "aten::cudnn_instance_norm_backward", nullptr};
const char* const kFusedRmsNormOpNames[] = {"aten::_fused_rms_norm", nullptr};
const char* const kRmsNormBackwardOpNames[] = {
    "aten::rms_norm_backward",        "aten::native_rms_norm_backward",
    "aten::miopen_rms_norm_backward", "aten::cudnn_rms_norm_backward",
    "aten::_fused_rms_norm_backward", nullptr};
const char* const kFusedLnModulateOpNames[] = {"primus::fused_ln_modulate", nullptr};
const char* const kFusedLnModulateBackwardOpNames[] = {"primus::fused_ln_modulate_backward",
                                                       nullptr};
const char* const kAiterRmsNormOpNames[] = {"aiter::rms_norm", "aiter::rmsnorm2d_fwd_ck", nullptr};
const char* const kAiterRmsnormOpNames[] = {"aiter::rmsnorm", nullptr};
const char* const kRmsNormWithAddOpNames[] = {"aiter::rmsnorm2d_fwd_with_add_ck",
                                              "aiter::add_rmsnorm", nullptr};
const char* const kRmsNormDynamicQuantOpNames[] = {"aiter::rmsnorm2d_fwd_with_dynamicquant_ck",
                                                   nullptr};

}  // namespace traceprism::plugins::norm
