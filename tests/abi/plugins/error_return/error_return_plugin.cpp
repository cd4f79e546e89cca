// An analyzer that fails the documented way: ctx.fail(message), then Status::kError.
#include <traceprism/sdk.hpp>

namespace {

class ErrorReturn : public traceprism::Analyzer {
 public:
  traceprism::Status run(traceprism::Context& ctx) override {
    return ctx.fail("could not read the trace's streams");
  }
};

TRACEPRISM_ANALYZERS(traceprism::analyzer<ErrorReturn>("error-return", "Always fails."));

}  // namespace

TRACEPRISM_PLUGIN("error_return", "1.0.0");
