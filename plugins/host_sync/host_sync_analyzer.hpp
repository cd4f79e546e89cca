// host-sync: host time spent blocked in device synchronization (synchronize calls and scalar
// reads of GPU tensors), the part of it during which the GPU has no work either, grouped by the
// op that triggered it, as figures; the idle time they cause is cpu-idle's to report. Page:
// docs/analyzers/host_sync/host-sync.md.
#pragma once

#include <traceprism/sdk.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace traceprism::plugins::host_sync {

class HostSyncAnalyzer : public Analyzer {
 public:
  Status run(Context& ctx) override;

 private:
  struct Waits;     // the blocking waits, in time order
  struct EndToEnd;  // the span the waits are measured against, and the GPU's busy time in it
  struct Tally;     // the waits summed: in total, per kind and per call site

  // The steps of run(), in order.
  static Waits find_waits(const Context& ctx);
  static EndToEnd end_to_end(const Context& ctx);
  static Tally tally(const EventView& ev, const Waits& waits, const EndToEnd& span);
  static void record(Context& ctx, const Waits& waits, const EndToEnd& span, const Tally& t);
};

}  // namespace traceprism::plugins::host_sync
