#include "pipeline/platform_choice.hpp"

#include <iostream>
#include <set>
#include <string_view>
#include <vector>

#include "platform/platform_file.hpp"
#include "platform/platform_guess.hpp"

namespace traceprism::pipeline {

namespace {

// Each distinct GPU kernel name once: what platform_guess reads when the device is unnamed.
std::vector<std::string_view> kernel_names(const index::EventIndex& index) {
  std::set<index::StringId> seen;
  std::vector<std::string_view> names;
  for (index::Row row : index.rows_of_kind(index::EventKind::kKernel))
    if (seen.insert(index.name_id(row)).second) names.push_back(index.name(row));
  return names;
}

std::string candidate_names(const std::vector<const platform::PlatformSpec*>& candidates) {
  std::string out;
  for (const platform::PlatformSpec* p : candidates) out += (out.empty() ? "" : " or ") + p->name;
  return out;
}

// The bundled platform the trace's device properties or kernel names point to, with a warning
// that says how it was chosen; else a platform without numbers and a warning naming the options.
platform::PlatformInfo guess_or_none(const index::EventIndex& index, const std::string& device) {
  const auto& devices = index.metadata().devices;
  const platform::PlatformGuess guess =
      platform::guess_platform(platform::bundled_platforms(),
                               devices.empty() ? nullptr : &devices.front(), kernel_names(index));
  const std::string unmatched = device.empty()
                                    ? std::string("the trace names no device")
                                    : "no platform file matches the device '" + device + "'";
  if (guess.platform) {
    std::cerr << "warning: " << unmatched << "; using " << guess.platform->name << " from its "
              << guess.evidence << " (--platform NAME or --platform-file FILE to choose).\n";
    return guess.platform->info(device);
  }
  std::cerr << "warning: " << unmatched;
  if (!guess.candidates.empty())
    std::cerr << "; its " << guess.evidence << " fit " << candidate_names(guess.candidates);
  else if (!guess.evidence.empty())
    std::cerr << "; no platform file fits its " << guess.evidence;
  std::cerr << "; roofline numbers are unknown (use --platform NAME or --platform-file FILE).\n";
  platform::PlatformInfo none;
  none.device_name = device;
  return none;
}

}  // namespace

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
  return guess_or_none(index, device);
}

}  // namespace traceprism::pipeline
