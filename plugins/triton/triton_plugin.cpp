// The "triton" plugin: the op model of torch.compile's Inductor Triton kernels (perf-model
// spec §9.7), claimed by name prefix.
// Its analyzer, triton-efficiency, is the compute-tier analysis of these categories
// (plugins/common).
#include <traceprism/sdk.hpp>

#include "triton_analyzer.hpp"
#include "triton_models.hpp"

namespace {

using namespace traceprism::plugins::triton;
using traceprism::op_model;

TRACEPRISM_OP_MODELS(op_model<&model_triton_kernel>(
    "triton-inductor-kernel", "Inductor Triton kernels (triton_poi_/triton_red_/triton_per_)",
    kTritonKernelNames));

}  // namespace

TRACEPRISM_ANALYZERS(traceprism::analyzer<traceprism::plugins::triton::TritonEfficiency>(
    "triton-efficiency",
    "Roofline efficiency of Triton kernels; impact and findings only with QuantifyImpact.",
    traceprism::compute::kTritonOptions, traceprism::compute::kComputeDependencies));

TRACEPRISM_PLUGIN_WITH_OP_MODELS("triton", "1.0.0");
