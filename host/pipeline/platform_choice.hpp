#pragma once

#include <stdexcept>
#include <string>

#include "index/event_index.hpp"
#include "platform/platform_info.hpp"

namespace traceprism::pipeline {

struct UnknownPlatform : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// --platform NAME|auto and --platform-file FILE.
struct PlatformOptions {
  std::string name = "auto";
  std::string file;
};

// --platform-file, else --platform NAME, else (auto) the bundled platform matching the trace's
// first device name (a warning when none does: roofline numbers are then unknown). Throws
// platform::PlatformError (a bad file) or UnknownPlatform (an unknown name).
platform::PlatformInfo choose_platform(const PlatformOptions& options,
                                       const index::EventIndex& index);

}  // namespace traceprism::pipeline
