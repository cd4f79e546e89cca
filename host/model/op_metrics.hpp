#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "platform/platform_info.hpp"

namespace traceprism::model {

// The perf report's per-op numbers (trace-format spec §10, perf-model spec §11.2–§11.3) from an
// op model's FLOPs and bytes and the op's busy kernel time. Unknown values are NaN, as the
// reference's are: bytes unknown -> no Data Moved / FLOPS/Byte / TB/s; no kernel time -> no
// rates; no platform peak for the compute spec -> no roofline ("unknown", never made up).
struct OpMetrics {
  double gflops = 0;
  double tflops_per_s = 0;
  double data_moved_mb = 0;  // MiB, as the reference's column
  double flops_per_byte = 0;
  double tb_per_s = 0;  // decimal TB
  bool has_roofline = false;
  double roofline_time_us = 0;
  bool compute_bound = false;
  double pct_roofline = 0;
};

// A platform's roofline numbers, each compute spec's looked up once: the perf report asks for
// every op instance, millions on a long trace, and a look-up builds and compares key strings.
// Not thread-safe: one per builder.
class RooflinePeaks {
 public:
  explicit RooflinePeaks(const platform::PlatformInfo* platform);
  // TFLOPS for the spec, with the matrix_bf16 fallback of compute_op_metrics; absent when the
  // platform is null or has neither number.
  std::optional<double> tflops(std::string_view compute_spec);
  std::optional<double> bandwidth_gbps() const { return bandwidth_gbps_; }
  bool has_platform() const { return platform_ != nullptr; }

 private:
  const platform::PlatformInfo* platform_;
  std::optional<double> bandwidth_gbps_;
  std::vector<std::pair<std::string, std::optional<double>>> tflops_;  // by spec, first asked
};

// `bytes` < 0 means unknown. `platform` may be null (no roofline).
OpMetrics compute_op_metrics(double flops, double bytes, double kernel_time_us,
                             std::string_view compute_spec, const platform::PlatformInfo* platform);
OpMetrics compute_op_metrics(double flops, double bytes, double kernel_time_us,
                             std::string_view compute_spec, RooflinePeaks& peaks);

// "COMPUTE_BOUND" / "MEMORY_BOUND" for the sheets.
inline const char* roofline_bound_name(const OpMetrics& m) {
  return m.compute_bound ? "COMPUTE_BOUND" : "MEMORY_BOUND";
}

}  // namespace traceprism::model
