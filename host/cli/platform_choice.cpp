#include "cli/platform_choice.hpp"

#include <iostream>

#include "platform/platform_file.hpp"

namespace traceprism::cli {

void add_platform_options(CLI::App& command, PlatformOptions& options) {
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

}  // namespace traceprism::cli
