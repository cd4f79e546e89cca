// MoE op models: perf-model spec §9.1 (MoEComm) and the category-only names of §4.4.
#include "moe_models.hpp"

#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace traceprism::plugins::moe {
namespace {

// The reference parses MoEComm leniently (`args.get(...)`, length checks): a missing shape or
// dtype gives None params and unknown bytes, never a failure.
struct TokenVolume {
  std::optional<std::int64_t> num_tokens, hidden_dim;
  std::optional<double> bpe;
};

std::optional<std::int64_t> int_at(const ArgValue& shape, std::size_t i) {
  if (shape.is_int || i >= shape.size()) return std::nullopt;
  if (!shape[i].is_int) throw BadArgs("MoE token tensor: expected a shape");
  return shape[i].value;
}

TokenVolume read_token_volume(const OpCall& c) {
  TokenVolume v;
  if (c.has_dims() && c.arg_count() > 0) {
    const ArgValue& tokens = c.dims(0);
    v.num_tokens = int_at(tokens, 0);
    v.hidden_dim = int_at(tokens, 1);
  }
  if (c.has_types() && c.type_count() > 0 && !c.type(0).empty()) {
    v.bpe = bytes_per_element(c.type(0));
  }
  return v;
}

void put_optional_int(OpModelResult& r, const char* key, std::optional<std::int64_t> v) {
  if (v) {
    r.param(key, *v);
  } else {
    r.param_repr(key, py::none());
  }
}

// name2bpe gives Python ints; keep the int repr for whole sizes.
void put_bpe(OpModelResult& r, std::optional<double> bpe) {
  if (!bpe) {
    r.param_repr("bpe", py::none());
  } else if (*bpe == std::floor(*bpe)) {
    r.param("bpe", static_cast<std::int64_t>(*bpe));
  } else {
    r.param("bpe", *bpe);
  }
}

double token_bytes(const TokenVolume& v) {
  if (!v.num_tokens || !v.hidden_dim || !v.bpe) return -1;
  return static_cast<double>(*v.num_tokens * *v.hidden_dim) * *v.bpe;
}

// The extension's own dtype table (DTYPE_TO_BYTES; keys compared as written).
std::optional<double> moe_bytes_per_element(std::string_view dtype) {
  static const std::map<std::string_view, double> kBytes = {{"Float8_e4m3fn", 1},
                                                            {"Float8_e4m3fnuz", 1},
                                                            {"Float8_e5m2", 1},
                                                            {"Float8_e5m2fnuz", 1},
                                                            {"FP8", 1},
                                                            {"FP4", 0.5},
                                                            {"BFloat16", 2},
                                                            {"Float16", 2},
                                                            {"Half", 2},
                                                            {"Float32", 4},
                                                            {"Float", 4},
                                                            {"c10::BFloat16", 2},
                                                            {"c10::Float8_e4m3fn", 1},
                                                            {"c10::Float8_e4m3fnuz", 1},
                                                            {"c10::Half", 2},
                                                            {"c10::Float", 4}};
  auto it = kBytes.find(dtype);
  if (it == kBytes.end()) return std::nullopt;
  return it->second;
}

struct UnfusedMoeGemm {
  std::int64_t tokens = 0, hidden = 0, inter = 0, experts = 0, topk = 0;
  bool gated = false;
  std::string input_dtype;
  std::optional<std::string> weight_dtype;
  std::optional<double> bpe_in, bpe_w;
  // Expected distinct experts the tokens reach under uniform routing.
  double active_experts() const {
    const double e = static_cast<double>(experts);
    return e * (1 - std::pow((e - static_cast<double>(topk)) / e, static_cast<double>(tokens)));
  }
};

std::string pseudo_arg(const OpCall& c, std::string_view key) {
  std::optional<std::string> value = c.pseudo_op_arg(key);
  if (!value) throw BadArgs(c.name() + ": the pseudo op has no '" + std::string(key) + "' arg");
  return *value;
}

std::optional<std::string> weight_dtype_of_kernel(std::string_view kernel) {
  const std::string name = lower_ascii(kernel);
  if (name.find("fp4") != std::string::npos) return "FP4";  // mxfp4 included
  if (name.find("fp8") != std::string::npos || name.find("e4m3") != std::string::npos) return "FP8";
  return std::nullopt;
}

UnfusedMoeGemm read_unfused_moe_gemm(const OpCall& c) {
  UnfusedMoeGemm g;
  if (c.arg_count() < 2) throw BadArgs(c.name() + ": expected at least 2 Input Dims");
  const std::vector<std::int64_t> input = c.shape(0), router = c.shape(1);
  if (input.size() < 2 || router.size() < 2)
    throw BadArgs(c.name() + ": expected 2-d input and router tensors");
  g.tokens = input[0];
  g.hidden = input[1];
  g.inter = g.hidden;
  g.experts = router[1];
  g.topk = parse_int(pseudo_arg(c, "MoE topk"));
  g.gated = pseudo_arg(c, "MoE GEMM gated") == "true";
  if (c.kernel_names().empty()) throw BadArgs(c.name() + ": no kernel below the pseudo op");
  g.weight_dtype = weight_dtype_of_kernel(c.kernel_names().front());
  if (c.type_count() < 2) throw BadArgs(c.name() + ": expected at least 2 Input types");
  g.input_dtype = c.type(0);
  g.bpe_in = moe_bytes_per_element(g.input_dtype);
  if (g.weight_dtype) g.bpe_w = moe_bytes_per_element(*g.weight_dtype);
  if (g.experts <= 0) throw BadArgs(c.name() + ": no experts");
  return g;
}

void put_unfused_moe_gemm(const UnfusedMoeGemm& g, OpModelResult& r) {
  r.category = "MoE_unfused";
  r.sheet = "MoE_unfused";
  r.param("num_tokens", g.tokens);
  r.param("hidden_dim", g.hidden);
  r.param("inter_dim", g.inter);
  r.param("num_experts", g.experts);
  r.param("topk", g.topk);
  r.param("gated", g.gated);
  r.param_str("input_dtype", g.input_dtype);
  if (g.weight_dtype) {
    r.param_str("weight_dtype", *g.weight_dtype);
  } else {
    r.param_repr("weight_dtype", py::none());
  }
  // The GEMMs compute in the weights' precision.
  r.compute_spec = compute_spec("matrix", g.weight_dtype ? compute_precision(*g.weight_dtype) : "");
}

}  // namespace

// Spec formulas, each term in the reference's order of operations (bit-equal doubles). The
// bytes are unknown (None) where a dtype is not in the extension's table, where the reference
// raises.
void model_moe_triton_unfused_up(const OpCall& c, OpModelResult& r) {
  const UnfusedMoeGemm g = read_unfused_moe_gemm(c);
  put_unfused_moe_gemm(g, r);
  const std::int64_t gating = g.gated ? 2 : 1;
  r.flops = static_cast<double>(2 * g.tokens * g.hidden * g.inter * g.topk * gating);
  if (!g.bpe_in || !g.bpe_w) return;
  const double input = static_cast<double>(g.tokens * g.hidden) * *g.bpe_in;
  const double weights = g.active_experts() * static_cast<double>(gating) *
                         static_cast<double>(g.hidden) * static_cast<double>(g.inter) * *g.bpe_w;
  const double output = static_cast<double>(g.tokens * g.inter * g.topk) * *g.bpe_in;
  r.bytes = input + weights + output;
}

void model_moe_triton_unfused_down(const OpCall& c, OpModelResult& r) {
  const UnfusedMoeGemm g = read_unfused_moe_gemm(c);
  put_unfused_moe_gemm(g, r);
  r.flops = static_cast<double>(2 * g.tokens * g.inter * g.hidden * g.topk);
  if (!g.bpe_in || !g.bpe_w) return;
  const double input = static_cast<double>(g.tokens * g.inter * g.topk) * *g.bpe_in;
  const double weights =
      g.active_experts() * static_cast<double>(g.inter) * static_cast<double>(g.hidden) * *g.bpe_w;
  const double output = static_cast<double>(g.tokens * g.hidden) * *g.bpe_in;
  r.bytes = input + weights + output;
}

void model_moe_comm(const OpCall& c, OpModelResult& r) {
  r.category = "MoE_comm_fwd";
  r.bwd_category = "MoE_comm_bwd";
  r.sheet = "MoE_comm";
  const TokenVolume v = read_token_volume(c);
  put_optional_int(r, "num_tokens", v.num_tokens);
  put_optional_int(r, "hidden_dim", v.hidden_dim);
  put_bpe(r, v.bpe);
  // Pure communication: the data volume moved, no FLOPs, no maf type (so no compute spec).
  r.flops = 0;
  r.bytes = token_bytes(v);
  r.backward([&] {
    r.flops_bwd = 0;
    r.bytes_bwd = token_bytes(v);
  });
}

void model_moe_comm_fwd_category_only(const OpCall&, OpModelResult& r) {
  r.category = "MoE_comm_fwd";
  r.has_model = false;
}

void model_moe_comm_bwd_category_only(const OpCall&, OpModelResult& r) {
  r.category = "MoE_comm_bwd";
  r.has_model = false;
}

void model_moe_aux_category_only(const OpCall&, OpModelResult& r) {
  r.category = "MoE_aux";
  r.has_model = false;
}

void model_moe_unfused_category_only(const OpCall&, OpModelResult& r) {
  r.category = "MoE_unfused";
  r.has_model = false;
}

// AITER's two-stage CK MoE (the up and down expert GEMMs as separate ops): the reference's
// extensions call them MoE_unfused; their argument layout is not in the spec, so no FLOPs.
const char* const kMoeUnfusedCategoryOnlyNames[] = {"aiter::ck_moe_stage1", "aiter::ck_moe_stage2",
                                                    nullptr};

const char* const kMoeTritonUnfusedUpNames[] = {"pseudo_op::moe_triton_unfused_up", nullptr};
const char* const kMoeTritonUnfusedDownNames[] = {"pseudo_op::moe_triton_unfused_down", nullptr};

const char* const kMoeCommNames[] = {"MoEDispatch", "MoECombine", nullptr};
const char* const kMoeCommFwdCategoryOnlyNames[] = {"TokenPermuteMaskMap",
                                                    "_OperationFuserAutogradFunction", nullptr};
const char* const kMoeCommBwdCategoryOnlyNames[] = {
    "MoEDispatchBackward", "MoECombineBackward", "TokenPermuteMaskMapBackward",
    "_OperationFuserAutogradFunctionBackward", nullptr};
// The sorting / top-k / gating helpers of §4.4. aiter::moe_sorting_fwd is the reference
// extensions' MoE_aux op with a sort/scatter model, whose maths the spec does not give: it is
// categorised and timed without FLOPs (docs/compatibility.md). aiter::biased_grouped_topk_hip is
// left out: the extensions give it a model too.
const char* const kMoeAuxCategoryOnlyNames[] = {
    "aiter::moe_sorting_fwd",
    "aiter::moe_sorting_opus_fwd",
    "aiter::moe_align_block_size",
    "_moe_C::moe_align_block_size",
    "aiter::fused_moe_->_fused_dynamic_mxfp4_quant_moe_sort_kernel (Synthetic Op)",
    "aiter::moe_sum",
    "aiter::topk_softmax",
    "aiter::topk_softmax_asm",
    "aiter::topk_sigmoid",
    "aiter::grouped_topk",
    "aiter::moe_fused_gate",
    nullptr};

}  // namespace traceprism::plugins::moe
