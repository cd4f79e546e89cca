// traceprism SDK: whether a trace trains (runs a backward pass) or only infers, for advice that
// holds in one mode only (diagnosis.md §1.1, §6.5: "fold the frozen batch-norm into the
// convolution" only in inference). A backward pass shows as the autograd engine's cpu ops
// (`autograd::engine::evaluate_function: ConvolutionBackward0`, the marker
// host/model/forward_backward.cpp pairs forward ops with) or as autograd nodes run directly
// (`ConvolutionBackward0`, `AddmmBackward1`).
//
//   if (!traceprism::has_backward_pass(ctx)) advise_folding_batch_norm();
#pragma once

#include <string_view>

#include "sdk.hpp"

namespace traceprism {

// True for the name of a cpu op that runs in the backward pass.
inline bool is_backward_op_name(std::string_view name) {
  constexpr std::string_view kEngine = "autograd::engine::evaluate_function:";
  if (name.substr(0, kEngine.size()) == kEngine) return true;
  for (std::string_view suffix : {std::string_view("Backward0"), std::string_view("Backward1")})
    if (name.size() >= suffix.size() && name.substr(name.size() - suffix.size()) == suffix)
      return true;
  return false;
}

// True when any cpu op of the trace belongs to the backward pass; stops at the first one.
inline bool has_backward_pass(const Context& ctx) {
  const EventView events = ctx.events();
  for (Row r : ctx.rows(Kind::kCpuOp))
    if (is_backward_op_name(events.name(r))) return true;
  return false;
}

}  // namespace traceprism
