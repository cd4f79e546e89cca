// The rule both the host's roofline (host/platform/platform_info.hpp) and analyzers
// (traceprism/roofline.hpp) use to pick a platform's roofline numbers: the measured achievable
// value when the platform has one, else the datasheet peak; nullopt when neither is known.
// Header-only C++17, no dependency on the rest of the SDK.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace traceprism {

// `number(key)` looks a platform key up and returns std::optional<double>.
template <class Lookup>
std::optional<double> achievable_else_peak(const Lookup& number, std::string_view achievable,
                                           std::string_view peak) {
  if (std::optional<double> v = number(achievable)) return v;
  return number(peak);
}

// TFLOPS for a compute spec ("matrix_bf16"): achievable_tflops.<spec>, else peak_tflops.<spec>.
template <class Lookup>
std::optional<double> roofline_tflops_of(const Lookup& number, std::string_view compute_spec) {
  // Built in one buffer: hosts ask once per op, millions of times on a long trace.
  constexpr std::string_view kAchievable = "achievable_tflops.", kPeak = "peak_tflops.";
  std::string key;
  key.reserve(kAchievable.size() + compute_spec.size());
  key.append(kAchievable).append(compute_spec);
  if (std::optional<double> v = number(std::string_view(key))) return v;
  key.assign(kPeak).append(compute_spec);
  return number(std::string_view(key));
}

// Memory bandwidth (GB/s): achievable_hbm_bandwidth_gbps, else hbm_bandwidth_gbps.
template <class Lookup>
std::optional<double> roofline_hbm_gbps_of(const Lookup& number) {
  return achievable_else_peak(number, "achievable_hbm_bandwidth_gbps", "hbm_bandwidth_gbps");
}

}  // namespace traceprism
