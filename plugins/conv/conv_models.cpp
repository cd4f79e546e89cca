#include "conv_models.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace traceprism::plugins::conv {

// ---- op-name tables (spec §4.3, §4.4) ----------------------------------------------------------

const char* const kConvolutionNames[] = {"aten::convolution", nullptr};
const char* const kConvolutionBackwardNames[] = {"aten::convolution_backward", nullptr};
const char* const kConvBiasNames[] = {"ConvBias_", "ConvBiasReLU_", nullptr};
const char* const kConvBiasBackwardNames[] = {"ConvBias_Backward", "ConvBiasReLU_Backward",
                                              nullptr};
const char* const kConvCategoryOnlyNames[] = {"aten::cudnn_convolution", "aten::miopen_convolution",
                                              nullptr};
// PyTorch <= 1.10 split the convolution backward by engine and by gradient before
// aten::convolution_backward existed (PyTorch 1.11); the reference models none of them.
const char* const kLegacyConvBackwardInputNames[] = {
    "aten::cudnn_convolution_backward_input", "aten::miopen_convolution_backward_input", nullptr};
const char* const kLegacyConvBackwardWeightNames[] = {
    "aten::cudnn_convolution_backward_weight", "aten::miopen_convolution_backward_weight",
    "aten::miopen_depthwise_convolution_backward_weight", nullptr};
const char* const kLegacyConvBackwardBothNames[] = {"aten::cudnn_convolution_backward",
                                                    "aten::miopen_convolution_backward",
                                                    "aten::thnn_conv2d_backward",
                                                    "aten::slow_conv2d_backward",
                                                    "aten::_slow_conv2d_backward",
                                                    "aten::thnn_conv_depthwise2d_backward",
                                                    nullptr};
const char* const kCausalConv1dFwdNames[] = {"DaoAILab::_causal_conv1d_fwd_cpp", nullptr};
const char* const kMambaSsdFwdNames[] = {"MambaSplitConv1dScanCombinedFn", nullptr};
const char* const kSsmBwdCategoryOnlyNames[] = {"DaoAILab::_causal_conv1d_bwd_cpp",
                                                "MambaSplitConv1dScanCombinedFnBackward", nullptr};

namespace {

using Shape = std::vector<std::int64_t>;
using Bpe = std::optional<std::int64_t>;

// ---- reading args the way the reference does -------------------------------------------------

std::int64_t at(const Shape& s, std::size_t i) {
  if (i >= s.size()) throw BadArgs("index out of range");
  return s[i];
}

std::int64_t as_int(const ArgValue& v) {
  if (!v.is_int) throw BadArgs("expected an integer dimension, got a list");
  return v.value;
}

Bpe bpe_of(std::string_view dtype) {
  const auto bpe = bytes_per_element(dtype);
  if (!bpe) return std::nullopt;
  return static_cast<std::int64_t>(*bpe);
}

std::string trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\n");
  if (first == std::string_view::npos) return "";
  const auto last = s.find_last_not_of(" \t\n");
  return std::string(s.substr(first, last - first + 1));
}

// aten_conv.str_to_tuple: drop the first and last character ("[16, 16]", "(2,2)"), split on ','
// and int() each piece.
Shape str_to_tuple(std::string_view text) {
  const std::string_view inner =
      text.size() >= 2 ? text.substr(1, text.size() - 2) : std::string_view();
  Shape out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = inner.find(',', start);
    out.push_back(parse_int(trim(inner.substr(start, comma - start))));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

// A list arg from Concrete Inputs: "" gives `fallback` repeated ndims times; a one-element list
// is broadcast to ndims.
Shape list_arg(const std::string& text, std::int64_t fallback, std::size_t ndims) {
  Shape v = text.empty() ? Shape(ndims, fallback) : str_to_tuple(text);
  if (v.size() == 1) v.assign(ndims, v[0]);
  return v;
}

bool python_bool(const std::string& text) {  // eval("True") / eval("False")
  if (text == "True") return true;
  if (text == "False") return false;
  throw BadArgs("expected True or False, got '" + text + "'");
}

std::string value_repr(const ArgValue& v) {
  if (v.is_int) return py::repr(v.value);
  std::vector<std::string> items;
  for (const auto& x : v.items) items.push_back(value_repr(x));
  return py::list(items);
}

std::string tuple_repr(const ArgValue& v) {
  if (v.is_int) throw BadArgs("a stride entry is not a list");
  std::vector<std::string> items;
  for (const auto& x : v.items) items.push_back(value_repr(x));
  return py::tuple(items);
}

// tuple(S[i]); None when the trace has no `Input Strides` (and, with `index_error_too`, when the
// slot is missing: the ConvBias parsers also catch IndexError).
std::string stride_repr(const OpCall& call, std::size_t i, bool index_error_too) {
  if (!call.has_strides()) return py::none();
  const ArgValue* s = nullptr;
  try {
    s = &call.strides(i);
  } catch (const BadArgs&) {
    if (index_error_too) return py::none();
    throw;
  }
  return tuple_repr(*s);
}

std::int64_t prod(const Shape& s, std::size_t from = 0) {
  std::int64_t n = 1;
  for (std::size_t i = from; i < s.size(); ++i) n *= s[i];
  return n;
}

// (shape[1], shape[0], *shape[2:]).
Shape swap01(const Shape& s) {
  Shape t = s;
  std::swap(t.at(0), t.at(1));
  return t;
}

// ---- the CONV base class (spec §6) -------------------------------------------------------------

struct Conv {
  std::string conv_nd;
  Shape x, w;
  std::vector<std::string> dtypes;  // input, weight
  std::string input_stride, weight_stride;
  std::string bias_repr;  // the param as printed ("True", "False", or "[]" for the bwd op)
  bool bias = false;
  Shape stride, padding, dilation, output_padding;
  bool transposed = false;
  std::int64_t groups = 1;
};

std::string conv_nd_of(const Shape& x) {
  switch (x.size()) {
    case 3:
      return "conv1d";
    case 4:
      return "conv2d";
    case 5:
      return "conv3d";
    default:
      throw BadArgs("unknown convolution dimension " + std::to_string(x.size()));
  }
}

// dtype_input_weight = tuple(T[first:first + 2]); mixed precision raises (ValueError).
std::vector<std::string> input_weight_dtypes(const OpCall& call, std::size_t first) {
  std::vector<std::string> d;
  for (std::size_t i = first; i < first + 2 && i < call.type_count(); ++i)
    d.push_back(call.type(i));
  if (d.size() < 2) throw BadArgs("index out of range");
  if (d[0] != d[1]) throw BadArgs("input and weight dtypes differ: " + d[0] + ", " + d[1]);
  return d;
}

// aten::convolution(x, w, b?, stride, padding, dilation, transposed, output_padding, groups) and
// aten::convolution_backward(gO, x, w, bias_sizes?, stride, ...): the same args from `first`
// (the x slot) on, the scalars from `first + 3`.
Conv parse_aten_conv(const OpCall& call, std::size_t first) {
  Conv c;
  c.x = call.shape(first);
  c.w = call.shape(first + 1);
  c.conv_nd = conv_nd_of(c.x);
  const std::size_t ndims = c.x.size() - 2, k = first + 3;
  c.stride = list_arg(call.concrete(k), 1, ndims);
  c.padding = list_arg(call.concrete(k + 1), 0, ndims);
  c.dilation = list_arg(call.concrete(k + 2), 1, ndims);
  c.transposed = python_bool(call.concrete(k + 3));
  c.output_padding = list_arg(call.concrete(k + 4), 0, ndims);
  c.groups = parse_int(call.concrete(k + 5));
  c.dtypes = input_weight_dtypes(call, first);
  c.input_stride = stride_repr(call, first, false);
  c.weight_stride = stride_repr(call, first + 1, false);
  return c;
}

// ConvBias_(x, w, b, stride, padding): scalar stride and padding, bias always present.
Conv parse_conv_bias(const OpCall& call) {
  Conv c;
  c.x = call.shape(0);
  c.w = call.shape(1);
  c.conv_nd = conv_nd_of(c.x);
  const std::size_t ndims = c.x.size() - 2;
  c.bias = true;
  c.bias_repr = py::repr(true);
  auto scalar = [&](std::size_t i, std::int64_t fallback) {
    const bool given = call.concrete_count() > i && !call.concrete(i).empty();
    return Shape(ndims, given ? parse_int(trim(call.concrete(i))) : fallback);
  };
  c.stride = scalar(3, 1);
  c.padding = scalar(4, 0);
  c.dilation = Shape(ndims, 1);
  c.output_padding = Shape(ndims, 0);
  c.dtypes = input_weight_dtypes(call, 0);
  c.input_stride = stride_repr(call, 0, true);
  c.weight_stride = stride_repr(call, 1, true);
  return c;
}

void emit_params(const Conv& c, OpModelResult& r) {
  r.param_str("convNd", c.conv_nd);
  r.param_repr("input_shape", py::tuple(c.x));
  r.param_repr("filter_shape", py::tuple(c.w));
  r.param_repr("dtype_input_weight", py::tuple(std::vector<std::string>{
                                         py::str_repr(c.dtypes[0]), py::str_repr(c.dtypes[1])}));
  r.param_repr("input_stride", c.input_stride);
  r.param_repr("weight_stride", c.weight_stride);
  r.param_repr("bias", c.bias_repr);
  r.param_repr("stride", py::tuple(c.stride));
  r.param_repr("padding", py::tuple(c.padding));
  r.param_repr("dilation", py::tuple(c.dilation));
  r.param("transposed_conv", c.transposed);
  r.param_repr("output_padding", py::tuple(c.output_padding));
  r.param("groups", c.groups);
}

// Output shape: (N, channels, *spatial). A normal conv divides in floating point and truncates
// like Python's int(); a transposed conv has w[1] channels (Cout/groups, as implemented).
Shape output_shape(const Conv& c) {
  const std::size_t ndims = c.x.size() - 2;
  Shape out{at(c.x, 0), at(c.w, c.transposed ? 1 : 0)};
  for (std::size_t i = 0; i < ndims; ++i) {
    const std::int64_t in = c.x[2 + i], k = at(c.w, 2 + i), s = at(c.stride, i),
                       p = at(c.padding, i), d = at(c.dilation, i);
    if (c.transposed) {
      out.push_back((in - 1) * s - 2 * p + d * (k - 1) + at(c.output_padding, i) + 1);
    } else {
      if (s == 0) throw BadArgs("convolution stride 0");
      const double q = static_cast<double>(in + 2 * p - d * (k - 1) - 1) / static_cast<double>(s);
      out.push_back(static_cast<std::int64_t>(q + 1.0));
    }
  }
  return out;
}

// CONV.flops_func: 2·prod(w[1:]) per output (input, when transposed) element, + the bias add.
std::int64_t conv_flops(const Shape& x, const Shape& w, const Shape& out, bool bias,
                        bool transposed) {
  const std::int64_t per_element = 2 * prod(w, 1);
  return (transposed ? prod(x) : prod(out)) * per_element + (bias ? prod(out) : 0);
}

// CONV.bytes_func: one bpe for every tensor; the bias reads out[1] elements.
double conv_bytes(const Shape& x, const Shape& w, const Shape& out, bool bias, Bpe bpe) {
  if (!bpe) return -1;
  return static_cast<double>((prod(x) + prod(w) + (bias ? at(out, 1) : 0) + prod(out)) * *bpe);
}

// CONV.flops_bwd_func: grad_input + grad_weight (each as a conv on swapped shapes) + grad_bias.
std::int64_t conv_flops_bwd(const Shape& x, const Shape& w, const Shape& out, bool bias,
                            bool transposed) {
  const std::int64_t grad_input = conv_flops(out, w, x, false, !transposed);
  const std::int64_t grad_weight =
      transposed ? conv_flops(swap01(out), swap01(x), swap01(w), false, false)
                 : conv_flops(swap01(x), swap01(out), swap01(w), false, false);
  return grad_input + grad_weight + (bias ? prod(out) : 0);
}

// CONV.bytes_bwd_func: the bias term is in elements, not bytes (Q9).
double conv_bytes_bwd(const Shape& x, const Shape& w, const Shape& out, bool bias, Bpe bpe) {
  if (!bpe) return -1;
  const std::int64_t grads = 2 * (prod(out) + prod(w) + prod(x)) * *bpe;
  return static_cast<double>(grads + (bias ? prod(out) + at(out, 1) : 0));
}

void start_conv(OpModelResult& r, const char* category) {
  r.category = category;
  r.bwd_category = "CONV_bwd";
  r.sheet = "CONV";
}

// The backward numbers of a parsed conv, for autograd-linked CONV_bwd rows.
void set_conv_backward(const Conv& c, const Shape& out, OpModelResult& r) {
  r.backward([&] {
    r.flops_bwd = static_cast<double>(conv_flops_bwd(c.x, c.w, out, c.bias, c.transposed));
    r.bytes_bwd = conv_bytes_bwd(c.x, c.w, out, c.bias, bpe_of(c.dtypes[0]));
  });
}

// A forward conv op: params, forward FLOPs/bytes, backward via r.backward.
void forward_conv(const Conv& c, OpModelResult& r) {
  emit_params(c, r);
  const Shape out = output_shape(c);
  r.flops = static_cast<double>(conv_flops(c.x, c.w, out, c.bias, c.transposed));
  r.bytes = conv_bytes(c.x, c.w, out, c.bias, bpe_of(c.dtypes[0]));
  r.compute_spec = compute_spec("matrix", compute_precision(c.dtypes[0]));
  set_conv_backward(c, out, r);
}

// ---- SSM (spec §9.2, §9.5) ----------------------------------------------------------------

void start_ssm(OpModelResult& r) {
  r.category = "SSM_fwd";
  r.sheet = "SSM";
}

// bpe of T[0] (bf16 when there are no types), 2 when unknown.
std::int64_t ssm_bpe(const OpCall& call) {
  const bool has_first = call.has_types() && call.type_count() > 0;
  const Bpe bpe = bpe_of(has_first ? call.type(0) : "c10::BFloat16");
  return bpe ? *bpe : 2;
}

// get_compute_precision reads `Input type`[0] itself (None when the key is absent).
void set_ssm_compute_spec(const OpCall& call, OpModelResult& r) {
  if (!call.has_types()) return;
  r.compute_spec = compute_spec("matrix", compute_precision(call.type(0)));
}

// Mamba's per-slot parameter bpe: bpe(T[slot]) when the slot is set and sized, else `fallback`.
std::int64_t slot_bpe(const OpCall& call, std::size_t slot, std::int64_t fallback) {
  if (!call.has_types() || call.type_count() <= slot || call.type(slot).empty()) return fallback;
  const Bpe bpe = bpe_of(call.type(slot));
  return bpe ? *bpe : fallback;
}

// int(C[i]) when present and non-empty, else `fallback`.
std::int64_t concrete_int(const OpCall& call, std::size_t i, std::int64_t fallback) {
  if (!call.has_concrete() || call.concrete_count() <= i || call.concrete(i).empty())
    return fallback;
  return parse_int(trim(call.concrete(i)));
}

}  // namespace

// ---- convolution models -----------------------------------------------------------------------

// bias = (len(D) == 3): traces record 9 args, so the bias is never counted (Q4).
void model_convolution(const OpCall& call, OpModelResult& r) {
  start_conv(r, "CONV_fwd");
  Conv c = parse_aten_conv(call, 0);
  c.bias = call.arg_count() == 3;
  c.bias_repr = py::repr(c.bias);
  forward_conv(c, r);
}

// bias = `len(D) > 3 and D[3] and len(D[3]) > 0`: D[3] (bias_sizes) shows as [], so the param is
// that empty list and the bias is never counted (Q4).
void model_convolution_backward(const OpCall& call, OpModelResult& r) {
  start_conv(r, "CONV_bwd");
  Conv c = parse_aten_conv(call, 1);
  if (call.arg_count() <= 3) {
    c.bias_repr = py::repr(false);
  } else if (call.dims(3).empty()) {
    c.bias_repr = "[]";
  } else {
    c.bias = true;
    c.bias_repr = py::repr(true);
  }
  emit_params(c, r);
  const Shape out = output_shape(c);
  r.flops = static_cast<double>(conv_flops_bwd(c.x, c.w, out, c.bias, c.transposed));
  r.bytes = conv_bytes_bwd(c.x, c.w, out, c.bias, bpe_of(c.dtypes[0]));
  r.compute_spec = compute_spec("matrix", compute_precision(c.dtypes[0]));
  set_conv_backward(c, out, r);
}

void model_conv_bias(const OpCall& call, OpModelResult& r) {
  start_conv(r, "CONV_fwd");
  forward_conv(parse_conv_bias(call), r);
}

void model_conv_bias_backward(const OpCall& call, OpModelResult& r) {
  start_conv(r, "CONV_bwd");
  throw BadArgs("the shapes of " + call.name() + " live on its forward op (Sequence number " +
                std::to_string(call.sequence_number()) +
                "), which a per-op model cannot see; the forward's backward numbers cover it");
}

// ---- legacy (PyTorch <= 1.10) convolution backward ops ------------------------------------------

namespace {

// One gradient of a convolution costs one convolution: 2·prod(grad_output)·prod(w[1:]) FLOPs
// (grad_output holds the forward's output elements; w[1:] is Cin/groups·kernel). Not for
// transposed convolutions, whose names are not in the tables.
double one_conv_flops(const Shape& grad_output, const Shape& weight) {
  return 2.0 * static_cast<double>(prod(grad_output)) * static_cast<double>(prod(weight, 1));
}

// The IntArrayRef size arg (self_size / weight_size) from Concrete Inputs; older traces have no
// Concrete Inputs, so it may be unknown (nullopt).
std::optional<Shape> size_arg(const OpCall& call, std::size_t i) {
  if (!call.has_concrete() || call.concrete_count() <= i || call.concrete(i).empty())
    return std::nullopt;
  return parse_int_list(call.concrete(i));
}

std::string shape_or_none(const std::optional<Shape>& s) {
  return s ? py::tuple(*s) : std::string(py::none());
}

// output_mask (grad_input, grad_weight[, grad_bias]) from Concrete Inputs `i`; both gradients
// when the trace does not record it (the mask is False only for a network's first layer input).
std::pair<bool, bool> output_mask(const OpCall& call, std::size_t i) {
  if (!call.has_concrete() || call.concrete_count() <= i || call.concrete(i).empty())
    return {true, true};
  const std::vector<bool> mask = parse_bool_list(call.concrete(i));
  if (mask.size() < 2) throw BadArgs("output_mask has fewer than two entries");
  return {mask[0], mask[1]};
}

struct LegacyConvBackward {
  Shape grad_output, weight;
  std::optional<Shape> input;  // the forward's x, when known
  std::string dtype;
  bool grad_input = true, grad_weight = true;
};

void finish_legacy_backward(const LegacyConvBackward& c, OpModelResult& r) {
  r.category = "CONV_bwd";
  r.sheet = "CONV";
  const std::size_t nd = c.grad_output.size();
  if (nd < 3 || nd > 5 || c.weight.size() != nd) throw BadArgs("not a 1-3d convolution");
  r.param_str("convNd", "conv" + std::to_string(nd - 2) + "d");
  r.param_repr("input_shape", shape_or_none(c.input));
  r.param_repr("filter_shape", py::tuple(c.weight));
  r.param_repr("grad_output_shape", py::tuple(c.grad_output));
  r.param_str("gradients", c.grad_input && c.grad_weight ? "input, weight"
                           : c.grad_input                ? "input"
                                                         : "weight");
  const double per_gradient = one_conv_flops(c.grad_output, c.weight);
  r.flops = per_gradient * ((c.grad_input ? 1 : 0) + (c.grad_weight ? 1 : 0));
  r.compute_spec = compute_spec("matrix", compute_precision(c.dtype));
  // Each gradient reads grad_output and the other operand and writes its own gradient.
  const Bpe bpe = bpe_of(c.dtype);
  if (!bpe || !c.input) return;
  const std::int64_t go = prod(c.grad_output), w = prod(c.weight), x = prod(*c.input);
  const std::int64_t elements = (c.grad_input ? go + w + x : 0) + (c.grad_weight ? go + x + w : 0);
  r.bytes = static_cast<double>(elements * *bpe);
}

}  // namespace

// (self_size, grad_output, weight, padding, stride, dilation, groups, ...).
void model_legacy_conv_backward_input(const OpCall& call, OpModelResult& r) {
  r.category = "CONV_bwd";
  LegacyConvBackward c;
  c.grad_output = call.shape(1);
  c.weight = call.shape(2);
  c.input = size_arg(call, 0);
  c.dtype = call.type(1);
  c.grad_weight = false;
  finish_legacy_backward(c, r);
}

// (weight_size, grad_output, self, padding, stride, dilation, groups, ...): the kernel size is
// only in weight_size, so without Concrete Inputs the FLOPs are unknown (the call fails, timed).
void model_legacy_conv_backward_weight(const OpCall& call, OpModelResult& r) {
  r.category = "CONV_bwd";
  const std::optional<Shape> weight = size_arg(call, 0);
  if (!weight) throw BadArgs(call.name() + " without Concrete Inputs: the kernel size is unknown");
  LegacyConvBackward c;
  c.grad_output = call.shape(1);
  c.input = call.shape(2);
  c.weight = *weight;
  c.dtype = call.type(1);
  c.grad_input = false;
  finish_legacy_backward(c, r);
}

// cudnn/miopen_convolution_backward(self, grad_output, weight, ..., output_mask) and
// thnn/slow_conv2d_backward(grad_output, self, weight, ..., output_mask): output_mask is the last
// argument.
void model_legacy_conv_backward_both(const OpCall& call, OpModelResult& r) {
  r.category = "CONV_bwd";
  const bool grad_output_first = call.name().find("conv2d") != std::string::npos ||
                                 call.name().find("depthwise2d") != std::string::npos;
  LegacyConvBackward c;
  c.grad_output = call.shape(grad_output_first ? 0 : 1);
  c.input = call.shape(grad_output_first ? 1 : 0);
  c.weight = call.shape(2);
  c.dtype = call.type(grad_output_first ? 0 : 1);
  std::tie(c.grad_input, c.grad_weight) = output_mask(call, call.arg_count() - 1);
  if (!c.grad_input && !c.grad_weight) throw NotModelled("no gradient requested");
  finish_legacy_backward(c, r);
}

void model_conv_category_only(const OpCall&, OpModelResult& r) {
  r.category = "CONV_fwd";
  r.has_model = false;
}

// ---- SSM models -----------------------------------------------------------------------------

// x = (B, Ch, L), w = (Ch, K), bias = D[2] when non-empty: a depthwise 1-D conv.
void model_causal_conv1d_fwd(const OpCall& call, OpModelResult& r) {
  start_ssm(r);
  const Shape x = call.shape(0);
  const std::int64_t batch = at(x, 0), channels = at(x, 1), seq_len = at(x, 2);
  const std::int64_t kernel_size = as_int(call.dims(1)[1]);
  const bool has_bias = call.arg_count() > 2 && !call.dims(2).is_int && call.dims(2).size() > 0;
  r.param("batch", batch);
  r.param("channels", channels);
  r.param("seq_len", seq_len);
  r.param("kernel_size", kernel_size);
  r.param("has_bias", has_bias);
  const std::int64_t bpe = ssm_bpe(call);
  r.flops = static_cast<double>(2 * batch * channels * seq_len * kernel_size);
  r.bytes = static_cast<double>(2 * batch * channels * seq_len * bpe +
                                channels * kernel_size * bpe + (has_bias ? channels * bpe : 0));
  set_ssm_compute_spec(call, r);
}

// zxbcdt = D[0] (B, T, Dc), conv weight D[1] (convCh, dconv), dt_bias D[3] (H,); chunk C, head
// dim P and groups G from C[6], C[15], C[16]; the state size N follows from Dc.
void model_mamba_ssd_fwd(const OpCall& call, OpModelResult& r) {
  start_ssm(r);
  r.bwd_category = "SSM_bwd";
  const Shape zxbcdt = call.shape(0), conv_w = call.shape(1), dt_bias = call.shape(3);
  const std::int64_t B = at(zxbcdt, 0), T = at(zxbcdt, 1), Dc = at(zxbcdt, 2);
  const std::int64_t conv_ch = at(conv_w, 0), d_conv = at(conv_w, 1), H = at(dt_bias, 0);
  const std::int64_t C = concrete_int(call, 6, 128), P = concrete_int(call, 15, 64),
                     G = concrete_int(call, 16, 1);
  const std::int64_t d_inner = H * P, numerator = Dc - 2 * d_inner - H, denom = 2 * G;
  if (denom == 0) throw BadArgs("integer division by zero");
  if (numerator <= 0 || numerator % denom != 0)
    throw BadArgs("cannot derive the SSM state size from combined_dim " + std::to_string(Dc));
  const std::int64_t N = numerator / denom;
  for (const auto& [key, value] : {std::pair<const char*, std::int64_t>{"B", B},
                                   {"T", T},
                                   {"H", H},
                                   {"P", P},
                                   {"G", G},
                                   {"N", N},
                                   {"C", C},
                                   {"d_inner", d_inner},
                                   {"d_conv", d_conv},
                                   {"conv_channels", conv_ch},
                                   {"combined_dim", Dc}})
    r.param(key, value);
  const std::int64_t bpe = ssm_bpe(call);
  const std::int64_t flops = 2 * B * conv_ch * T * d_conv + 2 * B * G * T * C * N +
                             2 * B * H * T * C * P + 2 * B * H * T * N * P + 2 * B * H * T * N * P;
  const std::int64_t params_bpe =
      slot_bpe(call, 3, 4) + slot_bpe(call, 4, 4) + slot_bpe(call, 5, bpe);
  const std::int64_t bytes = B * T * Dc * bpe + conv_ch * d_conv * bpe + conv_ch * bpe +
                             H * params_bpe + B * T * d_inner * bpe;
  r.flops = static_cast<double>(flops);
  r.bytes = static_cast<double>(bytes);
  set_ssm_compute_spec(call, r);
  r.backward([&] {  // the reference's backward is the forward
    r.flops_bwd = r.flops;
    r.bytes_bwd = r.bytes;
  });
}

void model_ssm_bwd_category_only(const OpCall&, OpModelResult& r) {
  r.category = "SSM_bwd";
  r.has_model = false;
}

}  // namespace traceprism::plugins::conv
