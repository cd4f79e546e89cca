#pragma once

#include <map>
#include <optional>
#include <string>

namespace traceprism::platform {

// The hardware a run is analysed against: a name for the report and named peak numbers
// ("peak_tflops.matrix_bf16", "hbm_bandwidth_gbps", ...). Platform files fill the numbers
// (platforms issue); until one is chosen the map is empty and analyzers see every number as
// absent.
struct PlatformInfo {
  std::string name;         // "H100", or the detected device name, or empty
  std::string device_name;  // deviceProperties name from the trace, when present
  std::map<std::string, double> numbers;

  std::optional<double> number(const std::string& key) const {
    auto it = numbers.find(key);
    if (it == numbers.end()) return std::nullopt;
    return it->second;
  }
};

}  // namespace traceprism::platform
