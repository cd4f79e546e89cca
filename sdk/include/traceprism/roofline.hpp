// The roofline numbers of the run's platform as the host's own roofline picks them
// (host/platform/platform_info.hpp): the measured achievable value when the platform has one,
// else the datasheet peak; nullopt when neither is known. Header-only.
#pragma once

#include <traceprism/sdk.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace traceprism {

// `number` looks a platform key up (Context::platform_number, or a test's map).
template <class Lookup>
std::optional<double> achievable_else_peak(const Lookup& number, std::string_view achievable,
                                           std::string_view peak) {
  if (std::optional<double> v = number(achievable)) return v;
  return number(peak);
}

inline std::optional<double> roofline_number(const Context& ctx, std::string_view achievable,
                                             std::string_view peak) {
  return achievable_else_peak([&](std::string_view key) { return ctx.platform_number(key); },
                              achievable, peak);
}

// TFLOPS for a compute spec ("matrix_bf16"): achievable_tflops.<spec>, else peak_tflops.<spec>.
inline std::optional<double> roofline_tflops(const Context& ctx, std::string_view compute_spec) {
  const std::string spec(compute_spec);
  return roofline_number(ctx, "achievable_tflops." + spec, "peak_tflops." + spec);
}

// Memory bandwidth (GB/s): achievable_hbm_bandwidth_gbps, else hbm_bandwidth_gbps.
inline std::optional<double> roofline_hbm_gbps(const Context& ctx) {
  return roofline_number(ctx, "achievable_hbm_bandwidth_gbps", "hbm_bandwidth_gbps");
}

}  // namespace traceprism
