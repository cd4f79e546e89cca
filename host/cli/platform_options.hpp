#pragma once

#include <CLI/CLI.hpp>

#include "pipeline/platform_choice.hpp"

namespace traceprism::cli {

// --platform and --platform-file, shared by analyze, compare and perf-report.
void add_platform_options(CLI::App& command, pipeline::PlatformOptions& options);

// compare's trace 2: --reference-platform and --reference-platform-file.
void add_reference_platform_options(CLI::App& command, pipeline::PlatformOptions& options);

}  // namespace traceprism::cli
