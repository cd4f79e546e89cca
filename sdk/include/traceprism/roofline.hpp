// The roofline numbers of the run's platform for an analyzer, by the rule the host's own
// roofline uses (traceprism/roofline_rule.hpp). Header-only.
#pragma once

#include <traceprism/roofline_rule.hpp>
#include <traceprism/sdk.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace traceprism {

inline std::optional<double> roofline_number(const Context& ctx, std::string_view achievable,
                                             std::string_view peak) {
  return achievable_else_peak([&](std::string_view key) { return ctx.platform_number(key); },
                              achievable, peak);
}

// TFLOPS for a compute spec ("matrix_bf16"): achievable_tflops.<spec>, else peak_tflops.<spec>.
inline std::optional<double> roofline_tflops(const Context& ctx, std::string_view compute_spec) {
  return roofline_tflops_of([&](std::string_view key) { return ctx.platform_number(key); },
                            compute_spec);
}

// Memory bandwidth (GB/s): achievable_hbm_bandwidth_gbps, else hbm_bandwidth_gbps.
inline std::optional<double> roofline_hbm_gbps(const Context& ctx) {
  return roofline_hbm_gbps_of([&](std::string_view key) { return ctx.platform_number(key); });
}

}  // namespace traceprism
