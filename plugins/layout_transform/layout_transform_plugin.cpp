// The layout_transform plugin: one analyzer, layout-transform.
#include "layout_transform_analyzer.hpp"

TRACEPRISM_ANALYZERS(
    traceprism::analyzer<traceprism::plugins::layout_transform::LayoutTransformAnalyzer>(
        "layout-transform",
        "Kernels that only transpose tensor layouts (NCHW <-> NHWC, batched transposes): their "
        "time, the ops that launch them, and the memory-format change that removes them.",
        traceprism::plugins::layout_transform::kLayoutOptions));
TRACEPRISM_PLUGIN("layout_transform", "1.0.0");
