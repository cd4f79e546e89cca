#include "pipeline/platform_choice.hpp"

#include <iostream>

#include "platform/platform_file.hpp"

namespace traceprism::pipeline {

platform::PlatformInfo choose_platform(const PlatformOptions& options,
                                       const index::EventIndex& index) {
  std::string device;
  if (!index.metadata().devices.empty()) device = index.metadata().devices.front().name;
  if (!options.file.empty()) return platform::load_platform_file(options.file).info(device);
  if (options.name != "auto") {
    const platform::PlatformSpec* p = platform::find_platform(options.name);
    if (!p)
      throw UnknownPlatform("unknown --platform '" + options.name +
                            "'; known platforms: " + platform::known_platform_names() +
                            " (or auto, or --platform-file FILE).");
    return p->info(device);
  }
  if (const platform::PlatformSpec* p = platform::match_device(device)) return p->info(device);
  platform::PlatformInfo none;
  none.device_name = device;
  std::cerr << "warning: no platform file matches the device "
            << (device.empty() ? std::string("(the trace names none)") : "'" + device + "'")
            << "; roofline numbers are unknown (use --platform NAME or --platform-file FILE).\n";
  return none;
}

}  // namespace traceprism::pipeline
