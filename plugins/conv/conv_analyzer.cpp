#include "conv_analyzer.hpp"

namespace traceprism::plugins::conv {

namespace {

bool handles(compute::Family family) {
  return family == compute::Family::kConv;
}

}  // namespace

traceprism::Status ConvEfficiency::run(traceprism::Context& ctx) {
  return compute::run_compute_analyzer(ctx, settings_, &handles);
}

}  // namespace traceprism::plugins::conv
