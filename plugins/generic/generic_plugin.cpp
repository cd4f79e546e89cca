// The generic plugin: one analyzer, generic-ops.
#include "../common/compute_analyzer.hpp"

// generic-ops: the compute-tier analysis of every op category that has no dedicated analyzer
// (the reference's generic-op-analyzer, other_analysis.py). Page:
// docs/analyzers/generic/generic-ops.md.
TRACEPRISM_ANALYZERS(traceprism::analyzer<traceprism::plugins::compute::FamilyAnalyzer<
                         traceprism::plugins::compute::Family::kGeneric>>(
    "generic-ops",
    "Roofline efficiency and impact of ops in categories without a dedicated analyzer (other, "
    "moe_aux, ...).",
    traceprism::plugins::compute::kComputeOptions,
    traceprism::plugins::compute::kComputeDependencies));
TRACEPRISM_PLUGIN("generic", "1.0.0");
