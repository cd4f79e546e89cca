// cpu-idle: how much of the end-to-end GPU span the GPU sits idle and why: one finding per
// cause of the host's idle attribution (diagnosis.md §2), with the cause's action, and HTA's
// launch and idle-split figures. Page: docs/analyzers/cpu_idle/cpu-idle.md.
#pragma once

#include <traceprism/sdk.hpp>

#include "idle_cause_findings.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace traceprism::plugins::cpu_idle {

inline constexpr traceprism_option_v1 kOptions[] = {
    {"IdleThresholdPercent", "15",
     "The figure idle_flagged is 1 when GPU idle time is above this percent of the end-to-end "
     "span (the reference's flag; findings are per cause, see MinCausePercent)."},
    {"MinCausePercent", "2",
     "Report a cause of idle time when it holds at least this percent of the end-to-end span."},
    {"HostOpRows", "5", "How many host events holding a cause's idle time its finding lists."},
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

class CpuIdleAnalyzer : public Analyzer {
 public:
  explicit CpuIdleAnalyzer(Context& ctx);
  Status run(Context& ctx) override;

 private:
  struct Utilization;  // the GPU timeline's split of the end-to-end span
  struct Kernels;      // how many kernels, how many short, how long on average
  struct SyncSignals;  // per op category: host time against GPU kernel time
  struct D2hCopies;    // device-to-host copies, each a possible host wait
  struct StreamSplit;  // HTA's idle time breakdown of one stream
  struct Launches;     // HTA's kernel launch statistics
  struct IdleGaps;     // the device-level idle gaps, classified by cause
  struct Measures;     // all of the above

  // The measuring steps of run(), in order; each records its figures.
  static Utilization measure_utilization(Context& ctx, const Timeline& t, double threshold);
  Kernels count_kernels(Context& ctx) const;
  SyncSignals measure_sync_signals(Context& ctx) const;
  static D2hCopies count_d2h_copies(Context& ctx, double total_us);
  std::vector<StreamSplit> split_idle_per_stream(Context& ctx, const std::vector<Row>& rows) const;
  Launches measure_launches(Context& ctx, const std::vector<Row>& linked) const;
  IdleGaps find_idle_gaps(Context& ctx, const std::vector<Row>& linked) const;

  static TraceFacts trace_facts(Context& ctx, const Kernels& kernels);

  double idle_threshold_percent_;
  double short_kernel_us_;
  double consecutive_kernel_delay_us_;
  double launch_delay_outlier_us_;
  double runtime_outlier_us_;
  double sync_ratio_;
  double sync_min_ms_;
  double sync_share_of_gpu_;
  std::int64_t evidence_gaps_;
  CauseReportOptions cause_options_;
};

}  // namespace traceprism::plugins::cpu_idle
