#include "cli/platform_options.hpp"

namespace traceprism::cli {

void add_platform_options(CLI::App& command, pipeline::PlatformOptions& options) {
  command
      .add_option("--platform", options.name,
                  "GPU the roofline numbers come from: a platform name or alias (see\n"
                  "'traceprism platforms'), or auto (from the trace's deviceProperties)")
      ->capture_default_str();
  command
      .add_option("--platform-file", options.file,
                  "Platform JSON to use instead (docs/platforms.md), or the reference's arch\n"
                  "JSON (name, mem_bw_gbps, max_achievable_tflops)")
      ->check(CLI::ExistingFile);
}

void add_reference_platform_options(CLI::App& command, pipeline::PlatformOptions& options) {
  command
      .add_option("--reference-platform", options.name,
                  "As --platform, for REFERENCE (trace 2); auto reads its own deviceProperties")
      ->capture_default_str();
  command
      .add_option("--reference-platform-file", options.file,
                  "As --platform-file, for REFERENCE (trace 2)")
      ->check(CLI::ExistingFile);
}

}  // namespace traceprism::cli
