#include "generic_ops_analyzer.hpp"

namespace generic {

namespace compute = traceprism::compute;

namespace {

// Every category the skill map sends to the generic analyzer (spec §2.3).
bool is_generic(compute::Family family) {
  return family == compute::Family::kGeneric;
}

}  // namespace

traceprism::Status GenericOps::run(traceprism::Context& ctx) {
  return compute::run_compute_analyzer(ctx, settings_, &is_generic);
}

}  // namespace generic
