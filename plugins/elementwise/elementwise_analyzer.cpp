#include "elementwise_analyzer.hpp"

namespace traceprism::plugins::elementwise {

namespace {

bool handles(compute::Family family) {
  return family == compute::Family::kElementwise;
}

}  // namespace

traceprism::Status ElementwiseEfficiency::run(traceprism::Context& ctx) {
  return compute::run_compute_analyzer(ctx, settings_, &handles);
}

}  // namespace traceprism::plugins::elementwise
