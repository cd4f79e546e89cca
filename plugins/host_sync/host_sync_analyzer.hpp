// host-sync: host time spent blocked in device synchronization (synchronize calls and scalar
// reads of GPU tensors), the part of it during which the GPU has no work either, grouped by the
// op that triggered it. Page:
// docs/analyzers/host_sync/host-sync.md.
#pragma once

#include <traceprism/sdk.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace traceprism::plugins::host_sync {

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

class HostSyncAnalyzer : public Analyzer {
 public:
  explicit HostSyncAnalyzer(Context& ctx);
  Status run(Context& ctx) override;

 private:
  struct Waits;     // the blocking waits, in time order
  struct EndToEnd;  // the span the waits are measured against, and the GPU's busy time in it
  struct Tally;     // the waits summed: in total, per kind and per call site
  struct CallSite;  // one (sync call, triggering op) group of the tally

  // The steps of run(), in order.
  static Waits find_waits(const Context& ctx);
  static EndToEnd end_to_end(const Context& ctx);
  static Tally tally(const EventView& ev, const Waits& waits, const EndToEnd& span);
  static void record(Context& ctx, const Waits& waits, const EndToEnd& span, const Tally& t);
  void report(Context& ctx, const Waits& waits, const EndToEnd& span, const Tally& t,
              bool stalls) const;

  // What the finding is made of.
  static std::vector<CallSite> ranked_call_sites(const Tally& t);
  Table call_site_table(std::vector<CallSite> ranked) const;
  static Table kind_table(const Tally& t);
  static std::vector<Row> longest_waits(const EventView& ev, const Waits& waits);
  static std::string insight(const Waits& waits, const EndToEnd& span, const Tally& t,
                             const CallSite& top);
  std::string identification(const Waits& waits, const Tally& t, bool stalls) const;
  static std::string reasoning(const Tally& t);
  static std::string title(const Waits& waits, const Tally& t, bool stalls);

  double threshold_percent_;
  std::int64_t repeated_count_;
  std::int64_t max_table_rows_;
};

}  // namespace traceprism::plugins::host_sync
