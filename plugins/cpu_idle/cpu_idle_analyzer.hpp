// cpu-idle: how much of the end-to-end GPU span the GPU sits idle, why (host late, launch
// latency, other), and a recommendation chosen from the evidence. Page:
// docs/analyzers/cpu_idle/cpu-idle.md.
#pragma once

#include <traceprism/sdk.hpp>

namespace cpu_idle {

inline constexpr traceprism_option_v1 kOptions[] = {
    {"IdleThresholdPercent", "15",
     "Report a finding when GPU idle time is above this percent of the end-to-end span."},
    {"ShortKernelUs", "10", "Kernels shorter than this (microseconds) count as short."},
    {"ConsecutiveKernelDelayUs", "30",
     "Gaps below this (microseconds) that the host did not cause count as kernel-to-kernel "
     "launch latency (HTA consecutive_kernel_delay)."},
    {"LaunchDelayOutlierUs", "100",
     "A launch whose GPU work starts more than this (microseconds) after the launch call "
     "returned is a launch-delay outlier (HTA launch_delay_cutoff)."},
    {"RuntimeOutlierUs", "50",
     "Launch calls longer than this (microseconds) are runtime outliers (HTA runtime_cutoff)."},
    {"SyncRatio", "5",
     "An op group whose host duration exceeds this multiple of its GPU kernel time carries "
     "host synchronization time."},
    {"SyncMinMs", "1", "A category's sync time must exceed this (ms) to be a sync bottleneck."},
    {"SyncShareOfGpu", "0.1",
     "A category's sync time must exceed this fraction of its GPU kernel time to be a sync "
     "bottleneck."},
    {"EvidenceGaps", "10", "How many of the largest idle gaps the finding lists."},
};

class CpuIdleAnalyzer : public traceprism::Analyzer {
 public:
  explicit CpuIdleAnalyzer(traceprism::Context& ctx);
  traceprism::Status run(traceprism::Context& ctx) override;

 private:
  double idle_threshold_percent_;
  double short_kernel_us_;
  double consecutive_kernel_delay_us_;
  double launch_delay_outlier_us_;
  double runtime_outlier_us_;
  double sync_ratio_;
  double sync_min_ms_;
  double sync_share_of_gpu_;
  std::int64_t evidence_gaps_;
};

}  // namespace cpu_idle
