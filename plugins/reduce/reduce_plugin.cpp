// The reduce plugin: the op model of the reference's aten_reduce class (category reduce).
// Its analyzer, reduce-efficiency, is the compute-tier analysis of these categories
// (plugins/common).
#include <traceprism/sdk.hpp>

#include "../common/compute_analyzer.hpp"
#include "reduce_models.hpp"

TRACEPRISM_OP_MODELS(traceprism::op_model<&traceprism::plugins::reduce::model_reduce>(
    "reduce-aten", "aten reductions and scans (sum, mean, max, cumsum, ...)",
    traceprism::plugins::reduce::kReduceOpNames));

// reduce-efficiency: the compute-tier analysis of the reduce category (the reference's
// reduce-analyzer, reduce_analysis.py). Page: docs/analyzers/reduce/reduce-efficiency.md.
TRACEPRISM_ANALYZERS(traceprism::analyzer<traceprism::plugins::compute::FamilyAnalyzer<
                         traceprism::plugins::compute::Family::kReduce>>(
    "reduce-efficiency", "Roofline efficiency and impact of reductions (softmax, sum, mean, ...).",
    traceprism::plugins::compute::kComputeOptions,
    traceprism::plugins::compute::kComputeDependencies));

TRACEPRISM_PLUGIN_WITH_OP_MODELS("reduce", "1.0.0");
