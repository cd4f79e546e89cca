// Which bundled platform a trace ran on when its deviceProperties name matches no platform file
// (serving traces often write an empty name): the architecture the device properties give
// (compute capability, warp size), narrowed by the multiprocessor count and the memory size, or
// else the architecture kernel names carry (CUTLASS "sm90_", hipBLASLt "ISA942", "gfx942").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "index/trace_metadata.hpp"
#include "platform/platform_file.hpp"

namespace traceprism::platform {

struct PlatformGuess {
  const PlatformSpec* platform = nullptr;       // null: no evidence, or several candidates
  std::vector<const PlatformSpec*> candidates;  // the platforms the evidence fits
  std::string evidence;                         // "gfx94x, 304 compute units, 192 GiB", ...
};

// "gfx94" (AMD: a prefix of gfx940..gfx942), "sm_90" (NVIDIA); empty when the properties give
// no compute capability.
std::string device_architecture(const index::DeviceInfo& device);

// The architecture most kernel names mention ("gfx942", "sm_90"); empty when none does.
std::string kernel_architecture(const std::vector<std::string_view>& kernel_names);

// Among `platforms`, those whose `architecture` fits the device's (or, without device
// properties, the kernels'), then the ones with the device's multiprocessor count, then the one
// whose memory_gb is nearest the device's memory. `device` may be null.
PlatformGuess guess_platform(const std::vector<PlatformSpec>& platforms,
                             const index::DeviceInfo* device,
                             const std::vector<std::string_view>& kernel_names);

}  // namespace traceprism::platform
