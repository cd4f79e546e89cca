#pragma once

#include <CLI/CLI.hpp>

#include <stdexcept>
#include <string>

#include "index/event_index.hpp"
#include "platform/platform_info.hpp"

namespace traceprism::cli {

struct UnknownPlatform : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct PlatformOptions {
  std::string name = "auto";
  std::string file;
};

// --platform and --platform-file, shared by analyze and perf-report.
void add_platform_options(CLI::App& command, PlatformOptions& options);

// --platform-file, else --platform NAME, else (auto) the bundled platform matching the trace's
// first device name (a warning when none does: roofline numbers are then unknown). Throws
// platform::PlatformError (a bad file) or UnknownPlatform (an unknown name).
platform::PlatformInfo choose_platform(const PlatformOptions& options,
                                       const index::EventIndex& index);

}  // namespace traceprism::cli
