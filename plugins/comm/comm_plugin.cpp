// The "comm" plugin: one analyzer, "comm" (collective communication and its overlap).
#include <traceprism/sdk.hpp>

#include "comm_analyzer.hpp"

TRACEPRISM_ANALYZERS(traceprism::analyzer<traceprism::plugins::comm::CommAnalyzer>(
    "comm", "Collective communication: exposed time per collective type, and what to do about it.",
    traceprism::plugins::comm::kCommOptions));
TRACEPRISM_PLUGIN("comm", "1.0.0");
