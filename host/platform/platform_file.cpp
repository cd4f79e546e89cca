#include "platform/platform_file.hpp"

#include <algorithm>
#include <boost/json.hpp>
#include <cmath>
#include <set>

#include "config/run_config.hpp"
#include "io/ascii_text.hpp"
#include "io/small_file.hpp"

namespace traceprism::platform {

namespace {

namespace json = boost::json;

struct BundledFile {
  const char* path;
  const char* text;
};

constexpr BundledFile kBundled[] = {
#include "bundled_platforms.inc"
};

using io::ascii_lower;

[[noreturn]] void fail(const std::string& origin, const std::string& rest) {
  throw PlatformError(origin + ": " + rest);
}

double positive(const json::value& v, const std::string& origin, const std::string& field) {
  if (!v.is_number()) fail(origin, field + " must be a positive number.");
  const double d = v.to_number<double>();
  if (!std::isfinite(d) || d <= 0) fail(origin, field + " must be a positive number.");
  return d;
}

std::string text(const json::value& v, const std::string& origin, const std::string& field) {
  if (!v.is_string() || v.get_string().empty())
    fail(origin, field + " must be a non-empty string.");
  return std::string(v.get_string());
}

std::vector<std::string> strings(const json::value& v, const std::string& origin,
                                 const std::string& field) {
  if (!v.is_array()) fail(origin, field + " must be a list of strings.");
  std::vector<std::string> out;
  for (const auto& item : v.get_array()) {
    if (!item.is_string() || item.get_string().empty())
      fail(origin, field + " must be a list of non-empty strings.");
    out.emplace_back(item.get_string());
  }
  return out;
}

std::map<std::string, double> spec_table(const json::value& v, const std::string& origin,
                                         const std::string& field) {
  if (!v.is_object()) fail(origin, field + " must be an object of spec: TFLOPS.");
  std::map<std::string, double> out;
  const auto& known = known_specs();
  for (const auto& [k, x] : v.get_object()) {
    std::string spec(k);
    if (std::find(known.begin(), known.end(), spec) == known.end()) {
      std::string list;
      for (const auto& s : known) list += (list.empty() ? "" : ", ") + s;
      fail(origin, field + "." + spec + " is not a known spec (known: " + list + ").");
    }
    out[spec] = positive(x, origin, field + "." + spec);
  }
  return out;
}

int positive_integer(const json::value& v, const std::string& origin, const std::string& field) {
  if (!v.is_number()) fail(origin, field + " must be a positive integer.");
  const double d = v.to_number<double>();
  if (!std::isfinite(d) || d < 1 || d > 1e6 || d != std::floor(d))
    fail(origin, field + " must be a positive integer.");
  return static_cast<int>(d);
}

// Keys starting with `_` are comments, as at the top level; any other unknown key is an error.
[[noreturn]] void unknown_key(const std::string& origin, const std::string& field,
                              const char* known) {
  fail(origin, "'" + field + "' is not a field of " + known + ".");
}

ScaleUpLink parse_scale_up(const json::object& o, const std::string& origin) {
  ScaleUpLink link;
  for (const auto& [k, v] : o) {
    const std::string key(k);
    const std::string field = "interconnect.scale_up." + key;
    if (key == "kind")
      link.kind = text(v, origin, field);
    else if (key == "gbps_per_direction")
      link.gbps_per_direction = positive(v, origin, field);
    else if (key == "domain_gpus")
      link.domain_gpus = positive_integer(v, origin, field);
    else if (!key.starts_with("_"))
      unknown_key(origin, field, "interconnect.scale_up (kind, gbps_per_direction, domain_gpus)");
  }
  if (link.kind.empty()) fail(origin, "interconnect.scale_up.kind is missing.");
  return link;
}

PcieLink parse_pcie(const json::object& o, const std::string& origin) {
  PcieLink link;
  bool has_gbps = false;
  for (const auto& [k, v] : o) {
    const std::string key(k);
    const std::string field = "interconnect.pcie." + key;
    if (key == "gen")
      link.gen = positive_integer(v, origin, field);
    else if (key == "gbps_per_direction")
      link.gbps_per_direction = positive(v, origin, field), has_gbps = true;
    else if (!key.starts_with("_"))
      unknown_key(origin, field, "interconnect.pcie (gen, gbps_per_direction)");
  }
  if (link.gen == 0) fail(origin, "interconnect.pcie.gen is missing.");
  if (!has_gbps) fail(origin, "interconnect.pcie.gbps_per_direction is missing.");
  return link;
}

Interconnect parse_interconnect(const json::value& v, const std::string& origin) {
  if (!v.is_object()) fail(origin, "interconnect must be an object (see docs/platforms.md).");
  Interconnect out;
  for (const auto& [k, x] : v.get_object()) {
    const std::string key(k);
    const std::string field = "interconnect." + key;
    if (key == "scale_up") {
      if (x.is_null()) continue;  // no scale-up link
      if (!x.is_object()) fail(origin, field + " must be an object or null.");
      out.scale_up = parse_scale_up(x.get_object(), origin);
    } else if (key == "pcie") {
      if (!x.is_object()) fail(origin, field + " must be an object.");
      out.pcie = parse_pcie(x.get_object(), origin);
    } else if (key == "scale_out_gbps_per_direction") {
      if (x.is_null()) continue;  // unknown: a property of the cluster
      if (!x.is_number() || !std::isfinite(x.to_number<double>()) || x.to_number<double>() <= 0)
        fail(origin, field + " must be a positive number or null.");
      out.scale_out_gbps_per_direction = x.to_number<double>();
    } else if (!key.starts_with("_")) {
      unknown_key(origin, field, "interconnect (scale_up, pcie, scale_out_gbps_per_direction)");
    }
  }
  return out;
}

bool holds_numbers(const Interconnect& i) {
  return (i.scale_up && (i.scale_up->gbps_per_direction || i.scale_up->domain_gpus)) || i.pcie ||
         i.scale_out_gbps_per_direction;
}

PlatformSpec parse_reference_arch(const json::object& o, const std::string& origin) {
  PlatformSpec p;
  p.origin = origin;
  for (const auto& [k, v] : o) {
    std::string key(k);
    if (key == "name")
      p.name = text(v, origin, key);
    else if (key == "mem_bw_gbps")
      p.achievable_hbm_bandwidth_gbps = positive(v, origin, key);
    else if (key == "memory_gb")
      p.memory_gb = positive(v, origin, key);
    else if (key == "max_achievable_tflops")
      p.achievable_tflops = spec_table(v, origin, key);
    else if (!key.starts_with("_"))
      fail(origin, "'" + key + "' is not a field of the reference arch JSON (name, mem_bw_gbps, " +
                       "memory_gb, max_achievable_tflops).");
  }
  if (p.name.empty()) fail(origin, "name is missing.");
  p.sources.emplace_back("every number (measured, reference arch JSON)", origin);
  return p;
}

PlatformSpec parse_ours(const json::object& o, const std::string& origin) {
  PlatformSpec p;
  p.origin = origin;
  const auto* version = o.if_contains("schema_version");
  if (!version) fail(origin, "schema_version is missing (this build reads schema_version 1).");
  if (!version->is_number() || version->to_number<double>() != 1)
    fail(origin, "schema_version must be 1 (the version this build reads).");
  for (const auto& [k, v] : o) {
    std::string key(k);
    if (key == "schema_version") continue;
    if (key == "name")
      p.name = text(v, origin, key);
    else if (key == "aliases")
      p.aliases = strings(v, origin, key);
    else if (key == "vendor")
      p.vendor = text(v, origin, key);
    else if (key == "match")
      p.match = strings(v, origin, key);
    else if (key == "architecture")
      p.architecture = text(v, origin, key);
    else if (key == "multiprocessors")
      p.multiprocessors = static_cast<int>(positive(v, origin, key));
    else if (key == "memory_gb")
      p.memory_gb = positive(v, origin, key);
    else if (key == "hbm_bandwidth_gbps")
      p.hbm_bandwidth_gbps = positive(v, origin, key);
    else if (key == "achievable_hbm_bandwidth_gbps")
      p.achievable_hbm_bandwidth_gbps = positive(v, origin, key);
    else if (key == "host_link_gbps")
      p.host_link_gbps = positive(v, origin, key);
    else if (key == "peak_tflops")
      p.peak_tflops = spec_table(v, origin, key);
    else if (key == "achievable_tflops")
      p.achievable_tflops = spec_table(v, origin, key);
    else if (key == "interconnect")
      p.interconnect = parse_interconnect(v, origin);
    else if (key == "sources") {
      if (!v.is_array()) fail(origin, "sources must be a list of {\"what\", \"url\"}.");
      for (const auto& s : v.get_array()) {
        const auto* so = s.if_object();
        const auto* what = so ? so->if_contains("what") : nullptr;
        const auto* url = so ? so->if_contains("url") : nullptr;
        if (!what || !url || !what->is_string() || !url->is_string() ||
            what->get_string().empty() || url->get_string().empty())
          fail(origin, "sources must be a list of {\"what\", \"url\"} with non-empty strings.");
        p.sources.emplace_back(std::string(what->get_string()), std::string(url->get_string()));
      }
    } else if (!key.starts_with("_"))
      fail(origin, "'" + key + "' is not a platform file field (see docs/platforms.md).");
  }
  if (p.name.empty()) fail(origin, "name is missing.");
  const bool has_numbers = p.memory_gb || p.hbm_bandwidth_gbps || p.achievable_hbm_bandwidth_gbps ||
                           p.host_link_gbps || !p.peak_tflops.empty() ||
                           !p.achievable_tflops.empty() ||
                           (p.interconnect && holds_numbers(*p.interconnect));
  if (has_numbers && p.sources.empty())
    fail(origin, "sources is missing; every number needs a source.");
  return p;
}

}  // namespace

const std::vector<std::string>& known_specs() {
  static const std::vector<std::string> kSpecs = {
      "matrix_bf16", "matrix_fp16", "matrix_tf32", "matrix_fp32", "matrix_fp64",
      "matrix_fp8",  "matrix_int8", "matrix_fp6",  "matrix_fp4",  "vector_fp32",
      "vector_fp64", "vector_bf16", "vector_fp16"};
  return kSpecs;
}

PlatformInfo PlatformSpec::info(const std::string& device_name) const {
  PlatformInfo info;
  info.name = name;
  info.device_name = device_name;
  for (const auto& [spec, v] : peak_tflops) info.numbers["peak_tflops." + spec] = v;
  for (const auto& [spec, v] : achievable_tflops) info.numbers["achievable_tflops." + spec] = v;
  if (hbm_bandwidth_gbps) info.numbers["hbm_bandwidth_gbps"] = *hbm_bandwidth_gbps;
  if (achievable_hbm_bandwidth_gbps)
    info.numbers["achievable_hbm_bandwidth_gbps"] = *achievable_hbm_bandwidth_gbps;
  if (memory_gb) info.numbers["memory_gb"] = *memory_gb;
  if (host_link_gbps) info.numbers["host_link_gbps"] = *host_link_gbps;
  return info;
}

PlatformSpec parse_platform(std::string_view text, const std::string& origin) {
  boost::system::error_code ec;
  json::value v = json::parse(text, ec);
  if (ec) fail(origin, "not valid JSON (" + ec.message() + ").");
  if (!v.is_object()) fail(origin, "must hold a JSON object.");
  const json::object& o = v.get_object();
  if (!o.contains("schema_version") &&
      (o.contains("max_achievable_tflops") || o.contains("mem_bw_gbps")))
    return parse_reference_arch(o, origin);
  return parse_ours(o, origin);
}

PlatformSpec load_platform_file(const std::string& path) {
  io::SmallFile file = io::read_small_file(path);
  if (file.status == io::SmallFile::Status::kCannotOpen)
    throw PlatformError(path + ": cannot read the platform file.");
  if (file.status == io::SmallFile::Status::kTooLarge)
    throw PlatformError(io::too_large_sentence(path, "a JSON platform file"));
  return parse_platform(file.text, path);
}

const std::vector<PlatformSpec>& bundled_platforms() {
  static const std::vector<PlatformSpec> kAll = [] {
    std::vector<PlatformSpec> out;
    for (const auto& f : kBundled) out.push_back(parse_platform(f.text, f.path));
    return out;
  }();
  return kAll;
}

const PlatformSpec* find_platform(std::string_view name) {
  const std::string wanted = ascii_lower(name);
  for (const auto& p : bundled_platforms()) {
    if (ascii_lower(p.name) == wanted) return &p;
    for (const auto& a : p.aliases)
      if (ascii_lower(a) == wanted) return &p;
  }
  return nullptr;
}

std::size_t match_length(const PlatformSpec& p, std::string_view device_name) {
  const std::string device = ascii_lower(device_name);
  std::size_t best = 0;
  for (const auto& m : p.match) {
    const std::string pattern = ascii_lower(m);
    const bool glob = pattern.find_first_of("*?") != std::string::npos;
    const bool hit =
        glob ? config::glob_match(pattern, device) : device.find(pattern) != std::string::npos;
    if (hit) best = std::max(best, pattern.size());
  }
  return best;
}

const PlatformSpec* match_device(std::string_view device_name) {
  const PlatformSpec* best = nullptr;
  std::size_t best_length = 0;
  for (const auto& p : bundled_platforms()) {
    const std::size_t n = match_length(p, device_name);
    if (n > best_length) best = &p, best_length = n;
  }
  return best;
}

std::string known_platform_names() {
  std::string out;
  for (const auto& p : bundled_platforms()) out += (out.empty() ? "" : ", ") + p.name;
  return out;
}

}  // namespace traceprism::platform
