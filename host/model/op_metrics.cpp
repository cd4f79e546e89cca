#include "model/op_metrics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace traceprism::model {

RooflinePeaks::RooflinePeaks(const platform::PlatformInfo* platform) : platform_(platform) {
  if (platform_) bandwidth_gbps_ = platform_->roofline_bandwidth_gbps();
}

std::optional<double> RooflinePeaks::tflops(std::string_view compute_spec) {
  if (!platform_) return std::nullopt;
  for (const auto& [spec, value] : tflops_)
    if (spec == compute_spec) return value;
  std::optional<double> peak = platform_->roofline_tflops(compute_spec);
  // A matrix precision the platform has no peak for (MXFP4 GEMMs on MI300X, which multiply in
  // BF16 after dequantizing): the reference's fallback peak, matrix_bf16 (its agent's
  // _resolve_peak_maf), where the reference leaves the roofline empty (docs/compatibility.md).
  if (!peak && compute_spec.starts_with("matrix_"))
    peak = platform_->roofline_tflops("matrix_bf16");
  tflops_.emplace_back(std::string(compute_spec), peak);
  return peak;
}

OpMetrics compute_op_metrics(double flops, double bytes, double kernel_time_us,
                             std::string_view compute_spec,
                             const platform::PlatformInfo* platform) {
  RooflinePeaks peaks(platform);
  return compute_op_metrics(flops, bytes, kernel_time_us, compute_spec, peaks);
}

OpMetrics compute_op_metrics(double flops, double bytes, double kernel_time_us,
                             std::string_view compute_spec, RooflinePeaks& peaks) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  const bool bytes_known = bytes >= 0;
  const bool timed = kernel_time_us > 0;
  OpMetrics m;
  // Same operation order as the reference, so the doubles agree to the last bit.
  m.gflops = flops / 1e9;
  m.tflops_per_s = timed ? (m.gflops / 1e3) / (kernel_time_us / 1e6) : kNaN;
  m.data_moved_mb = bytes_known ? bytes / (1024.0 * 1024.0) : kNaN;
  m.flops_per_byte = bytes_known && bytes != 0 ? m.gflops * 1e9 / bytes : kNaN;
  m.tb_per_s = bytes_known && timed ? (bytes / 1e12) / (kernel_time_us / 1e6) : kNaN;

  if (!peaks.has_platform() || compute_spec.empty() || !bytes_known || !(m.gflops > 0)) return m;
  const std::optional<double> peak = peaks.tflops(compute_spec);
  const std::optional<double> bandwidth = peaks.bandwidth_gbps();
  if (!peak || !bandwidth || *peak <= 0 || *bandwidth <= 0) return m;
  const double compute_us = m.gflops * 1e9 / (*peak * 1e12) * 1e6;
  const double memory_us = bytes / (*bandwidth * 1e9) * 1e6;
  m.has_roofline = true;
  m.roofline_time_us = std::max(compute_us, memory_us);
  m.compute_bound = compute_us >= memory_us;
  m.pct_roofline = kernel_time_us != 0 ? m.roofline_time_us / kernel_time_us * 100 : kNaN;
  return m;
}

}  // namespace traceprism::model
