#include "norm_analyzer.hpp"

namespace traceprism::plugins::norm {

namespace {

bool handles(compute::Family family) {
  return family == compute::Family::kNorm;
}

}  // namespace

traceprism::Status NormEfficiency::run(traceprism::Context& ctx) {
  return compute::run_compute_analyzer(ctx, settings_, &handles);
}

}  // namespace traceprism::plugins::norm
