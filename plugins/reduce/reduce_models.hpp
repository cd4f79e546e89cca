// Op model of the reduce family (perf-model spec §8.4): the reference's aten_reduce class
// (category "reduce", sheet Reduce) for sum, mean, max, min, norm, linalg_norm, std, var,
// logsumexp, cumsum, cumprod, amin and amax.
#pragma once

#include <traceprism/op_model.hpp>

namespace traceprism::plugins::reduce {

// One FLOP per input element; read the input, write the output. The backward (autograd linking,
// the Reduce_bwd sheet) broadcasts grad_out back: the same FLOPs and bytes.
void model_reduce(const OpCall& call, OpModelResult& r);

// NULL-terminated op-name table of model_reduce.
extern const char* const kReduceOpNames[];

}  // namespace traceprism::plugins::reduce
