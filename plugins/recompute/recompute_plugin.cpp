// The "recompute" plugin: one analyzer, "recompute" (activation-checkpoint recompute).
#include <traceprism/sdk.hpp>

#include "recompute_analyzer.hpp"

TRACEPRISM_ANALYZERS(traceprism::analyzer<traceprism::plugins::recompute::RecomputeAnalyzer>(
    "recompute",
    "Activation-checkpoint recompute: forward ops rerun inside the backward pass, their GPU "
    "time and share of computation.",
    traceprism::plugins::recompute::kRecomputeOptions));
TRACEPRISM_PLUGIN("recompute", "1.0.0");
