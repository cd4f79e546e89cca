// The "hello" analyzer: counts the GPU kernels of the trace and says hello.
#pragma once

#include <traceprism/sdk.hpp>

namespace hello {

class HelloAnalyzer : public traceprism::Analyzer {
 public:
  // Options are read in the constructor: --config key "hello.Greeting".
  explicit HelloAnalyzer(traceprism::Context& ctx);
  traceprism::Status run(traceprism::Context& ctx) override;

 private:
  std::string greeting_;
};

}  // namespace hello
