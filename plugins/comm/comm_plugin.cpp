// The "comm" plugin: one analyzer, "comm" (collective communication and its overlap).
#include <traceprism/sdk.hpp>

#include "comm_analyzer.hpp"

namespace {

constexpr traceprism_option_v1 kCommOptions[] = {
    {"ExposedCommPercentThreshold", "5",
     "exposed-comm fires when exposed communication is above this % of the E2E span."},
    {"OverlapRatioThreshold", "0.70",
     "poor-overlap fires when the compute/communication overlap ratio is below this."},
    {"MinCommTimeUs", "100", "poor-overlap needs at least this much communication time (µs)."},
    {"TopCollectives", "10", "Collectives listed as evidence (longest first)."},
};

}  // namespace

TRACEPRISM_ANALYZERS(traceprism::analyzer<traceprism::plugins::comm::CommAnalyzer>(
    "comm", "Collective communication: exposed time and compute/communication overlap.",
    kCommOptions));
TRACEPRISM_PLUGIN("comm", "1.0.0");
