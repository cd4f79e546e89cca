#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <traceprism/roofline_rule.hpp>

namespace traceprism::platform {

// The hardware a run is analysed against: a name for the report and named peak numbers
// ("peak_tflops.matrix_bf16", "achievable_tflops.matrix_bf16", "hbm_bandwidth_gbps",
// "achievable_hbm_bandwidth_gbps", "memory_gb", "host_link_gbps": the host <-> device link in
// one direction). Platform files fill the numbers
// (platform/platform_file.hpp, docs/platforms.md); when none is chosen the map is empty and
// analyzers see every number as absent.
struct PlatformInfo {
  std::string name;         // "H100", or the detected device name, or empty
  std::string device_name;  // deviceProperties name from the trace, when present
  // std::less<>: looked up by string_view without a copy (the perf report asks once per op).
  std::map<std::string, double, std::less<>> numbers;

  std::optional<double> number(std::string_view key) const {
    auto it = numbers.find(key);
    if (it == numbers.end()) return std::nullopt;
    return it->second;
  }
  // `number` as the SDK's roofline rule calls it (traceprism/roofline_rule.hpp).
  auto number_by_view() const {
    return [this](std::string_view key) { return number(key); };
  }

  // The TFLOPS roofline uses for a compute spec ("matrix_bf16"): the measured achievable value
  // when the platform has one, else the datasheet peak; absent when neither is known.
  std::optional<double> roofline_tflops(std::string_view spec) const {
    return traceprism::roofline_tflops_of(number_by_view(), spec);
  }

  // The memory bandwidth roofline uses (GB/s): achievable when known, else the peak.
  std::optional<double> roofline_bandwidth_gbps() const {
    return traceprism::roofline_hbm_gbps_of(number_by_view());
  }
};

}  // namespace traceprism::platform
