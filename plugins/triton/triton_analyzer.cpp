#include "triton_analyzer.hpp"

namespace traceprism::plugins::triton {

namespace {

bool handles(compute::Family family) {
  return family == compute::Family::kTriton;
}

}  // namespace

traceprism::Status TritonEfficiency::run(traceprism::Context& ctx) {
  return compute::run_compute_analyzer(ctx, settings_, &handles);
}

}  // namespace traceprism::plugins::triton
