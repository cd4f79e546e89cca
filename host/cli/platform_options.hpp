#pragma once

#include <CLI/CLI.hpp>

#include "pipeline/platform_choice.hpp"

namespace traceprism::cli {

// --platform and --platform-file, shared by analyze and perf-report.
void add_platform_options(CLI::App& command, pipeline::PlatformOptions& options);

}  // namespace traceprism::cli
