#include "gemm_models.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace traceprism::plugins::gemm {

// ---- op-name tables (spec §4.3, §5.2) ----------------------------------------------------------

const char* const kMmNames[] = {"aten::mm", nullptr};
const char* const kAddmmNames[] = {"aten::addmm", nullptr};
const char* const kBmmNames[] = {"aten::bmm", nullptr};
const char* const kBaddbmmNames[] = {"aten::baddbmm", nullptr};
const char* const kScaledMmNames[] = {"aten::_scaled_mm", "trtllm::cublas_scaled_mm",
                                      "bitsandbytes::int8_linear_matmul", nullptr};
const char* const kTeGemmTsNames[] = {"tex_ts::te_gemm_ts", nullptr};
const char* const kTev2PseudoGemmNames[] = {"_Linear_yfwd_mm",
                                            "_LinearBackward_xgrad_mm",
                                            "_LinearBackward_wgrad_mm",
                                            "_LayerNormLinear_yfwd_mm",
                                            "_LayerNormLinearBackward_xgrad_mm",
                                            "_LayerNormLinearBackward_wgrad_mm",
                                            nullptr};
const char* const kGemmWithDynamicQuantNames[] = {"vllm::gemm_with_dynamic_quant", nullptr};
const char* const kHipblasltGemmFp8Names[] = {"primus_turbo_cpp_extension::hipblaslt_gemm_fp8",
                                              "primus_turbo::hipblaslt_gemm_fp8", nullptr};
const char* const kHipblasltGemmFp4Names[] = {"primus_turbo_cpp_extension::hipblaslt_gemm_fp4",
                                              "primus_turbo::hipblaslt_gemm_fp4", nullptr};
const char* const kAiterGemmA4w4Names[] = {"aiter::gemm_a4w4", "aiter::_gemm_a4w4_asm", nullptr};
const char* const kGemmA8w8BlockscaleNames[] = {
    "sglang_profiler::fp8_utils_gemm_a8w8_blockscale",
    "sglang_profiler::gemm_a8w8_blockscale_gemm_a8w8_blockscale",
    "vllm::rocm_aiter_triton_gemm_a8w8_blockscale",
    "aiter::gemm_a8w8_blockscale_ck",
    "aiter::gemm_a8w8_blockscale_cktile",
    "aiter::gemm_a8w8_blockscale_bpreshuffle_ck",
    "aiter::gemm_a8w8_blockscale_bpreshuffle_cktile",
    "aiter::_gemm_a8w8_blockscale_bpreshuffle_asm",
    "aiter::flatmm_a8w8_blockscale_asm",
    "aiter::gfx950_a8w8_blockscale_asm",
    "aiter::gemm_a8w8_ck",
    "aiter::gemm_a8w8_bpreshuffle_ck",
    "aiter::gemm_a8w8_bpreshuffle",
    "vllm::_rocm_aiter_preshuffled_per_token_w8a8_gemm",
    nullptr};
const char* const kRocmUnquantizedGemmNames[] = {"vllm::rocm_unquantized_gemm", nullptr};
const char* const kGemmA16w16Names[] = {"aiter::gemm_a16w16", nullptr};
const char* const kGemmA16w16AtomicNames[] = {
    "aiter::gemm_a16w16_atomic_", "sglang_profiler::gemm_kernels_flydsl_hgemm", nullptr};
const char* const kGemmA16w16AsmNames[] = {"aiter::_gemm_a16w16_asm", nullptr};
const char* const kGroupedGemmNames[] = {"primus_turbo::grouped_gemm",
                                         "primus_turbo::grouped_gemm_impl",
                                         "primus_turbo_cpp_extension::grouped_gemm",
                                         "primus_turbo_cpp_extension::ck_grouped_gemm", nullptr};
const char* const kGroupedGemmVariableKNames[] = {
    "primus_turbo::grouped_gemm_variable_k", "primus_turbo::grouped_gemm_variable_k_impl",
    "primus_turbo_cpp_extension::grouped_gemm_variable_k",
    "primus_turbo_cpp_extension::ck_grouped_gemm_variable_k", nullptr};

namespace {

using Bpe = std::optional<std::int64_t>;

// ---- reading args the way the reference indexes them -------------------------------------------

std::int64_t as_int(const ArgValue& v) {
  if (!v.is_int) throw BadArgs("expected an integer dimension, got a list");
  return v.value;
}

// D[arg][i] (the reference's IndexError / TypeError become BadArgs).
std::int64_t dim(const OpCall& call, std::size_t arg, std::size_t i) {
  return as_int(call.dims(arg)[i]);
}

// D[arg] unpacked into exactly `rank` ints (Python's `b, m, k = shape`).
std::vector<std::int64_t> shape_of_rank(const OpCall& call, std::size_t arg, std::size_t rank) {
  std::vector<std::int64_t> shape = call.shape(arg);
  if (shape.size() != rank) throw BadArgs("unexpected tensor rank");
  return shape;
}

const std::string& item(const std::vector<std::string>& v, std::size_t i) {
  if (i >= v.size()) throw BadArgs("index out of range");
  return v[i];
}

// tuple(T[begin:end]): a Python slice, clamped to the list.
std::vector<std::string> type_slice(const OpCall& call, std::size_t begin, std::size_t end) {
  std::vector<std::string> out;
  for (std::size_t i = begin; i < end && i < call.type_count(); ++i) out.push_back(call.type(i));
  return out;
}

std::string strings_repr(const std::vector<std::string>& texts) {
  std::vector<std::string> items;
  for (const auto& t : texts) items.push_back(py::str_repr(t));
  return py::tuple(items);
}

// repr() of one element of tuple(S[i]): an int, or a nested list.
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

// tuple(S[i]), or None when the trace has no `Input Strides` (the reference catches KeyError).
std::string stride_repr(const OpCall& call, std::size_t i) {
  if (!call.has_strides()) return py::none();
  return tuple_repr(call.strides(i));
}

// The same, for models that also catch IndexError (None when the slot is missing).
std::string stride_repr_or_none(const OpCall& call, std::size_t i) {
  if (!call.has_strides()) return py::none();
  const ArgValue* s = nullptr;
  try {
    s = &call.strides(i);
  } catch (const BadArgs&) {
    return py::none();
  }
  return tuple_repr(*s);
}

std::string optional_str_repr(const std::optional<std::string>& text) {
  return text ? py::str_repr(*text) : std::string(py::none());
}

Bpe bpe_of(std::string_view dtype) {
  const auto bpe = bytes_per_element(dtype);
  if (!bpe) return std::nullopt;
  return static_cast<std::int64_t>(*bpe);
}

std::string bpe_repr(const Bpe& bpe) {
  return bpe ? py::repr(*bpe) : std::string(py::none());
}

// Python's `a // b` (floor division).
std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  if (b == 0) throw BadArgs("integer division by zero");
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// Python's `"true"`-ish reading of a Concrete Inputs flag ("True", "true", "1").
bool parse_flag(std::string text) {
  text = lower_ascii(text);
  const auto first = text.find_first_not_of(" \t");
  const auto last = text.find_last_not_of(" \t");
  text = first == std::string::npos ? "" : text.substr(first, last - first + 1);
  return text == "true" || text == "1";
}

// ---- the GEMM base class (spec §5) ------------------------------------------------------------

// Negative or 64-bit-overflowing dims are not a real GEMM's: BadArgs, never a negative or
// undefined figure.
void check_gemm_dims(std::int64_t M, std::int64_t N, std::int64_t K) {
  if (M < 0 || N < 0 || K < 0) throw BadArgs("expected non-negative GEMM dimensions");
}

double gemm_flops(std::int64_t M, std::int64_t N, std::int64_t K, bool bias) {
  check_gemm_dims(M, N, K);
  const std::int64_t mn = checked_mul(M, N);
  return static_cast<double>(checked_add(checked_mul(checked_mul(2, mn), K), bias ? mn : 0));
}

// GEMM.bytes_func: unknown (-1) when any bpe is unknown; the bias is always 1 x N (Q7).
double gemm_bytes(std::int64_t M, std::int64_t N, std::int64_t K, bool bias, const Bpe& a,
                  const Bpe& b, const Bpe& bias_bpe, const Bpe& out) {
  if (!a || !b || !bias_bpe || !out) return -1;
  check_gemm_dims(M, N, K);
  const std::int64_t inputs =
      checked_add(checked_mul(checked_mul(M, K), *a), checked_mul(checked_mul(K, N), *b));
  const std::int64_t output = checked_mul(checked_mul(M, N), *out);
  return static_cast<double>(
      checked_add(checked_add(inputs, output), checked_mul(bias ? N : 0, *bias_bpe)));
}

void start_gemm(OpModelResult& r) {
  r.category = "GEMM";
  r.sheet = "GEMM";
}

// After get_param_details the base class appends B = 1 when the dict has no B, then the
// transpose flags parsed from the kernel names.
void finish_gemm_params(const OpCall& call, OpModelResult& r, bool has_b_param) {
  if (!has_b_param) r.param("B", std::int64_t{1});
  const std::string transpose = transpose_from_kernels(call.kernel_names());
  if (!transpose.empty()) r.param_repr("transpose", transpose);
}

// Compute spec from dtype_A_B[0]; an fp32 GEMM on TF32 tensor cores gets matrix_tf32
// (a deliberate deviation: the reference says matrix_fp32).
void set_matrix_compute_spec(const OpCall& call, OpModelResult& r, std::string_view dtype_a) {
  std::string precision = compute_precision(dtype_a);
  if (precision == "fp32" && runs_on_tf32_tensor_cores(call.kernel_names())) precision = "tf32";
  r.compute_spec = compute_spec("matrix", precision);
}

// The params every mm-like model shares, in the reference's dict order.
void mm_params(OpModelResult& r, std::int64_t M, std::int64_t N, std::int64_t K, bool bias,
               const std::string& stride_a, const std::string& stride_b,
               const std::vector<std::string>& dtypes) {
  r.param("M", M);
  r.param("N", N);
  r.param("K", K);
  r.param("bias", bias);
  r.param_repr("stride_A", stride_a);
  r.param_repr("stride_B", stride_b);
  r.param_repr("dtype_A_B", strings_repr(dtypes));
}

// aten::mm / addmm / bmm / baddbmm: one bpe, the one of A, for every tensor (Q7).
void plain_mm(const OpCall& call, OpModelResult& r, std::size_t a_arg, bool batched, bool bias) {
  std::int64_t B = 1, M = 0, K = 0, N = 0;
  if (batched) {
    const auto a = shape_of_rank(call, a_arg, 3);
    B = a[0];
    M = a[1];
    K = a[2];
    N = shape_of_rank(call, a_arg + 1, 3)[2];
  } else {
    M = dim(call, a_arg, 0);
    N = dim(call, a_arg + 1, 1);
    K = dim(call, a_arg, 1);
  }
  const auto dtypes = type_slice(call, a_arg, a_arg + 2);
  if (batched) r.param("B", B);
  mm_params(r, M, N, K, bias, stride_repr(call, a_arg), stride_repr(call, a_arg + 1), dtypes);
  finish_gemm_params(call, r, batched);
  (void)item(dtypes, 1);  // the reference compares A's and B's dtypes (IndexError when B has none)
  const Bpe bpe = bpe_of(item(dtypes, 0));
  r.flops = static_cast<double>(B) * gemm_flops(M, N, K, bias);
  const double per_batch = gemm_bytes(M, N, K, bias, bpe, bpe, bpe, bpe);
  r.bytes = per_batch < 0 ? -1 : static_cast<double>(B) * per_batch;
  set_matrix_compute_spec(call, r, item(dtypes, 0));
}

// ---- kernel-name parsing (spec §5.4) ----------------------------------------------------------

bool is_lower(char c) {
  return c >= 'a' && c <= 'z';
}

// ".*C[a-z]{3}_A[a-z]{3}_B[a-z]{3}.*": a ROCm Tensile / hipBLASLt GEMM kernel.
bool is_tensile_gemm(std::string_view name) {
  static constexpr std::string_view kShape = "Cxxx_Axxx_Bxxx";
  for (std::size_t i = 0; i + kShape.size() <= name.size(); ++i) {
    bool match = true;
    for (std::size_t j = 0; j < kShape.size() && match; ++j)
      match = kShape[j] == 'x' ? is_lower(name[i + j]) : name[i + j] == kShape[j];
    if (match) return true;
  }
  return false;
}

std::string flag_repr(std::optional<bool> flag) {
  return flag ? py::repr(*flag) : std::string(py::none());
}

std::string tensile_transpose(std::string_view name) {
  std::optional<bool> a, b;
  if (name.find("_Ailk_") != std::string_view::npos) {
    a = false;
  } else if (name.find("_Alik_") != std::string_view::npos) {
    a = true;
  }
  if (name.find("_Bljk_") != std::string_view::npos) {
    b = false;
  } else if (name.find("_Bjlk_") != std::string_view::npos) {
    b = true;
  }
  return py::tuple(std::vector<std::string>{flag_repr(a), flag_repr(b)});
}

// nvjet kernels: the last '_' token's first two characters are the transA / transB letters.
std::string nvjet_transpose(std::string_view name) {
  const std::string_view token = name.substr(name.rfind('_') + 1);
  if (token.size() < 2) throw BadArgs("nvjet kernel name without transpose letters");
  return py::tuple(std::vector<std::string>{py::repr(token[0] == 'T'), py::repr(token[1] == 'T')});
}

// ---- FP4 GEMMs (spec §5, "FP4 bytes") ----------------------------------------------------------

struct Fp4Gemm {
  std::int64_t M = 0, N = 0, K = 0;  // K is the logical K (two FP4 values per packed byte)
  std::vector<std::string> dtypes;   // A, B
  std::optional<std::string> scale_a, scale_b;
};

double fp4_bytes(const Fp4Gemm& g) {
  const Bpe a = bpe_of(item(g.dtypes, 0)), b = bpe_of(item(g.dtypes, 1));
  if (!a || !b) throw BadArgs("FP4 GEMM operand dtypes are not supported");  // an assert
  constexpr std::int64_t kBlock = 32;
  const std::int64_t scales_per_row = (g.K + kBlock - 1) / kBlock;
  auto scale_bpe = [](const std::optional<std::string>& dtype) -> std::int64_t {
    const Bpe bpe = dtype ? bpe_of(*dtype) : std::nullopt;
    return bpe && *bpe != 0 ? *bpe : 1;  // `name2bpe(dtype) or 1`
  };
  const std::int64_t packed_k = g.K / 2;  // two FP4 values per byte, as the reference's K // 2
  return static_cast<double>(g.M * packed_k * *a + g.N * packed_k * *b +
                             g.M * scales_per_row * scale_bpe(g.scale_a) +
                             g.N * scales_per_row * scale_bpe(g.scale_b) + 2 * g.M * g.N);
}

void fp4_params(OpModelResult& r, const Fp4Gemm& g, const std::string& stride_a,
                const std::string& stride_b) {
  mm_params(r, g.M, g.N, g.K, false, stride_a, stride_b, g.dtypes);
  r.param_repr("dtype_scaleA", optional_str_repr(g.scale_a));
  r.param_repr("dtype_scaleB", optional_str_repr(g.scale_b));
}

std::optional<std::string> optional_type(const OpCall& call, std::size_t i) {
  if (i >= call.type_count()) return std::nullopt;
  return call.type(i);
}

// hipblaslt_gemm_fp8/fp4(A, scaleA, B, scaleB, out_dtype, transA, transB, transC, granularity):
// M, K, N with the binding's transC swap.
struct HipblasltLayout {
  std::int64_t M = 0, K = 0, N = 0;
};

HipblasltLayout hipblaslt_layout(const OpCall& call) {
  std::vector<std::int64_t> a = call.shape(0), b = call.shape(2);
  auto flag = [&](std::size_t i) {
    return call.has_concrete() && call.concrete_count() > i && parse_flag(call.concrete(i));
  };
  bool trans_a = flag(5), trans_b = flag(6);
  if (flag(7)) {
    std::swap(a, b);
    const bool new_a = !trans_b, new_b = !trans_a;
    trans_a = new_a;
    trans_b = new_b;
  }
  auto at = [](const std::vector<std::int64_t>& s, std::size_t i) {
    if (i >= s.size()) throw BadArgs("index out of range");
    return s[i];
  };
  return {at(a, trans_a ? 1 : 0), at(a, trans_a ? 0 : 1), at(b, trans_b ? 0 : 1)};
}

// ---- grouped GEMM (spec §5.1) ------------------------------------------------------------------

using Pair = std::pair<std::int64_t, std::int64_t>;

bool all_positive_ints(const ArgValue& v, std::size_t begin, std::size_t end) {
  for (std::size_t i = begin; i < end; ++i)
    if (!v.items[i].is_int || v.items[i].value <= 0) return false;
  return true;
}

// Every (rows, cols) pair of positive ints nested in a Dims value.
void collect_2d_shapes(const ArgValue& v, std::vector<Pair>& out) {
  if (v.is_int) return;
  if (v.size() == 2 && all_positive_ints(v, 0, 2)) {
    out.emplace_back(v.items[0].value, v.items[1].value);
    return;
  }
  for (const auto& x : v.items) collect_2d_shapes(x, out);
}

struct GroupedDims {
  std::int64_t M = 0, K = 0, N = 0, G = 0;
};

// Compact `[[M,K],[G,K,N]]` or `[[M,K],[G,N,K]]`.
std::optional<GroupedDims> compact_grouped_dims(const ArgValue& dims) {
  if (dims.is_int || dims.size() < 2) return std::nullopt;
  const ArgValue &a = dims[0], &b = dims[1];
  if (a.is_int || b.is_int || a.size() < 2 || b.size() != 3 || !all_positive_ints(a, 0, 2) ||
      !all_positive_ints(b, 0, 3))
    return std::nullopt;
  GroupedDims g{a.items[0].value, a.items[1].value, 0, b.items[0].value};
  if (b.items[1].value == g.K) {
    g.N = b.items[2].value;
  } else if (b.items[2].value == g.K) {
    g.N = b.items[1].value;
  } else {
    return std::nullopt;
  }
  return g;
}

// The two zipped operand lists of `[[(M1,K),(M2,K),...],[(K,N),(K,N),...]]`, as pairs.
std::optional<std::vector<std::pair<Pair, Pair>>> zipped_pairs(const ArgValue& dims) {
  if (dims.is_int || dims.size() < 2 || dims[0].is_int || dims[1].is_int) return std::nullopt;
  std::vector<Pair> lhs, rhs;
  collect_2d_shapes(dims[0], lhs);
  collect_2d_shapes(dims[1], rhs);
  if (lhs.empty() || rhs.empty() || lhs.size() != rhs.size()) return std::nullopt;
  std::vector<std::pair<Pair, Pair>> pairs;
  for (std::size_t i = 0; i < lhs.size(); ++i) pairs.emplace_back(lhs[i], rhs[i]);
  return pairs;
}

std::optional<GroupedDims> zipped_grouped_dims(const ArgValue& dims) {
  const auto pairs = zipped_pairs(dims);
  if (!pairs) return std::nullopt;
  GroupedDims g{0, pairs->front().first.second, pairs->front().second.second,
                static_cast<std::int64_t>(pairs->size())};
  for (const auto& [a, b] : *pairs) {
    if (a.second != g.K || b.first != g.K || b.second != g.N) return std::nullopt;
    g.M += a.first;
  }
  return g;
}

// bpe_in = bpe(T[0]); bpe_out = bpe(T[1]), or bpe_in when there is no T[1].
std::pair<Bpe, Bpe> grouped_bpes(const OpCall& call) {
  const std::size_t n = call.has_types() ? call.type_count() : 0;
  const Bpe in = n > 0 ? bpe_of(call.type(0)) : std::nullopt;
  const Bpe out = n > 1 ? bpe_of(call.type(1)) : in;
  return {in, out};
}

std::string pair_repr(const Pair& p) {
  return py::tuple(std::vector<std::int64_t>{p.first, p.second});
}

void start_grouped(OpModelResult& r) {
  r.category = "GroupedGEMM_fwd";
  r.bwd_category = "GroupedGEMM_bwd";
  r.sheet = "GroupedGEMM";
}

void grouped_params(OpModelResult& r, const GroupedDims& g, Bpe in, Bpe out) {
  r.param("M", g.M);
  r.param("K", g.K);
  r.param("N", g.N);
  r.param("G", g.G);
  r.param_repr("bpe_in", bpe_repr(in));
  r.param_repr("bpe_out", bpe_repr(out));
}

// GroupedGemm.get_compute_precision reads `Input type`[0] of the event itself.
void set_grouped_compute_spec(const OpCall& call, OpModelResult& r) {
  if (!call.has_types()) return;
  set_matrix_compute_spec(call, r, call.type(0));
}

// The whole `Input Dims` list (`.get("Input Dims", [])`: empty when absent).
ArgValue all_dims(const OpCall& call) {
  ArgValue v;
  if (!call.has_dims()) return v;
  for (std::size_t i = 0; i < call.arg_count(); ++i) v.items.push_back(call.dims(i));
  return v;
}

}  // namespace

// ---- kernel names ------------------------------------------------------------------------------

std::string transpose_from_kernels(const std::vector<std::string>& kernel_names) {
  for (const auto& name : kernel_names) {
    if (is_tensile_gemm(name)) return tensile_transpose(name);
    if (name.rfind("nvjet", 0) == 0) return nvjet_transpose(name);
  }
  return "";
}

bool runs_on_tf32_tensor_cores(const std::vector<std::string>& kernel_names) {
  for (const auto& name : kernel_names) {
    const std::string lower = lower_ascii(name);
    // 3xTF32 emulates full fp32 accuracy with three passes: not the TF32 rate.
    if (lower.find("3xtf32") != std::string::npos) continue;
    // cuBLAS/cuDNN xmma ("xmma_gemm_f32f32_tf32f32_f32"), CUTLASS "s1688tf32gemm", ...
    if (lower.find("tf32") != std::string::npos) return true;
    // CUTLASS tensor-op SGEMM: no input-type tag before the "s" (fp32 accumulate) shape, so the
    // operands are fp32 on tensor cores, i.e. TF32 ("tensorop_bf16_s16816gemm" is bf16).
    if (lower.find("tensorop_s1688gemm") != std::string::npos ||
        lower.find("tensorop_s16816gemm") != std::string::npos)
      return true;
  }
  return false;
}

// ---- core GEMM models ---------------------------------------------------------------------------

void model_mm(const OpCall& call, OpModelResult& r) {
  start_gemm(r);
  plain_mm(call, r, 0, false, false);
}

void model_addmm(const OpCall& call, OpModelResult& r) {
  start_gemm(r);
  plain_mm(call, r, 1, false, true);
}

void model_bmm(const OpCall& call, OpModelResult& r) {
  start_gemm(r);
  plain_mm(call, r, 0, true, false);
}

void model_baddbmm(const OpCall& call, OpModelResult& r) {
  start_gemm(r);
  plain_mm(call, r, 1, true, true);
}

// bias = (len(D) == 3): _scaled_mm always records more args, so never (Q5); scales not counted.
void model_scaled_mm(const OpCall& call, OpModelResult& r) {
  start_gemm(r);
  const std::int64_t M = dim(call, 0, 0), N = dim(call, 1, 1), K = dim(call, 0, 1);
  const bool bias = call.arg_count() == 3;
  const auto dtypes = type_slice(call, 0, 2);
  mm_params(r, M, N, K, bias, stride_repr(call, 0), stride_repr(call, 1), dtypes);
  finish_gemm_params(call, r, false);
  r.flops = gemm_flops(M, N, K, bias);
  const Bpe a = bpe_of(item(dtypes, 0)), b = bpe_of(item(dtypes, 1));
  if (!a || !b) throw BadArgs("_scaled_mm operand dtypes are not supported");  // an assert
  // fp8 in -> 16-bit out; 16/32-bit keep their width; anything else: unknown.
  const Bpe out = *a == 1 ? Bpe(2) : (*a == 2 || *a == 4) ? a : Bpe();
  r.bytes = gemm_bytes(M, N, K, bias, a, a, a, out);
  set_matrix_compute_spec(call, r, item(dtypes, 0));
}

// TransformerEngine te_gemm_ts: A = D[0], B = D[5], out = D[10]; transA / transB in C[4] / C[9];
// bias present when C[14] is not "".
void model_te_gemm_ts(const OpCall& call, OpModelResult& r) {
  start_gemm(r);
  (void)call.dims(10);  // the output slot must exist
  const bool trans_a = call.concrete(4) == "1", trans_b = call.concrete(9) == "1";
  const std::int64_t M = dim(call, 0, trans_a ? 0 : 1), K = dim(call, 0, trans_a ? 1 : 0);
  const std::int64_t N = dim(call, 5, trans_b ? 1 : 0);
  const bool bias = call.concrete(14) != "";
  const std::vector<std::string> dtypes{call.type(0), call.type(5), call.type(10), call.type(18)};
  mm_params(r, M, N, K, bias, stride_repr(call, 0), stride_repr(call, 5), dtypes);
  finish_gemm_params(call, r, false);
  r.flops = gemm_flops(M, N, K, bias);
  r.bytes = gemm_bytes(M, N, K, bias, bpe_of(dtypes[0]), bpe_of(dtypes[1]), bpe_of(dtypes[3]),
                       bpe_of(dtypes[2]));
  set_matrix_compute_spec(call, r, dtypes[0]);
}

// TEv2 pseudo GEMMs: laid out as mm; the output is always 16-bit; mixed input dtypes raise.
void model_tev2_pseudo_gemm(const OpCall& call, OpModelResult& r) {
  start_gemm(r);
  const std::int64_t M = dim(call, 0, 0), N = dim(call, 1, 1), K = dim(call, 0, 1);
  const auto dtypes = type_slice(call, 0, 2);
  mm_params(r, M, N, K, false, stride_repr(call, 0), stride_repr(call, 1), dtypes);
  finish_gemm_params(call, r, false);
  r.flops = gemm_flops(M, N, K, false);
  if (item(dtypes, 0) != item(dtypes, 1)) throw BadArgs("TEv2 GEMM with mixed input dtypes");
  const Bpe in = bpe_of(dtypes[0]);
  r.bytes = gemm_bytes(M, N, K, false, in, in, in, Bpe(2));
  set_matrix_compute_spec(call, r, dtypes[0]);
}

// vllm::gemm_with_dynamic_quant: A and W are the first two 2-D shapes in Input Dims (the
// reference falls back to D[0] / D[1]); A = (M, K), W = (N, K_packed).
void model_gemm_with_dynamic_quant(const OpCall& call, OpModelResult& r) {
  start_gemm(r);
  const ArgValue dims = all_dims(call);
  const ArgValue *a = nullptr, *b = nullptr;
  for (const auto& shape : dims.items) {
    if (shape.is_int || shape.size() != 2) continue;
    if (!a) {
      a = &shape;
    } else {
      b = &shape;
      break;
    }
  }
  if (dims.size() >= 2) {
    if (!a && !dims.items[0].is_int) a = &dims.items[0];
    if (!b && !dims.items[1].is_int) b = &dims.items[1];
  }
  if (!a || !b || a->size() != 2 || b->size() != 2)
    throw BadArgs("vllm::gemm_with_dynamic_quant: no 2-D A and B shapes in Input Dims");
  const std::int64_t M = as_int((*a)[0]), K = as_int((*a)[1]), N = as_int((*b)[0]);
  if (!call.has_types() || call.type_count() < 2)
    throw BadArgs("vllm::gemm_with_dynamic_quant: no A and B dtypes in Input type");
  const auto dtypes = type_slice(call, 0, 2);
  mm_params(r, M, N, K, false, stride_repr(call, 0), stride_repr(call, 1), dtypes);
  finish_gemm_params(call, r, false);
  r.flops = gemm_flops(M, N, K, false);
  const Bpe bpe = bpe_of(dtypes[0]);
  r.bytes = gemm_bytes(M, N, K, false, bpe, bpe, bpe, bpe);
  set_matrix_compute_spec(call, r, dtypes[0]);
}

void model_hipblaslt_gemm_fp8(const OpCall& call, OpModelResult& r) {
  start_gemm(r);
  const HipblasltLayout g = hipblaslt_layout(call);
  const std::vector<std::string> dtypes{call.type(0), call.type(2)};
  mm_params(r, g.M, g.N, g.K, false, stride_repr_or_none(call, 0), stride_repr_or_none(call, 2),
            dtypes);
  r.param_repr("dtype_scaleA", optional_str_repr(optional_type(call, 1)));
  r.param_repr("dtype_scaleB", optional_str_repr(optional_type(call, 3)));
  finish_gemm_params(call, r, false);
  r.flops = gemm_flops(g.M, g.N, g.K, false);
  const Bpe a = bpe_of(dtypes[0]), b = bpe_of(dtypes[1]);
  if (!a || !b) throw BadArgs("hipblaslt_gemm_fp8 operand dtypes are not supported");
  r.bytes = gemm_bytes(g.M, g.N, g.K, false, a, b, a, *a == 1 ? Bpe(2) : a);
  set_matrix_compute_spec(call, r, dtypes[0]);
}

// MXFP4: the traced K is packed (two values per byte); E8M0 block scales are counted.
void model_hipblaslt_gemm_fp4(const OpCall& call, OpModelResult& r) {
  start_gemm(r);
  const HipblasltLayout layout = hipblaslt_layout(call);
  Fp4Gemm g{layout.M,
            layout.N,
            layout.K * 2,
            {call.type(0), call.type(2)},
            optional_type(call, 1),
            optional_type(call, 3)};
  fp4_params(r, g, stride_repr_or_none(call, 0), stride_repr_or_none(call, 2));
  finish_gemm_params(call, r, false);
  r.flops = gemm_flops(g.M, g.N, g.K, false);
  r.bytes = fp4_bytes(g);
  set_matrix_compute_spec(call, r, g.dtypes[0]);
}

// aiter gemm_a4w4(A, B, scaleA, scaleB, ...): the binding only supports NT, so A = (M, Kp) and
// B = (N, Kp).
void model_aiter_gemm_a4w4(const OpCall& call, OpModelResult& r) {
  start_gemm(r);
  const auto a = call.shape(0), b = call.shape(1);
  if (a.size() < 2 || b.empty()) throw BadArgs("index out of range");
  Fp4Gemm g{a[0],
            b[0],
            a[1] * 2,
            {call.type(0), call.type(1)},
            optional_type(call, 2),
            optional_type(call, 3)};
  fp4_params(r, g, stride_repr_or_none(call, 0), stride_repr_or_none(call, 1));
  finish_gemm_params(call, r, false);
  r.flops = gemm_flops(g.M, g.N, g.K, false);
  r.bytes = fp4_bytes(g);
  set_matrix_compute_spec(call, r, g.dtypes[0]);
}

// ---- extension GEMMs (spec §5.2) ---------------------------------------------------------------

// A = (M, K), W = (N, K), fp8/int8 with block scales; the output is bf16; scales not counted.
void model_gemm_a8w8_blockscale(const OpCall& call, OpModelResult& r) {
  start_gemm(r);
  const std::int64_t M = dim(call, 0, 0), K = dim(call, 0, 1), N = dim(call, 1, 0);
  const std::size_t n_types = call.has_types() ? call.type_count() : 0;
  const std::vector<std::string> dtypes{n_types > 0 ? call.type(0) : "",
                                        n_types > 1 ? call.type(1) : "", "c10::bfloat16"};
  r.param("B", std::int64_t{1});
  r.param("M", M);
  r.param("N", N);
  r.param("K", K);
  r.param("bias", false);
  r.param_repr("dtype_A_B", strings_repr(dtypes));
  if (call.arg_count() > 3) {
    // Block sizes from the scale shapes: ceil(K / x_scale[-1]), ceil(N / w_scale[0]).
    const ArgValue &x_scale = call.dims(2), &w_scale = call.dims(3);
    auto block = [](std::int64_t extent, const ArgValue& scale, bool last) -> std::string {
      if (scale.is_int || scale.empty()) return py::none();
      const std::int64_t s = as_int(last ? scale.items.back() : scale.items.front());
      if (s == 0) return py::none();
      return py::repr(-floor_div(-extent, s));
    };
    r.param_str("quant_scheme", "a8w8_blockscale");
    r.param_str("quant_granularity", "per_block");
    r.param_repr("block_k", block(K, x_scale, true));
    r.param_repr("block_n", block(N, w_scale, false));
    r.param_str("scale_dtype", n_types > 2 ? call.type(2) : "float32");
  }
  r.param_repr("output_shape", py::tuple(std::vector<std::int64_t>{M, N}));
  r.param_str("output_dtype", "c10::bfloat16");
  finish_gemm_params(call, r, true);
  r.flops = gemm_flops(M, N, K, false);
  const Bpe out = bpe_of(dtypes[2]);
  r.bytes = gemm_bytes(M, N, K, false, bpe_of(dtypes[0]), bpe_of(dtypes[1]), out, out);
  set_matrix_compute_spec(call, r, dtypes[0]);
}

// vllm::rocm_unquantized_gemm(x (M, K), weight (N, K), bias (N)?).
void model_rocm_unquantized_gemm(const OpCall& call, OpModelResult& r) {
  start_gemm(r);
  const bool bias = call.arg_count() > 2 && call.dims(2).size() > 0;
  const std::int64_t M = dim(call, 0, 0), N = dim(call, 1, 0), K = dim(call, 0, 1);
  const std::vector<std::string> dtypes{call.type(0), call.type(1),
                                        call.type_count() > 2 ? call.type(2) : ""};
  r.param("M", M);
  r.param("N", N);
  r.param("K", K);
  r.param("bias", bias);
  r.param_repr("dtype_A_B", strings_repr(dtypes));
  finish_gemm_params(call, r, false);
  r.flops = gemm_flops(M, N, K, bias);
  const Bpe out = bpe_of(bias ? dtypes[2] : dtypes[1]);
  r.bytes = gemm_bytes(M, N, K, bias, bpe_of(dtypes[0]), bpe_of(dtypes[1]), out, out);
  set_matrix_compute_spec(call, r, dtypes[0]);
}

namespace {

// aiter a16w16 family: X = (M, K), W = (N, K); dtype_A_B = (X, W, output).
void a16w16(const OpCall& call, OpModelResult& r, bool bias, const std::string& out_dtype) {
  const std::int64_t M = dim(call, 0, 0), N = dim(call, 1, 0), K = dim(call, 0, 1);
  const std::vector<std::string> dtypes{call.type(0), call.type(1), out_dtype};
  r.param("B", std::int64_t{1});
  r.param("M", M);
  r.param("N", N);
  r.param("K", K);
  r.param("bias", bias);
  r.param_repr("dtype_A_B", strings_repr(dtypes));
  finish_gemm_params(call, r, true);
  r.flops = gemm_flops(M, N, K, bias);
  const Bpe out = bpe_of(dtypes[2]);
  r.bytes = gemm_bytes(M, N, K, bias, bpe_of(dtypes[0]), bpe_of(dtypes[1]), out, out);
  set_matrix_compute_spec(call, r, dtypes[0]);
}

}  // namespace

// (x, w, bias?, dtype, ...): the output follows x.
void model_gemm_a16w16(const OpCall& call, OpModelResult& r) {
  start_gemm(r);
  const bool bias = call.arg_count() > 2 && call.dims(2).size() > 0;
  a16w16(call, r, bias, call.type(0));
}

// (x, w, ?, y, ...): the output dtype is T[3], bf16 when absent.
void model_gemm_a16w16_atomic(const OpCall& call, OpModelResult& r) {
  start_gemm(r);
  a16w16(call, r, false, call.type_count() > 3 ? call.type(3) : "c10::bfloat16");
}

// (x, w, y, split-K workspace, ...): the output dtype is T[2] when sized, else x's.
void model_gemm_a16w16_asm(const OpCall& call, OpModelResult& r) {
  start_gemm(r);
  const bool sized = call.type_count() > 2 && bytes_per_element(call.type(2)).has_value();
  a16w16(call, r, false, sized ? call.type(2) : call.type(0));
}

// ---- grouped GEMM ---------------------------------------------------------------------------

// X (M, K) @ W (G, K, N): FLOPs = 2MKN, bytes = (MK + GKN)·bpe_in + MN·bpe_out.
void model_grouped_gemm(const OpCall& call, OpModelResult& r) {
  start_grouped(r);
  const ArgValue dims = all_dims(call);
  auto g = compact_grouped_dims(dims);
  if (!g) g = zipped_grouped_dims(dims);
  if (!g) throw BadArgs("grouped_gemm: cannot parse Input Dims");
  const auto [in, out] = grouped_bpes(call);
  grouped_params(r, *g, in, out);
  r.flops = static_cast<double>(2 * g->M * g->K * g->N);
  // The reference multiplies by None here (TypeError): no bytes means no row.
  if (!in || !out) throw BadArgs("grouped_gemm: unknown dtype size");
  r.bytes = static_cast<double>((g->M * g->K + g->G * g->K * g->N) * *in + g->M * g->N * *out);
  set_grouped_compute_spec(call, r);
}

// Per-group (M_i, K_i) @ (K_i, N_i); a compact `[[M,K],[M,N]]` is one group.
void model_grouped_gemm_variable_k(const OpCall& call, OpModelResult& r) {
  start_grouped(r);
  const ArgValue dims = all_dims(call);
  std::optional<std::vector<std::pair<Pair, Pair>>> pairs;
  if (dims.size() >= 2 && !dims[0].is_int && !dims[1].is_int && dims[0].size() == 2 &&
      dims[1].size() == 2 && all_positive_ints(dims[0], 0, 2) && all_positive_ints(dims[1], 0, 2)) {
    const std::int64_t M = dims[0].items[0].value, K = dims[0].items[1].value;
    pairs = std::vector<std::pair<Pair, Pair>>{{{M, K}, {K, dims[1].items[1].value}}};
  } else {
    pairs = zipped_pairs(dims);
    bool chained = pairs.has_value();
    if (pairs)
      for (const auto& [a, b] : *pairs) chained = chained && a.second == b.first;
    if (!chained) pairs.reset();
  }
  if (!pairs || pairs->empty()) throw BadArgs("grouped_gemm_variable_k: cannot parse Input Dims");
  const auto [in, out] = grouped_bpes(call);
  GroupedDims g{0, pairs->front().first.second, pairs->front().second.second,
                static_cast<std::int64_t>(pairs->size())};
  std::vector<std::string> pair_reprs;
  std::int64_t flops = 0, bytes = 0;
  for (const auto& [a, b] : *pairs) {
    g.M += a.first;
    pair_reprs.push_back(py::tuple(std::vector<std::string>{pair_repr(a), pair_repr(b)}));
    flops += 2 * a.first * a.second * b.second;
    if (in && out)
      bytes += (a.first * a.second + a.second * b.second) * *in + a.first * b.second * *out;
  }
  grouped_params(r, g, in, out);
  r.param_repr("group_pairs", py::list(pair_reprs));
  r.flops = static_cast<double>(flops);
  r.bytes = in && out ? static_cast<double>(bytes) : -1;
  set_grouped_compute_spec(call, r);
}

}  // namespace traceprism::plugins::gemm
