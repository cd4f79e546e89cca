// The host_sync plugin: one analyzer, host-sync.
#include "host_sync_analyzer.hpp"

TRACEPRISM_ANALYZERS(traceprism::analyzer<traceprism::plugins::host_sync::HostSyncAnalyzer>(
    "host-sync",
    "Host time blocked in device synchronization, grouped by the op that triggered it "
    "(figures; cpu-idle reports the idle time it causes)."));
TRACEPRISM_PLUGIN("host_sync", "1.0.0");
