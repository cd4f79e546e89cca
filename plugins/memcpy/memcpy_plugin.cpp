// The "memcpy" plugin: one analyzer, "memcpy" (memory copies on the GPU timeline).
#include <traceprism/sdk.hpp>

#include "memcpy_analyzer.hpp"

TRACEPRISM_ANALYZERS(traceprism::analyzer<traceprism::plugins::memcpy::MemcpyAnalyzer>(
    "memcpy",
    "Memory copies: traffic per direction and memory kind against the link that carries it, "
    "device-to-device layout copies, exposed host<->device copies.",
    traceprism::plugins::memcpy::kMemcpyOptions));
TRACEPRISM_PLUGIN("memcpy", "1.0.0");
