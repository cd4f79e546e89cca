// host-sync: host time spent blocked in device synchronization (synchronize calls and scalar
// reads of GPU tensors), the part of it during which the GPU has no work either, grouped by the
// op that triggered it. Page:
// docs/analyzers/host_sync/host-sync.md.
#pragma once

#include <traceprism/sdk.hpp>

namespace host_sync {

inline constexpr traceprism_option_v1 kOptions[] = {
    {"StallThresholdPercent", "1",
     "Report a finding when the host waits in blocking synchronization while the GPU has no work "
     "for more than this percent of the end-to-end span (severity critical from 10%)."},
    {"RepeatedSyncCount", "10",
     "Also report (severity info) when the trace holds at least this many blocking waits, even "
     "while the GPU stays busy: a synchronization every step caps how far the host can run "
     "ahead (Nsight's cuda_api_sync rule). 0 turns this off."},
    {"MaxTableRows", "20", "How many (sync call, triggering op) groups the finding lists."},
};

class HostSyncAnalyzer : public traceprism::Analyzer {
 public:
  explicit HostSyncAnalyzer(traceprism::Context& ctx);
  traceprism::Status run(traceprism::Context& ctx) override;

 private:
  double threshold_percent_;
  std::int64_t repeated_count_;
  std::int64_t max_table_rows_;
};

}  // namespace host_sync
