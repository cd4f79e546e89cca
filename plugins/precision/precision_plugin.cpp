// The precision plugin: one analyzer, matrix-precision.
#include "precision_analyzer.hpp"

TRACEPRISM_ANALYZERS(traceprism::analyzer<traceprism::plugins::precision::MatrixPrecisionAnalyzer>(
    "matrix-precision",
    "GEMM and convolution time in FP32 or TF32 on a GPU with faster BF16/FP16 tensor cores: "
    "the kernels, their share, and autocast (or TF32) as the fix.",
    traceprism::plugins::precision::kPrecisionOptions));
TRACEPRISM_PLUGIN("precision", "1.0.0");
