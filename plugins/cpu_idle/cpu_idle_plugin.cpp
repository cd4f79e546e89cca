// The cpu_idle plugin: one analyzer, cpu-idle.
#include "cpu_idle_analyzer.hpp"

TRACEPRISM_ANALYZERS(traceprism::analyzer<traceprism::plugins::cpu_idle::CpuIdleAnalyzer>(
    "cpu-idle",
    "GPU idle share of end-to-end time, its causes (host wait, launch latency) and the fix.",
    traceprism::plugins::cpu_idle::kOptions));
TRACEPRISM_PLUGIN("cpu_idle", "1.0.0");
