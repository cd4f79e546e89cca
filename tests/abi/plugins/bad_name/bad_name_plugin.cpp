// An analyzer whose name is not kebab-case.
#include <traceprism/sdk.hpp>

namespace {

class NotKebab : public traceprism::Analyzer {
 public:
  traceprism::Status run(traceprism::Context&) override { return traceprism::Status::kOk; }
};

TRACEPRISM_ANALYZERS(traceprism::analyzer<NotKebab>("Not_Kebab", "Badly named."));

}  // namespace

TRACEPRISM_PLUGIN("bad_name", "1.0.0");
