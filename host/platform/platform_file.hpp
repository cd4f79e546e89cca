#pragma once

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "platform/platform_info.hpp"

namespace traceprism::platform {

// A platform file that cannot be used; what() is one sentence naming the file and the field.
class PlatformError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The GPU's interconnect peaks (multi-rank.md §8, docs/platforms.md `interconnect`): per GPU,
// per direction, GB/s (10^9 B/s), the published bidirectional figure halved. What a file leaves
// out is unknown, never guessed.
struct ScaleUpLink {
  std::string kind;                          // "NVLink 4", "Infinity Fabric", ...
  std::optional<double> gbps_per_direction;  // absent: not sourced (MI250X per GCD)
  std::optional<int> domain_gpus;            // GPUs one scale-up domain joins (HGX board: 8)
};

struct PcieLink {
  int gen = 0;                    // PCIe generation of the x16 slot
  double gbps_per_direction = 0;  // data rate after line encoding (Gen5 x16: 63)
};

struct Interconnect {
  std::optional<ScaleUpLink> scale_up;  // absent (or null in the file): the GPU has none (L40S)
  std::optional<PcieLink> pcie;         // absent: unknown
  // The NIC bandwidth per GPU: a property of the cluster, so null (unknown) in the bundled files.
  std::optional<double> scale_out_gbps_per_direction;
};

// One GPU as described by a platform file (docs/platforms.md).
struct PlatformSpec {
  std::string origin;  // the file it came from ("platforms/h100_sxm.json" when bundled)
  std::string name;
  std::vector<std::string> aliases;
  std::string vendor;
  std::vector<std::string> match;  // case-insensitive substrings, or globs when they hold * or ?
  // How a trace without a matching device name is recognized (platform_guess.hpp): the ISA
  // ("gfx942", "sm_90") and the multiprocessors (SMs, CUs) one device reports; 0 unknown.
  std::string architecture;
  int multiprocessors = 0;
  std::optional<double> memory_gb, hbm_bandwidth_gbps, achievable_hbm_bandwidth_gbps;
  std::optional<double> host_link_gbps;  // host <-> device link, GB/s in one direction
  std::map<std::string, double> peak_tflops, achievable_tflops;  // spec -> TFLOPS (TOPS for int8)
  std::optional<Interconnect> interconnect;  // absent: the file gives no interconnect peaks
  std::vector<std::pair<std::string, std::string>> sources;  // what, url

  // The numbers analyzers see, keyed as PlatformInfo documents.
  PlatformInfo info(const std::string& device_name = {}) const;
};

// The compute specs a platform may give ("matrix_bf16", "vector_fp32", ...).
const std::vector<std::string>& known_specs();

// Parses platform JSON: our format (schema_version 1) or the reference's arch JSON (detected by
// "max_achievable_tflops" / "mem_bw_gbps"; its values count as achievable). `origin` names the
// file in errors. Throws PlatformError.
PlatformSpec parse_platform(std::string_view text, const std::string& origin);

// Reads and parses a file. Throws PlatformError.
PlatformSpec load_platform_file(const std::string& path);

// The platform files compiled into the binary (platforms/*.json), in file-name order.
const std::vector<PlatformSpec>& bundled_platforms();

// The bundled platform with this name or alias (case-insensitive), or nullptr.
const PlatformSpec* find_platform(std::string_view name);

// Whether one of the platform's match patterns matches the device name; the length of the
// longest matching pattern, or 0.
std::size_t match_length(const PlatformSpec& p, std::string_view device_name);

// The bundled platform whose pattern matches the device name (the longest pattern wins), or
// nullptr.
const PlatformSpec* match_device(std::string_view device_name);

// "A100-SXM-80GB, B200, ..." : the bundled names, for error messages.
std::string known_platform_names();

}  // namespace traceprism::platform
