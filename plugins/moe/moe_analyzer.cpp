#include "moe_analyzer.hpp"

namespace traceprism::plugins::moe {

namespace {

bool handles(compute::Family family) {
  return family == compute::Family::kMoe;
}

}  // namespace

traceprism::Status MoeEfficiency::run(traceprism::Context& ctx) {
  return compute::run_compute_analyzer(ctx, settings_, &handles);
}

}  // namespace traceprism::plugins::moe
