// One analyzer throws from run(); the sdk.hpp wrapper must turn that into a failed analyzer
// ("unhandled exception: boom") while the plugin's other analyzer reports normally.
#include <traceprism/sdk.hpp>

#include <stdexcept>

namespace {

class ThrowsBoom : public traceprism::Analyzer {
 public:
  traceprism::Status run(traceprism::Context&) override { throw std::runtime_error("boom"); }
};

class ThrowsFine : public traceprism::Analyzer {
 public:
  traceprism::Status run(traceprism::Context& ctx) override {
    ctx.report(traceprism::Tier::kSystem, "abi-test", "throws-fine ran next to a throwing analyzer")
        .key("fine")
        .severity(traceprism::Severity::kInfo)
        .emit();
    return traceprism::Status::kOk;
  }
};

TRACEPRISM_ANALYZERS(traceprism::analyzer<ThrowsBoom>("throws-boom", "Throws from run()."),
                     traceprism::analyzer<ThrowsFine>("throws-fine", "Emits one finding."));

}  // namespace

TRACEPRISM_PLUGIN("throws", "1.0.0");
