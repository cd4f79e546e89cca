// The "memcpy" plugin: one analyzer, "memcpy" (memory copies on the GPU timeline).
#include <traceprism/sdk.hpp>

#include "memcpy_analyzer.hpp"

TRACEPRISM_ANALYZERS(traceprism::analyzer<traceprism::plugins::memcpy::MemcpyAnalyzer>(
    "memcpy",
    "Memory copies: D2H/H2D share, pageable async copies, synchronous copies and memsets.",
    traceprism::plugins::memcpy::kMemcpyOptions));
TRACEPRISM_PLUGIN("memcpy", "1.0.0");
