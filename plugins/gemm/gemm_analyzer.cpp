#include "gemm_analyzer.hpp"

namespace traceprism::plugins::gemm {

namespace {

bool handles(compute::Family family) {
  return family == compute::Family::kGemm;
}

}  // namespace

traceprism::Status GemmEfficiency::run(traceprism::Context& ctx) {
  return compute::run_compute_analyzer(ctx, settings_, &handles);
}

}  // namespace traceprism::plugins::gemm
