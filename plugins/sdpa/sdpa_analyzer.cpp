#include "sdpa_analyzer.hpp"

namespace traceprism::plugins::sdpa {

namespace {

bool handles(compute::Family family) {
  return family == compute::Family::kSdpa;
}

}  // namespace

traceprism::Status SdpaEfficiency::run(traceprism::Context& ctx) {
  return compute::run_compute_analyzer(ctx, settings_, &handles);
}

}  // namespace traceprism::plugins::sdpa
