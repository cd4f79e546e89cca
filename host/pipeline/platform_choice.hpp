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
// first device name, else the one its device properties or kernel names point to
// (platform/platform_guess.hpp), with a warning; else none (a warning: roofline numbers are then
// unknown). Throws
// platform::PlatformError (a bad file) or UnknownPlatform (an unknown name).
platform::PlatformInfo choose_platform(const PlatformOptions& options,
                                       const index::EventIndex& index);

}  // namespace traceprism::pipeline
