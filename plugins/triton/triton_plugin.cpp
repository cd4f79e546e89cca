// The "triton" plugin: the op model of torch.compile's Inductor Triton kernels (perf-model
// spec §9.7), claimed by name prefix.
#include <traceprism/sdk.hpp>

#include "triton_models.hpp"

namespace {

using namespace traceprism::plugins::triton;
using traceprism::op_model;

TRACEPRISM_OP_MODELS(op_model<&model_triton_kernel>(
    "triton-inductor-kernel", "Inductor Triton kernels (triton_poi_/triton_red_/triton_per_)",
    kTritonKernelNames));

}  // namespace

TRACEPRISM_OP_MODEL_PLUGIN("triton", "1.0.0");
