// MoE op models: perf-model spec §9.1 (MoEComm) and the category-only names of §4.4.
#include "moe_models.hpp"

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

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

}  // namespace

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
