#include "reduce_analyzer.hpp"

namespace traceprism::plugins::reduce {

namespace {

bool handles(compute::Family family) {
  return family == compute::Family::kReduce;
}

}  // namespace

traceprism::Status ReduceEfficiency::run(traceprism::Context& ctx) {
  return compute::run_compute_analyzer(ctx, settings_, &handles);
}

}  // namespace traceprism::plugins::reduce
