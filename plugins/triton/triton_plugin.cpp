// The "triton" plugin: the op model of torch.compile's Inductor Triton kernels (perf-model
// spec §9.7), claimed by name prefix.
// Its analyzer, triton-efficiency, is the compute-tier analysis of these categories
// (plugins/common).
#include <traceprism/sdk.hpp>

#include "../common/compute_analyzer.hpp"
#include "triton_models.hpp"

namespace {

using namespace traceprism::plugins::triton;
using traceprism::op_model;

TRACEPRISM_OP_MODELS(op_model<&model_triton_kernel>(
    "triton-inductor-kernel", "Inductor Triton kernels (triton_poi_/triton_red_/triton_per_)",
    kTritonKernelNames));

}  // namespace

// triton-efficiency: the compute-tier analysis of the triton category (the reference's
// triton-analyzer, triton_analysis.py, which computes no impact: findings only with
// QuantifyImpact). Page: docs/analyzers/triton/triton-efficiency.md.
TRACEPRISM_ANALYZERS(traceprism::analyzer<traceprism::plugins::compute::FamilyAnalyzer<
                         traceprism::plugins::compute::Family::kTriton, false>>(
    "triton-efficiency",
    "Roofline efficiency of Triton kernels; impact and findings only with QuantifyImpact.",
    traceprism::plugins::compute::kTritonOptions,
    traceprism::plugins::compute::kComputeDependencies));

TRACEPRISM_PLUGIN_WITH_OP_MODELS("triton", "1.0.0");
