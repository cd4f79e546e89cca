// The plugin module: the list of its analyzers and the exported query function.
#include <traceprism/sdk.hpp>

#include "hello_analyzer.hpp"

namespace {

constexpr traceprism_option_v1 kHelloOptions[] = {
    {"Greeting", "Hello", "First word of the finding's title."},
};

TRACEPRISM_ANALYZERS(traceprism::analyzer<hello::HelloAnalyzer>(
    "hello", "Says hello with the number of GPU kernels (an SDK example).", kHelloOptions));

}  // namespace

TRACEPRISM_PLUGIN("hello", "1.0.0");
