// The generic plugin: one analyzer, generic-ops.
#include "generic_ops_analyzer.hpp"

TRACEPRISM_ANALYZERS(traceprism::analyzer<generic::GenericOps>(
    "generic-ops",
    "Roofline efficiency and impact of ops in categories without a dedicated analyzer (other, "
    "moe_aux, ...).",
    traceprism::compute::kComputeOptions, traceprism::compute::kComputeDependencies));
TRACEPRISM_PLUGIN("generic", "1.0.0");
