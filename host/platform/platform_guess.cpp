#include "platform/platform_guess.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

namespace traceprism::platform {

namespace {

bool is_alpha(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) != 0;
}
bool is_digit(char c) {
  return std::isdigit(static_cast<unsigned char>(c)) != 0;
}

// The architecture one kernel name states, or empty: "gfx942" / "gfx90a" anywhere, Tensile's
// "ISA942" (hipBLASLt), or "sm90" / "sm_90" / "sm100" as a word start (CUTLASS, cuBLAS).
std::string architecture_in(std::string_view name) {
  for (std::size_t i = 0; i + 5 < name.size(); ++i) {
    const std::string_view rest = name.substr(i);
    const bool word_start = i == 0 || !is_alpha(name[i - 1]);
    if (rest.starts_with("gfx9") || rest.starts_with("ISA9")) {
      const std::string_view id = rest.substr(3, 3);
      if (is_digit(id[1]) && (is_digit(id[2]) || id[2] == 'a')) return "gfx" + std::string(id);
    }
    if (word_start && rest.starts_with("sm")) {
      std::size_t d = rest[2] == '_' ? 3 : 2;
      const std::size_t first = d;
      while (d < rest.size() && is_digit(rest[d])) ++d;
      const bool digits_then_word_end =
          d - first >= 2 && d - first <= 3 && (d == rest.size() || !is_digit(rest[d]));
      if (digits_then_word_end) return "sm_" + std::string(rest.substr(first, d - first));
    }
  }
  return {};
}

// A platform file's architecture fits the evidence: equal, or the AMD family prefix the device
// properties give ("gfx94" for gfx942).
bool fits(const PlatformSpec& p, const std::string& architecture) {
  return !p.architecture.empty() && !architecture.empty() &&
         std::string_view(p.architecture).starts_with(architecture);
}

double device_gib(const index::DeviceInfo& device) {
  return static_cast<double>(device.total_global_mem) / (1024.0 * 1024.0 * 1024.0);
}

// Drops the candidates whose file states another multiprocessor count than the device's (an
// MI300A is gfx942 too, with 228 compute units: no MI300X file should stand in for it).
void narrow_by_multiprocessors(std::vector<const PlatformSpec*>& candidates, int count) {
  std::erase_if(candidates, [count](const PlatformSpec* p) {
    return p->multiprocessors > 0 && p->multiprocessors != count;
  });
}

// The candidate whose memory_gb is nearest the device's, when one is nearer than the others.
const PlatformSpec* nearest_memory(const std::vector<const PlatformSpec*>& candidates, double gib) {
  const PlatformSpec* best = nullptr;
  double best_gap = 0;
  bool tie = false;
  for (const PlatformSpec* p : candidates) {
    if (!p->memory_gb) continue;
    const double gap = std::fabs(*p->memory_gb - gib);
    if (!best || gap < best_gap) {
      best = p, best_gap = gap, tie = false;
    } else if (gap == best_gap) {
      tie = true;
    }
  }
  return tie ? nullptr : best;
}

std::string device_evidence(const std::string& architecture, const index::DeviceInfo& d) {
  const bool amd = architecture.starts_with("gfx");
  std::string out = amd ? architecture + "x" : architecture;
  if (d.num_sms > 0)
    out += ", " + std::to_string(d.num_sms) + (amd ? " compute units" : " multiprocessors");
  if (d.total_global_mem > 0)
    out += ", " + std::to_string(static_cast<long long>(std::lround(device_gib(d)))) + " GiB";
  return out;
}

}  // namespace

std::string device_architecture(const index::DeviceInfo& device) {
  if (device.compute_major <= 0) return {};
  if (device.warp_size == 64)  // AMD reports gfx9<minor><stepping> as 9.<minor>
    return "gfx" + std::to_string(device.compute_major) + std::to_string(device.compute_minor);
  return "sm_" + std::to_string(device.compute_major * 10 + device.compute_minor);
}

std::string kernel_architecture(const std::vector<std::string_view>& kernel_names) {
  std::map<std::string, std::size_t> votes;
  for (std::string_view name : kernel_names)
    if (std::string a = architecture_in(name); !a.empty()) ++votes[a];
  std::string best;
  std::size_t most = 0;
  for (const auto& [architecture, n] : votes)
    if (n > most) best = architecture, most = n;
  return best;
}

PlatformGuess guess_platform(const std::vector<PlatformSpec>& platforms,
                             const index::DeviceInfo* device,
                             const std::vector<std::string_view>& kernel_names) {
  PlatformGuess guess;
  std::string architecture = device ? device_architecture(*device) : std::string();
  const bool from_device = !architecture.empty();
  if (from_device)
    guess.evidence = "device properties: " + device_evidence(architecture, *device);
  else if (architecture = kernel_architecture(kernel_names); !architecture.empty())
    guess.evidence = "kernel names: " + architecture;
  for (const PlatformSpec& p : platforms)
    if (fits(p, architecture)) guess.candidates.push_back(&p);
  if (from_device && device->num_sms > 0)
    narrow_by_multiprocessors(guess.candidates, device->num_sms);
  if (guess.candidates.size() == 1)
    guess.platform = guess.candidates.front();
  else if (from_device && device->total_global_mem > 0)
    guess.platform = nearest_memory(guess.candidates, device_gib(*device));
  return guess;
}

}  // namespace traceprism::platform
