// The "memcpy" plugin: one analyzer, "memcpy" (memory copies on the GPU timeline).
#include <traceprism/sdk.hpp>

#include "memcpy_analyzer.hpp"

namespace {

constexpr traceprism_option_v1 kMemcpyOptions[] = {
    {"DirectionPercentThreshold", "5",
     "Flag D2H or H2D copies when their time is above this % of the E2E span."},
    {"DirectionCountThreshold", "10",
     "Flag D2H or H2D copies when there are more than this many of them."},
    {"SyncH2DMinBytes", "65536",
     "sync-memcpy ignores host-to-device copies of this many bytes or fewer."},
    {"TableRows", "10", "Rows in each finding's table of longest copies."},
    {"MaxEvidenceRows", "200", "Evidence rows kept per finding (longest first)."},
};

}  // namespace

TRACEPRISM_ANALYZERS(traceprism::analyzer<traceprism::plugins::memcpy::MemcpyAnalyzer>(
    "memcpy",
    "Memory copies: D2H/H2D share, pageable async copies, synchronous copies and memsets.",
    kMemcpyOptions));
TRACEPRISM_PLUGIN("memcpy", "1.0.0");
