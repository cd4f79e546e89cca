// The "fusion" plugin: one analyzer, kernel-fusion (standalone kernel fusion opportunities).
#include <traceprism/sdk.hpp>

#include "kernel_fusion_analyzer.hpp"

namespace {

constexpr traceprism_option_v1 kFusionOptions[] = {
    {"MaxKernelCount", "15",
     "Candidates with more kernels than this are skipped (too complex to fuse reliably)."},
    {"MinImpactPercent", "2",
     "Candidates below this % of E2E kernel time, and estimates whose best case saves less, "
     "are dropped."},
    {"OverlapEfficiency", "0.85",
     "How much of the fused kernel's memory and compute time overlap (0 none, 1 perfect)."},
    {"RejectContainers", "true",
     "Leave out of the findings estimates for containers (layers, models, entry points) and "
     "for loops of one op (the spec's proposed rule for the reference's LLM judgement)."},
    {"RejectPythonFrames", "false",
     "Also leave out every estimate whose candidate is a Python frame rather than a module."},
};

}  // namespace

TRACEPRISM_ANALYZERS(traceprism::analyzer<traceprism::plugins::fusion::KernelFusionAnalyzer>(
    "kernel-fusion",
    "Kernel fusion opportunities: unfused norms, RoPE, GEMM epilogues and elementwise chains, "
    "with roofline savings estimates.",
    kFusionOptions));
TRACEPRISM_PLUGIN("fusion", "1.0.0");
