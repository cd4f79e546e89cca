// Attention op models: perf-model spec §7.1 (formulas), §7.2 (per-op parsing), §7.3 (varlen),
// §7.4 (inference attention) and §4.4 (category-only names). Quirks kept for parity (§14):
// the bytes use 2 bytes per element whatever the dtype (Q6) except where the reference passes
// the dtype (flash_attn::_flash_attn_backward), and flash_attn::_flash_attn_backward defaults
// to causal when the flag is missing (Q8).
#include "sdpa_models.hpp"

#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace traceprism::plugins::sdpa {
namespace {

using std::int64_t;

constexpr const char* kSheet = "SDPA";
constexpr const char* kFwdCategory = "SDPA_fwd";
constexpr const char* kBwdCategory = "SDPA_bwd";
// The report calls bytes() / bytes_bwd() without an argument: 2 bytes per element (Q6).
constexpr int64_t kDefaultBytesPerElement = 2;

// The seven shape parameters every SDPA model reports, in the reference's order.
struct SdpaConfig {
  int64_t B = 0, N_Q = 0, H_Q = 0, N_KV = 0, H_KV = 0, d_qk = 0, d_v = 0;
};

// How the reference reads one op: where q, k, v, dropout and causal are.
struct SlotLayout {
  std::size_t q, k, v;
  std::size_t dropout, causal;
};

void set_forward_category(OpModelResult& r) {
  r.category = kFwdCategory;
  r.bwd_category = kBwdCategory;
  r.sheet = kSheet;
}

void set_backward_category(OpModelResult& r) {
  r.category = kBwdCategory;
  r.sheet = kSheet;
}

int64_t dim_at(const std::vector<int64_t>& shape, std::size_t i) {
  if (i >= shape.size()) throw BadArgs("attention tensor has too few dims");
  return shape[i];
}

// Python's int // int (floors toward minus infinity; ZeroDivisionError on zero).
int64_t py_int_floordiv(int64_t a, int64_t b) {
  if (b == 0) throw BadArgs("integer division by zero");
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// Python's float // float, as CPython computes it (the varlen split of §7.3).
double py_float_floordiv(double a, double b) {
  if (b == 0) throw BadArgs("float floor division by zero");
  double mod = std::fmod(a, b);
  double div = (a - mod) / b;
  if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1.0;
  if (div == 0) return std::copysign(0.0, a / b);
  double floored = std::floor(div);
  if (div - floored > 0.5) floored += 1.0;
  return floored;
}

// extract_sdpa_cfg: (B, H, N, d) of q, k, v read in the order `bhnd`, with its consistency
// checks (the reference raises ValueError: the call fails).
SdpaConfig sdpa_config(const OpCall& c, std::size_t q, std::size_t k, std::size_t v,
                       const std::array<std::size_t, 4>& bhnd) {
  const auto qs = c.shape(q), ks = c.shape(k), vs = c.shape(v);
  auto at = [&](const std::vector<int64_t>& s, int which) { return dim_at(s, bhnd[which]); };
  SdpaConfig cfg;
  cfg.B = at(qs, 0);
  cfg.H_Q = at(qs, 1);
  cfg.N_Q = at(qs, 2);
  cfg.d_qk = at(qs, 3);
  const int64_t B_k = at(ks, 0), H_K = at(ks, 1), N_K = at(ks, 2), d_k = at(ks, 3);
  const int64_t B_v = at(vs, 0), H_V = at(vs, 1), N_V = at(vs, 2), d_v = at(vs, 3);
  if (cfg.B != B_k || cfg.B != B_v) throw BadArgs("batch sizes of q, k, v differ");
  if (H_K != H_V) throw BadArgs("head counts of k and v differ");
  if (N_K != N_V) throw BadArgs("lengths of k and v differ");
  if (cfg.d_qk != d_k) throw BadArgs("head dims of q and k differ");
  cfg.H_KV = H_K;
  cfg.N_KV = N_K;
  cfg.d_v = d_v;
  return cfg;
}

// extract_sdpa_varlen_cfg: packed (T, H, d) tensors, B = 1.
SdpaConfig varlen_config(const OpCall& c, std::size_t q, std::size_t k, std::size_t v) {
  const auto qs = c.shape(q), ks = c.shape(k), vs = c.shape(v);
  SdpaConfig cfg;
  cfg.B = 1;
  cfg.H_Q = dim_at(qs, 1);
  cfg.N_Q = dim_at(qs, 0);
  cfg.d_qk = dim_at(qs, 2);
  const int64_t H_K = dim_at(ks, 1), N_K = dim_at(ks, 0), d_k = dim_at(ks, 2);
  const int64_t H_V = dim_at(vs, 1), N_V = dim_at(vs, 0), d_v = dim_at(vs, 2);
  if (H_K != H_V) throw BadArgs("head counts of k and v differ");
  if (N_K != N_V) throw BadArgs("lengths of k and v differ");
  if (cfg.d_qk != d_k) throw BadArgs("head dims of q and k differ");
  cfg.H_KV = H_K;
  cfg.N_KV = N_K;
  cfg.d_v = d_v;
  return cfg;
}

// Causal attention computes half the score matrix; the reference only allows it when the
// query and key lengths match.
template <class T, class N>
double halve_if_causal(T total, N n_q, N n_kv, bool causal) {
  if (!causal) return static_cast<double>(total);
  if (n_q != n_kv) throw BadArgs("causal=True but N_Q != N_KV");
  return static_cast<double>(total) / 2;
}

// SDPA.flops_func. N is int64 for whole tensors and double for the varlen estimate, whose
// lengths the reference holds as floats: the operations keep the reference's order.
template <class N>
double forward_flops(int64_t B, N n_q, int64_t H_Q, N n_kv, int64_t d_qk, int64_t d_v,
                     bool causal) {
  const auto flops_qk = B * H_Q * (2 * n_q * n_kv * d_qk);
  const auto flops_pv = B * H_Q * (2 * n_q * d_v * n_kv);
  return halve_if_causal(flops_qk + flops_pv, n_q, n_kv, causal);
}

// SDPA.flops_bwd_func: recompute S (flash only), dV (+ GQA head reduction), dP, dQ, dK.
template <class N>
double backward_flops(int64_t B, N n_q, int64_t H_Q, N n_kv, int64_t H_KV, int64_t d_qk,
                      int64_t d_v, bool causal, bool flash_impl) {
  const int64_t gqa_extra_heads = py_int_floordiv(H_Q, H_KV) - 1;
  decltype(n_q * 1) total = 0;
  if (flash_impl) total += B * H_Q * (2 * n_q * n_kv * d_qk);
  auto flops_vgrad = B * H_Q * (2 * n_kv * n_q * d_v);
  flops_vgrad += B * n_kv * d_v * gqa_extra_heads;
  total += flops_vgrad;
  total += B * H_Q * (2 * n_q * n_kv * d_v);
  total += B * H_Q * (2 * n_q * n_kv * d_qk);
  auto flops_kgrad = B * H_Q * (2 * n_kv * n_q * d_qk);
  flops_kgrad += B * n_kv * d_qk * gqa_extra_heads;
  total += flops_kgrad;
  return halve_if_causal(total, n_q, n_kv, causal);
}

double forward_flops(const SdpaConfig& s, bool causal) {
  return forward_flops(s.B, s.N_Q, s.H_Q, s.N_KV, s.d_qk, s.d_v, causal);
}

double backward_flops(const SdpaConfig& s, bool causal, bool flash_impl) {
  return backward_flops(s.B, s.N_Q, s.H_Q, s.N_KV, s.H_KV, s.d_qk, s.d_v, causal, flash_impl);
}

// Read Q, K, V, write O (causal does not reduce the bytes).
double forward_bytes(const SdpaConfig& s, int64_t bpe) {
  const int64_t elems = s.B * s.N_Q * s.H_Q * s.d_qk + s.B * s.N_KV * s.H_KV * s.d_qk +
                        s.B * s.N_KV * s.H_KV * s.d_v + s.B * s.N_Q * s.H_Q * s.d_v;
  return static_cast<double>(elems * bpe);
}

// Read Q, K, V, dO, write dQ, dK, dV.
double backward_bytes(const SdpaConfig& s, int64_t bpe) {
  const int64_t q = s.B * s.N_Q * s.H_Q * s.d_qk;
  const int64_t k = s.B * s.N_KV * s.H_KV * s.d_qk;
  const int64_t v = s.B * s.N_KV * s.H_KV * s.d_v;
  const int64_t d_out = s.B * s.N_Q * s.H_Q * s.d_v;
  return static_cast<double>((q + k + v + d_out + q + k + v) * bpe);
}

// ---- Concrete Inputs as the reference reads them ----------------------------------------------

// optional_float: "" and "None" are None, anything else float(text).
std::optional<double> optional_float(const std::string& text) {
  if (text.empty() || text == "None") return std::nullopt;
  return parse_float(text);
}

// The aten/aiter parsers: `text.lower() == "true"`, with "" and "None" meaning false.
bool lowercase_true(const std::string& text) {
  if (text.empty() || text == "None") return false;
  return lower_ascii(text) == "true";
}

// The Dao parsers eval() the text. Only the bool literals are accepted here; anything else
// (eval of "" raises SyntaxError) fails the call.
bool eval_bool(const std::string& text) {
  if (text == "True") return true;
  if (text == "False") return false;
  throw BadArgs("expected True or False, got '" + text + "'");
}

// tuple(Input type[:n]).
std::vector<std::string> leading_types(const OpCall& c, std::size_t n) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < n && i < c.type_count(); ++i) out.push_back(c.type(i));
  return out;
}

std::string repr_str_tuple(const std::vector<std::string>& items) {
  std::vector<std::string> reprs;
  for (const auto& s : items) reprs.push_back(py::str_repr(s));
  return py::tuple(reprs);
}

std::string repr_strides(const OpCall& c, std::size_t i) {
  return py::tuple(c.strides(i).ints());
}

// Compute Spec from dtype_A_B[0]; ops whose parser has no dtype get none.
std::string matrix_spec(const std::vector<std::string>& dtypes) {
  if (dtypes.empty()) return "";
  return compute_spec("matrix", compute_precision(dtypes[0]));
}

void put_shape_params(OpModelResult& r, const SdpaConfig& s) {
  r.param("B", s.B);
  r.param("N_Q", s.N_Q);
  r.param("H_Q", s.H_Q);
  r.param("N_KV", s.N_KV);
  r.param("H_KV", s.H_KV);
  r.param("d_h_qk", s.d_qk);
  r.param("d_h_v", s.d_v);
}

void put_dropout(OpModelResult& r, const std::optional<double>& dropout) {
  if (dropout) {
    r.param("dropout", *dropout);
  } else {
    r.param_repr("dropout", py::none());
  }
}

// The params of the Dao flash_attn parsers: shape, strides, dropout, causal, flash_impl, dtypes.
void put_dao_params(OpModelResult& r, const OpCall& c, const SdpaConfig& s, const SlotLayout& slots,
                    double dropout, bool causal, const std::vector<std::string>& dtypes) {
  put_shape_params(r, s);
  r.param_repr("q_stride", repr_strides(c, slots.q));
  r.param_repr("k_stride", repr_strides(c, slots.k));
  r.param_repr("v_stride", repr_strides(c, slots.v));
  r.param("dropout", dropout);
  r.param("causal", causal);
  r.param("flash_impl", true);
  r.param_repr("dtype_A_B", repr_str_tuple(dtypes));
}

// A forward op: its FLOPs/bytes, and the backward ones used through autograd linking. The
// backward runs first so that a causal length mismatch fails both, as in the reference.
void finish_forward(OpModelResult& r, const SdpaConfig& s, bool causal, bool flash_impl) {
  r.backward([&] {
    r.flops_bwd = backward_flops(s, causal, flash_impl);
    r.bytes_bwd = backward_bytes(s, kDefaultBytesPerElement);
  });
  r.flops = forward_flops(s, causal);
  r.bytes = forward_bytes(s, kDefaultBytesPerElement);
}

// A backward op: the fwd class's flops_bwd/bytes_bwd become its own metrics.
void finish_backward_op(OpModelResult& r, const SdpaConfig& s, bool causal, int64_t bpe) {
  r.flops = backward_flops(s, causal, /*flash_impl=*/true);
  r.bytes = backward_bytes(s, bpe);
}

// The aten SDPA ops: (B, H, N, d) q, k, v in slots 0-2.
void model_aten_sdpa(const OpCall& c, OpModelResult& r, const SlotLayout& slots, bool flash_impl) {
  set_forward_category(r);
  const SdpaConfig s = sdpa_config(c, slots.q, slots.k, slots.v, {0, 1, 2, 3});
  const auto dropout = optional_float(c.concrete(slots.dropout));
  const bool causal = lowercase_true(c.concrete(slots.causal));
  const auto dtypes = leading_types(c, 2);
  put_shape_params(r, s);
  put_dropout(r, dropout);
  r.param("causal", causal);
  r.param("flash_impl", flash_impl);
  r.param_repr("dtype_A_B", repr_str_tuple(dtypes));
  r.compute_spec = matrix_spec(dtypes);
  finish_forward(r, s, causal, flash_impl);
}

// The aiter / flash_attn_3 parsers: (B, N, H, d) tensors, no dtype (so no Compute Spec).
struct AiterParams {
  SdpaConfig shape;
  std::optional<double> dropout;
  bool causal = false;
};

AiterParams read_aiter_params(const OpCall& c, const SlotLayout& slots, bool has_dropout) {
  AiterParams p;
  p.shape = sdpa_config(c, slots.q, slots.k, slots.v, {0, 2, 1, 3});
  p.dropout = has_dropout ? optional_float(c.concrete(slots.dropout)) : std::optional(0.0);
  p.causal = lowercase_true(c.concrete(slots.causal));
  return p;
}

void put_aiter_params(OpModelResult& r, const AiterParams& p) {
  put_shape_params(r, p.shape);
  put_dropout(r, p.dropout);
  r.param("causal", p.causal);
  r.param("flash_impl", true);
}

void model_aiter_forward(const OpCall& c, OpModelResult& r, const SlotLayout& slots,
                         bool has_dropout = true) {
  set_forward_category(r);
  const AiterParams p = read_aiter_params(c, slots, has_dropout);
  put_aiter_params(r, p);
  finish_forward(r, p.shape, p.causal, /*flash_impl=*/true);
}

void model_aiter_backward(const OpCall& c, OpModelResult& r, const SlotLayout& slots) {
  set_backward_category(r);
  const AiterParams p = read_aiter_params(c, slots, /*has_dropout=*/true);
  put_aiter_params(r, p);
  finish_backward_op(r, p.shape, p.causal, kDefaultBytesPerElement);
}

// §7.3: one longest sequence plus (num_seqs - 1) equal ones, a lower bound. `flops_of` is the
// forward or backward FLOPs function taking float lengths.
template <class FlopsOf>
double varlen_flops(const SdpaConfig& s, int64_t num_seqs_q, int64_t num_seqs_kv, double max_q,
                    double max_kv, FlopsOf flops_of) {
  double accum = flops_of(max_q, max_kv);
  if (num_seqs_q > 1) {
    const double n_q =
        py_float_floordiv(static_cast<double>(s.N_Q) - max_q, static_cast<double>(num_seqs_q - 1));
    const double n_kv = py_float_floordiv(static_cast<double>(s.N_KV) - max_kv,
                                          static_cast<double>(num_seqs_kv - 1));
    accum += static_cast<double>(num_seqs_q - 1) * flops_of(n_q, n_kv);
  }
  return accum;
}

// The varlen ops' extra params: sequence counts from the cu_seqlens shapes, float max lengths.
struct VarlenParams {
  int64_t num_seqs_q = 0, num_seqs_kv = 0;
  double max_q = 0, max_kv = 0;
};

int64_t first_dim(const OpCall& c, std::size_t i) {
  const ArgValue& dims = c.dims(i);
  if (!dims[0].is_int) throw BadArgs("cu_seqlens is not a tensor");
  return dims[0].value;
}

void put_varlen_params(OpModelResult& r, const VarlenParams& v) {
  r.param("num_seqs_q", v.num_seqs_q);
  r.param("num_seqs_kv", v.num_seqs_kv);
  r.param("max_seqlen_q", v.max_q);
  r.param("max_seqlen_kv", v.max_kv);
}

// Slots of the varlen ops: q, k, v, cu_seqlens_q/k, max_seqlen_q/k, dropout, causal.
struct VarlenLayout {
  SlotLayout qkv;
  std::size_t cu_q, cu_k, max_q, max_k;
};

struct VarlenCall {
  SdpaConfig shape;
  VarlenParams varlen;
  double dropout = 0;
  bool causal = false;
};

VarlenCall read_varlen_call(const OpCall& c, OpModelResult& r, const VarlenLayout& at) {
  VarlenCall v;
  v.shape = varlen_config(c, at.qkv.q, at.qkv.k, at.qkv.v);
  const auto dtypes = leading_types(c, 2);
  v.varlen.num_seqs_q = first_dim(c, at.cu_q) - 1;
  v.varlen.num_seqs_kv = first_dim(c, at.cu_k) - 1;
  v.varlen.max_q = parse_float(c.concrete(at.max_q));
  v.varlen.max_kv = parse_float(c.concrete(at.max_k));
  v.dropout = parse_float(c.concrete(at.qkv.dropout));
  v.causal = eval_bool(c.concrete(at.qkv.causal));
  put_dao_params(r, c, v.shape, at.qkv, v.dropout, v.causal, dtypes);
  put_varlen_params(r, v.varlen);
  r.compute_spec = matrix_spec(dtypes);
  return v;
}

}  // namespace

void model_aten_sdpa_flash(const OpCall& c, OpModelResult& r) {
  // (q, k, v, dropout_p, is_causal, return_debug_mask, scale)
  model_aten_sdpa(c, r, {0, 1, 2, 3, 4}, /*flash_impl=*/true);
}

void model_aten_sdpa_efficient(const OpCall& c, OpModelResult& r) {
  // (q, k, v, attn_bias, compute_log_sumexp, dropout_p, is_causal, scale); attn_bias not costed
  model_aten_sdpa(c, r, {0, 1, 2, 5, 6}, /*flash_impl=*/false);
}

void model_aten_sdpa_cudnn(const OpCall& c, OpModelResult& r) {
  // (q, k, v, attn_bias, compute_log_sumexp, dropout_p, is_causal, return_debug_mask, scale)
  model_aten_sdpa(c, r, {0, 1, 2, 5, 6}, /*flash_impl=*/false);
}

void model_flash_attn_forward(const OpCall& c, OpModelResult& r) {
  // (q, k, v, dropout_p, softmax_scale, causal, ...), (B, N, H, d) tensors
  set_forward_category(r);
  const SlotLayout slots{0, 1, 2, 3, 5};
  const SdpaConfig s = sdpa_config(c, slots.q, slots.k, slots.v, {0, 2, 1, 3});
  const auto dtypes = leading_types(c, 2);
  const double dropout = parse_float(c.concrete(slots.dropout));
  const bool causal = eval_bool(c.concrete(slots.causal));
  put_dao_params(r, c, s, slots, dropout, causal, dtypes);
  r.compute_spec = matrix_spec(dtypes);
  finish_forward(r, s, causal, /*flash_impl=*/true);
}

void model_flash_attn_backward(const OpCall& c, OpModelResult& r) {
  // (dout, q, k, v, out, softmax_lse, dq, dk, dv, dropout_p, softmax_scale, causal, ...) as the
  // reference reads it: dropout C[8] (missing: 0.0), causal C[10] (missing: True, Q8).
  set_backward_category(r);
  const SlotLayout slots{1, 2, 3, 8, 10};
  const SdpaConfig s = sdpa_config(c, slots.q, slots.k, slots.v, {0, 2, 1, 3});
  const std::size_t n_concrete = c.has_concrete() ? c.concrete_count() : 0;
  auto concrete_or_empty = [&](std::size_t i) {
    return i < n_concrete ? c.concrete(i) : std::string();
  };
  const auto dtypes = leading_types(c, 2);
  const std::string dropout_text = concrete_or_empty(slots.dropout);
  const std::string causal_text = concrete_or_empty(slots.causal);
  const double dropout = dropout_text.empty() ? 0.0 : parse_float(dropout_text);
  const bool causal = causal_text.empty() ? true : eval_bool(causal_text);
  put_dao_params(r, c, s, slots, dropout, causal, dtypes);
  r.compute_spec = matrix_spec(dtypes);
  // bytes_bwd(name2bpe(dtype_A_B[0])): an unsized dtype makes the reference's product fail.
  if (dtypes.empty()) throw BadArgs("flash_attn backward: no input type");
  const auto bpe = bytes_per_element(dtypes[0]);
  if (!bpe) throw BadArgs("flash_attn backward: dtype has no size");
  finish_backward_op(r, s, causal, static_cast<int64_t>(*bpe));
}

void model_flash_attn_varlen_forward(const OpCall& c, OpModelResult& r) {
  // (q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, dropout_p, softmax_scale,
  //  causal, ...)
  set_forward_category(r);
  const VarlenCall v = read_varlen_call(c, r, {{0, 1, 2, 7, 9}, 3, 4, 5, 6});
  // Linked backward: the base class's flops_bwd over the total token counts (no varlen split).
  r.backward([&] {
    r.flops_bwd = backward_flops(v.shape, v.causal, /*flash_impl=*/true);
    r.bytes_bwd = backward_bytes(v.shape, kDefaultBytesPerElement);
  });
  const SdpaConfig& s = v.shape;
  r.flops = varlen_flops(s, v.varlen.num_seqs_q, v.varlen.num_seqs_kv, v.varlen.max_q,
                         v.varlen.max_kv, [&](double n_q, double n_kv) {
                           return forward_flops(s.B, n_q, s.H_Q, n_kv, s.d_qk, s.d_v, v.causal);
                         });
  r.bytes = forward_bytes(s, kDefaultBytesPerElement);
}

void model_flash_attn_varlen_backward(const OpCall& c, OpModelResult& r) {
  // (dout, q, k, v, out, softmax_lse, dq, dk, dv, cu_seqlens_q, cu_seqlens_k, max_seqlen_q,
  //  max_seqlen_k, dropout_p, softmax_scale, causal, ...)
  set_backward_category(r);
  const VarlenCall v = read_varlen_call(c, r, {{1, 2, 3, 13, 15}, 9, 10, 11, 12});
  const SdpaConfig& s = v.shape;
  r.flops = varlen_flops(s, v.varlen.num_seqs_q, v.varlen.num_seqs_kv, v.varlen.max_q,
                         v.varlen.max_kv, [&](double n_q, double n_kv) {
                           return backward_flops(s.B, n_q, s.H_Q, n_kv, s.H_KV, s.d_qk, s.d_v,
                                                 v.causal, /*flash_impl=*/true);
                         });
  r.bytes = backward_bytes(s, kDefaultBytesPerElement);
}

void model_aiter_flash_attn_forward(const OpCall& c, OpModelResult& r) {
  // (q, k, v, dropout_p, softmax_scale, causal, window_left, window_right, ...)
  model_aiter_forward(c, r, {0, 1, 2, 3, 5});
}

void model_aiter_flash_attn_backward(const OpCall& c, OpModelResult& r) {
  // The reference reads q, k, v from slots 0-2 (slot 0 is really dout, of q's shape) and
  // dropout / causal from C[10] / C[12].
  model_aiter_backward(c, r, {0, 1, 2, 10, 12});
}

void model_aiter_fmha_v3_forward(const OpCall& c, OpModelResult& r) {
  model_aiter_forward(c, r, {1, 2, 3, 4, 6});
}

void model_aiter_fmha_v3_backward(const OpCall& c, OpModelResult& r) {
  model_aiter_backward(c, r, {1, 2, 3, 7, 9});
}

void model_aiter_mha_fwd(const OpCall& c, OpModelResult& r) {
  // aiter::mha_fwd / fmha_v3_fwd(q, k, v, dropout_p, softmax_scale, is_causal, ...)
  model_aiter_forward(c, r, {0, 1, 2, 3, 5});
}

void model_aiter_mha_bwd(const OpCall& c, OpModelResult& r) {
  // aiter::mha_bwd(dout, q, k, v, out, softmax_lse, dropout_p, softmax_scale, is_causal, ...)
  model_aiter_backward(c, r, {1, 2, 3, 6, 8});
}

void model_flash_attn_v3_forward(const OpCall& c, OpModelResult& r) {
  // flash_attn_3::fwd: causal is C[24]; dropout is not implemented there (always 0.0).
  model_aiter_forward(c, r, {0, 1, 2, 0, 24}, /*has_dropout=*/false);
}

void model_evoformer_attention(const OpCall& c, OpModelResult& r) {
  // Q = D[0] = (B, N_seq, N_res, H, D): N_seq folds into the batch; attention over N_res,
  // never causal. The mask and pair-bias reads are not costed.
  set_forward_category(r);
  const auto q = c.shape(0);
  if (q.size() != 5) throw BadArgs("EvoformerAttention: Q is not 5-d");
  std::optional<std::string> dtype;
  if (c.has_types() && c.type_count() > 0) dtype = c.type(0);
  SdpaConfig s;
  s.B = q[0] * q[1];
  s.N_Q = s.N_KV = q[2];
  s.H_Q = s.H_KV = q[3];
  s.d_qk = s.d_v = q[4];
  put_shape_params(r, s);
  r.param("causal", false);
  r.param("flash_impl", false);
  r.param_repr("dtype_A_B", py::list({dtype ? py::str_repr(*dtype) : py::none()}));
  if (dtype) r.compute_spec = compute_spec("matrix", compute_precision(*dtype));
  finish_forward(r, s, /*causal=*/false, /*flash_impl=*/false);
}

void model_sdpa_fwd_category_only(const OpCall&, OpModelResult& r) {
  r.category = kFwdCategory;
  r.has_model = false;
}

void model_sdpa_bwd_category_only(const OpCall&, OpModelResult& r) {
  r.category = kBwdCategory;
  r.has_model = false;
}

namespace {

// Where an inference attention op keeps q, k and v (inference-mode spec §6).
struct InferenceLayout {
  int64_t n_q = 0, h_q = 0, d_qk = 0, n_kv = 0, h_kv = 0, d_v = 0;
  std::size_t q_type = 0;      // the argument whose dtype is dtype_Q
  bool kv_dtype_param = true;  // SGLang's ragged op writes none (its KV bytes use dtype_Q's)
};

// sglang_profiler::attention_paged_attention_ragged: q = D[2], H_KV = D[3][-2], d_v = D[4][-1],
// N_KV = c_sk + g_sk (QUIRK: vLLM's N_KV is the current tokens; unused in the maths).
InferenceLayout sglang_ragged_layout(const OpCall& c, const OpCall::StepStats& t) {
  const std::vector<int64_t> q = c.shape(2), k = c.shape(3), v = c.shape(4);
  if (q.size() != 3 || k.size() < 2 || v.empty())
    throw BadArgs(c.name() + ": expected q, k and v in D[2], D[3], D[4]");
  return {q[0], q[1], q[2], t.c_sk + t.g_sk, k[k.size() - 2], v.back(), 2, false};
}

bool starts_with(const std::string& s, const char* prefix) {
  return s.rfind(prefix, 0) == 0;
}

// The base class: q = D[0] = (N_Q, H_Q, d_qk), the last three dims of D[1] = (N_KV, H_KV, d_v);
// fmha_v3_varlen_fwd, mha_batch_prefill and the MLA prefill pseudo op take d_v from D[2].
InferenceLayout inference_layout(const OpCall& c, const OpCall::StepStats& t) {
  const std::string& name = c.name();
  if (name == "sglang_profiler::attention_paged_attention_ragged")
    return sglang_ragged_layout(c, t);
  if (starts_with(name, "sglang_profiler::") || starts_with(name, "aiter::pa_") ||
      starts_with(name, "pseudo_v4_") || starts_with(name, "vllm::gdn_") ||
      starts_with(name, "aiter::linear_attention"))
    throw BadArgs(name + ": this attention layout has no model here");
  const std::vector<int64_t> q = c.shape(0), k = c.shape(1);
  if (q.size() != 3 || k.size() < 3)
    throw BadArgs(name + ": expected q (N, H, d) and k (..., N, H, d)");
  InferenceLayout l{q[0], q[1], q[2], k[k.size() - 3], k[k.size() - 2], k[k.size() - 1]};
  if (starts_with(name, "aiter::fmha_v3_varlen_fwd") ||
      starts_with(name, "aiter::mha_batch_prefill") ||
      starts_with(name, "pseudo_mla_prefill_fwd")) {
    const std::vector<int64_t> v = c.shape(2);
    if (v.empty()) throw BadArgs(name + ": expected v in D[2]");
    l.d_v = v.back();
  }
  return l;
}

}  // namespace

// Inference-mode spec §6 with perf-model §7.4: the serving step's token sums (the annotation
// the host bound the op to) give the attention's work: the current chunk of each context
// request is causal (2 sq sk - sq^2 score entries), each generation request attends its sk keys.
void model_inference_attention(const OpCall& c, OpModelResult& r) {
  r.category = "InferenceAttention";
  r.sheet = "InferenceAttention";
  const std::optional<OpCall::StepStats>& stats = c.step_stats();
  if (!stats) throw BadArgs(c.name() + ": inference attention needs its serving step's annotation");
  const OpCall::StepStats& t = *stats;
  if (t.c_sq == 0 && t.g_sq == 0) throw BadArgs(c.name() + ": a step without query tokens");
  const InferenceLayout l = inference_layout(c, t);
  const std::string& dtype_q = c.type(l.q_type);
  const std::string dtype_kv =
      l.kv_dtype_param && c.type_count() > 1 && !c.type(1).empty() ? c.type(1) : dtype_q;
  const double bpe_q = bytes_per_element(dtype_q).value_or(2.0);
  const double bpe_kv = bytes_per_element(dtype_kv).value_or(bpe_q);
  r.param("B", int64_t{1});
  r.param("N_Q", l.n_q);
  r.param("H_Q", l.h_q);
  r.param("H_V", l.h_kv);
  r.param("H_K", l.h_kv);
  r.param("N_KV", l.n_kv);
  r.param("H_KV", l.h_kv);
  r.param("d_h_qk", l.d_qk);
  r.param("d_h_v", l.d_v);
  r.param("dropout", 0.0);
  r.param("causal", false);
  r.param("flash_impl", true);
  const std::pair<const char*, int64_t> sums[] = {
      {"c_sq", t.c_sq}, {"c_sk", t.c_sk}, {"c_sqsq", t.c_sqsq}, {"c_sqsk", t.c_sqsk},
      {"g_sq", t.g_sq}, {"g_sk", t.g_sk}, {"g_sqsq", t.g_sqsq}, {"g_sqsk", t.g_sqsk}};
  for (const auto& [key, value] : sums) r.param(key, value);
  r.param_repr("dtype_Q", py::str_repr(dtype_q));
  if (l.kv_dtype_param) r.param_repr("dtype_KV", py::str_repr(dtype_kv));
  r.compute_spec = compute_spec("matrix", compute_precision(dtype_q));
  const double d = static_cast<double>(l.d_qk + l.d_v);
  const double h_q = static_cast<double>(l.h_q), h_kv = static_cast<double>(l.h_kv);
  r.flops = h_q * static_cast<double>(2 * t.c_sqsk - t.c_sqsq) * d +
            h_q * 2 * static_cast<double>(t.g_sqsk) * d;
  const double per_query_token =
      static_cast<double>(l.h_q * l.d_qk + l.h_q * l.d_v + l.h_kv * l.d_qk + l.h_kv * l.d_v);
  r.bytes = static_cast<double>(t.c_sq + t.g_sq) * per_query_token * bpe_q +
            static_cast<double>((t.c_sk - t.c_sq) + (t.g_sk - t.g_sq)) * h_kv * d * bpe_kv;
}

// SGLang's KV-cache store (inference-mode spec §6): no FLOPs; it reads and writes k and v of the
// step's tokens: 4 x prod(D[0]) elements.
void model_store_cache(const OpCall& c, OpModelResult& r) {
  r.category = "InferenceAttention";
  r.sheet = "InferenceAttention";
  const std::vector<int64_t> shape = c.shape(0);
  int64_t elements = 1;
  for (int64_t d : shape) elements *= d;
  const std::string& dtype = c.type(0);
  r.param_repr("op_shape", py::tuple(shape));
  r.param("nelems", elements);
  r.param_repr("dtype", py::str_repr(dtype));
  r.compute_spec = compute_spec("vector", compute_precision(dtype));
  r.flops = 0;
  r.bytes = 4.0 * static_cast<double>(elements) * bytes_per_element(dtype).value_or(2.0);
}

void model_kv_cache_write(const OpCall&, OpModelResult& r) {
  r.category = "InferenceAttention";
  r.has_model = false;
}

const char* const kAtenSdpaFlashNames[] = {"aten::_scaled_dot_product_flash_attention", nullptr};
const char* const kAtenSdpaEfficientNames[] = {"aten::_scaled_dot_product_efficient_attention",
                                               nullptr};
const char* const kAtenSdpaCudnnNames[] = {"aten::_scaled_dot_product_cudnn_attention", nullptr};
const char* const kFlashAttnForwardNames[] = {"FlashAttnFunc", "flash_attn::_flash_attn_forward",
                                              nullptr};
const char* const kFlashAttnBackwardNames[] = {"flash_attn::_flash_attn_backward", nullptr};
const char* const kFlashAttnVarlenForwardNames[] = {"flash_attn::_flash_attn_varlen_forward",
                                                    nullptr};
const char* const kFlashAttnVarlenBackwardNames[] = {"flash_attn::_flash_attn_varlen_backward",
                                                     nullptr};
const char* const kAiterFlashAttnForwardNames[] = {"aiter::_flash_attn_forward", nullptr};
const char* const kAiterFlashAttnBackwardNames[] = {"aiter::_flash_attn_backward", nullptr};
const char* const kAiterFmhaV3ForwardNames[] = {"aiter::wrapper_fmha_v3_fwd", nullptr};
const char* const kAiterFmhaV3BackwardNames[] = {"aiter::wrapper_fmha_v3_bwd", nullptr};
const char* const kAiterMhaFwdNames[] = {"aiter::mha_fwd", "aiter::fmha_v3_fwd", nullptr};
const char* const kAiterMhaBwdNames[] = {"aiter::mha_bwd", nullptr};
const char* const kFlashAttnV3ForwardNames[] = {"flash_attn_3::fwd", nullptr};
const char* const kEvoformerAttentionNames[] = {"EvoformerAttention", nullptr};
const char* const kSdpaFwdCategoryOnlyNames[] = {"aten::_efficient_attention_forward", nullptr};
const char* const kSdpaBwdCategoryOnlyNames[] = {
    "FlashAttnFuncBackward",
    "FusedAttnFuncBackward",
    "aten::_scaled_dot_product_cudnn_attention_backward",
    "aten::_scaled_dot_product_efficient_attention_backward",
    "aten::_scaled_dot_product_flash_attention_backward",
    "aten::_efficient_attention_backward",
    nullptr};
const char* const kInferenceAttentionNames[] = {
    "vllm::unified_attention_with_output",
    "aiter::mha_varlen_fwd",
    "aiter::fmha_v3_varlen_fwd",
    "aiter::mha_batch_prefill",
    "sglang_profiler::attention_paged_attention_ragged",
    "pseudo_mla_decode_fwd",
    "pseudo_mla_prefill_fwd",
    "aiter::pa_decode_gluon",
    "pseudo_v4_paged_decode_swa",
    "pseudo_v4_paged_decode_csa",
    "pseudo_v4_paged_decode_hca",
    "aiter::pa_sparse_prefill_opus_fwd",
    "sglang_profiler::tilelang_kernel_tilelang_sparse_fwd",
    "vllm::gdn_attention_core",
    "aiter::linear_attention_with_output_base",
    nullptr};
const char* const kStoreCacheNames[] = {"sglang::store_cache", nullptr};
const char* const kKvCacheWriteNames[] = {"_C_cache_ops::reshape_and_cache_flash",
                                          "_C_cache_ops::concat_and_cache_mla", nullptr};

}  // namespace traceprism::plugins::sdpa
