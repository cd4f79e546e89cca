// The reduce plugin: the op model of the reference's aten_reduce class (category reduce).
#include <traceprism/sdk.hpp>

#include "reduce_models.hpp"

TRACEPRISM_OP_MODELS(traceprism::op_model<&traceprism::plugins::reduce::model_reduce>(
    "reduce-aten", "aten reductions and scans (sum, mean, max, cumsum, ...)",
    traceprism::plugins::reduce::kReduceOpNames));

TRACEPRISM_OP_MODEL_PLUGIN("reduce", "1.0.0");
