#pragma once

#include <string>
#include <string_view>

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

// `bytes` < 0 means unknown. `platform` may be null (no roofline).
OpMetrics compute_op_metrics(double flops, double bytes, double kernel_time_us,
                             std::string_view compute_spec, const platform::PlatformInfo* platform);

// "COMPUTE_BOUND" / "MEMORY_BOUND" for the sheets.
inline const char* roofline_bound_name(const OpMetrics& m) {
  return m.compute_bound ? "COMPUTE_BOUND" : "MEMORY_BOUND";
}

}  // namespace traceprism::model
