// A plugin that needs a newer host: built with traceprism_add_plugin(... ABI_MINOR <host + 1>),
// so sdk.hpp writes abi_minor = TRACEPRISM_ABI_MINOR + 1 into its plugin table.
#include <traceprism/sdk.hpp>

static_assert(TRACEPRISM_PLUGIN_ABI_MINOR == TRACEPRISM_ABI_MINOR + 1,
              "tests/abi/CMakeLists.txt builds this plugin with ABI_MINOR = SDK minor + 1");

namespace {

class NewerMinor : public traceprism::Analyzer {
 public:
  traceprism::Status run(traceprism::Context&) override { return traceprism::Status::kOk; }
};

TRACEPRISM_ANALYZERS(traceprism::analyzer<NewerMinor>("newer-minor", "Needs ABI 1.(n+1)."));

}  // namespace

TRACEPRISM_PLUGIN("newer_minor", "1.0.0");
