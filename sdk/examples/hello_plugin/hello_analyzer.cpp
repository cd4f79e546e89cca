#include "hello_analyzer.hpp"

#include <string>

namespace hello {

HelloAnalyzer::HelloAnalyzer(traceprism::Context& ctx)
    : greeting_(ctx.option("Greeting", "Hello")) {}

traceprism::Status HelloAnalyzer::run(traceprism::Context& ctx) {
  const auto kernels = ctx.rows(traceprism::Kind::kKernel);
  const auto n = static_cast<double>(kernels.size());
  ctx.record("hello.kernel_count", n);

  const std::string count = std::to_string(kernels.size());
  auto finding = ctx.report(traceprism::Tier::kSystem, "hello",
                            greeting_ + " from an out-of-tree plugin: " + count + " kernels seen");
  finding.key("hello")
      .severity(traceprism::Severity::kInfo)
      .insight("The trace holds " + count + " GPU kernels.")
      .action("Nothing to do: this finding shows that the plugin was loaded and ran.")
      .metric("kernels", n);
  if (!kernels.empty()) finding.evidence(kernels[0]);  // the first kernel, as an example
  finding.emit();
  return traceprism::Status::kOk;
}

}  // namespace hello
