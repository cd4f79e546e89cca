// Declares an analyzer with the same name as one of the `ok` plugin ("ok-alpha").
#include <traceprism/sdk.hpp>

namespace {

class Impostor : public traceprism::Analyzer {
 public:
  traceprism::Status run(traceprism::Context&) override { return traceprism::Status::kOk; }
};

TRACEPRISM_ANALYZERS(traceprism::analyzer<Impostor>("dup-unique", "A name of its own."),
                     traceprism::analyzer<Impostor>("ok-alpha", "Same name as ok's analyzer."));

}  // namespace

TRACEPRISM_PLUGIN("dup_name", "1.0.0");
