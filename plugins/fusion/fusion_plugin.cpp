// The "fusion" plugin: one analyzer, kernel-fusion (standalone kernel fusion opportunities).
#include <traceprism/sdk.hpp>

#include "kernel_fusion_analyzer.hpp"

TRACEPRISM_ANALYZERS(traceprism::analyzer<traceprism::plugins::fusion::KernelFusionAnalyzer>(
    "kernel-fusion",
    "Kernel fusion opportunities: unfused norms, RoPE, GEMM epilogues and elementwise chains, "
    "with roofline savings estimates.",
    traceprism::plugins::fusion::kFusionOptions));
TRACEPRISM_PLUGIN("fusion", "1.0.0");
