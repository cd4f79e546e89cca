#include <iostream>
#include <memory>
#include <sstream>

#include "cli/commands.hpp"
#include "platform/platform_file.hpp"
#include "text/json_writer.hpp"

namespace traceprism::cli {

namespace {

std::string number(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out.empty() ? "-" : out;
}

// "NVLink 4 450 GB/s per direction (8 GPUs), PCIe Gen5 63 GB/s per direction".
std::string interconnect_text(const std::optional<platform::Interconnect>& link) {
  if (!link) return "unknown";
  std::string text = "no scale-up link";
  if (link->scale_up) {
    text = link->scale_up->kind + " " +
           (link->scale_up->gbps_per_direction
                ? number(*link->scale_up->gbps_per_direction) + " GB/s per direction"
                : std::string("(bandwidth unknown)"));
    if (link->scale_up->domain_gpus)
      text += " (" + std::to_string(*link->scale_up->domain_gpus) + " GPUs)";
  }
  if (link->pcie)
    text += ", PCIe Gen" + std::to_string(link->pcie->gen) + " " +
            number(link->pcie->gbps_per_direction) + " GB/s per direction";
  if (link->scale_out_gbps_per_direction)
    text += ", NIC " + number(*link->scale_out_gbps_per_direction) + " GB/s per direction";
  return text;
}

void write_interconnect(text::JsonWriter& w, const platform::Interconnect& link) {
  w.key("interconnect").begin_object();
  w.key("scale_up");
  if (!link.scale_up) {
    w.null();
  } else {
    w.begin_object().key("kind").value(link.scale_up->kind);
    if (link.scale_up->gbps_per_direction)
      w.key("gbps_per_direction").value(*link.scale_up->gbps_per_direction);
    if (link.scale_up->domain_gpus) w.key("domain_gpus").value(*link.scale_up->domain_gpus);
    w.end_object();
  }
  if (link.pcie)
    w.key("pcie")
        .begin_object()
        .key("gen")
        .value(link.pcie->gen)
        .key("gbps_per_direction")
        .value(link.pcie->gbps_per_direction)
        .end_object();
  w.key("scale_out_gbps_per_direction");
  if (link.scale_out_gbps_per_direction)
    w.value(*link.scale_out_gbps_per_direction);
  else
    w.null();
  w.end_object();
}

void print_text(const platform::PlatformSpec& p) {
  std::cout << p.name << "  (" << (p.vendor.empty() ? "?" : p.vendor) << ", " << p.origin << ")\n";
  std::cout << "  aliases: " << joined(p.aliases) << "\n";
  std::cout << "  matches: " << joined(p.match) << "\n";
  std::cout << "  architecture: " << (p.architecture.empty() ? "unknown" : p.architecture)
            << ", multiprocessors: "
            << (p.multiprocessors > 0 ? std::to_string(p.multiprocessors) : "unknown") << "\n";
  std::cout << "  memory: " << (p.memory_gb ? number(*p.memory_gb) + " GB" : "unknown")
            << ", HBM bandwidth: "
            << (p.hbm_bandwidth_gbps ? number(*p.hbm_bandwidth_gbps) + " GB/s" : "unknown");
  if (p.achievable_hbm_bandwidth_gbps)
    std::cout << " (achievable " << number(*p.achievable_hbm_bandwidth_gbps) << " GB/s)";
  std::cout << ", host link: "
            << (p.host_link_gbps ? number(*p.host_link_gbps) + " GB/s per direction" : "unknown");
  std::cout << "\n  interconnect: " << interconnect_text(p.interconnect);
  std::cout << "\n  peak TFLOPS:";
  if (p.peak_tflops.empty()) std::cout << " none";
  for (const auto& [spec, v] : p.peak_tflops) std::cout << " " << spec << "=" << number(v);
  std::cout << "\n";
  if (!p.achievable_tflops.empty()) {
    std::cout << "  achievable TFLOPS:";
    for (const auto& [spec, v] : p.achievable_tflops) std::cout << " " << spec << "=" << number(v);
    std::cout << "\n";
  }
}

void write_json(text::JsonWriter& w, const platform::PlatformSpec& p) {
  w.begin_object();
  w.key("name").value(p.name);
  w.key("file").value(p.origin);
  w.key("vendor").value(p.vendor);
  w.key("aliases").begin_array();
  for (const auto& a : p.aliases) w.value(a);
  w.end_array();
  w.key("match").begin_array();
  for (const auto& m : p.match) w.value(m);
  w.end_array();
  if (!p.architecture.empty()) w.key("architecture").value(p.architecture);
  if (p.multiprocessors > 0) w.key("multiprocessors").value(p.multiprocessors);
  if (p.memory_gb) w.key("memory_gb").value(*p.memory_gb);
  if (p.hbm_bandwidth_gbps) w.key("hbm_bandwidth_gbps").value(*p.hbm_bandwidth_gbps);
  if (p.achievable_hbm_bandwidth_gbps)
    w.key("achievable_hbm_bandwidth_gbps").value(*p.achievable_hbm_bandwidth_gbps);
  if (p.host_link_gbps) w.key("host_link_gbps").value(*p.host_link_gbps);
  if (p.interconnect) write_interconnect(w, *p.interconnect);
  w.key("peak_tflops").begin_object();
  for (const auto& [spec, v] : p.peak_tflops) w.key(spec).value(v);
  w.end_object();
  if (!p.achievable_tflops.empty()) {
    w.key("achievable_tflops").begin_object();
    for (const auto& [spec, v] : p.achievable_tflops) w.key(spec).value(v);
    w.end_object();
  }
  w.key("sources").begin_array();
  for (const auto& [what, url] : p.sources)
    w.begin_object().key("what").value(what).key("url").value(url).end_object();
  w.end_array();
  w.end_object();
}

}  // namespace

void add_platforms_command(CLI::App& app) {
  auto as_json = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand(
      "platforms",
      "List the GPU platform files compiled into traceprism: name, aliases, memory, HBM\n"
      "bandwidth, dense peak TFLOPS (and measured achievable ones where known) and the\n"
      "deviceProperties name patterns 'analyze --platform auto' matches (docs/platforms.md).");
  cmd->add_flag("--json", *as_json, "Print the list as JSON, with each number's sources");
  cmd->footer(
      "Examples:\n"
      "  traceprism platforms\n"
      "  traceprism analyze trace.json.gz --platform H100\n"
      "  traceprism analyze trace.json.gz --platform-file my_gpu.json");
  cmd->callback([as_json] {
    const auto& all = platform::bundled_platforms();
    if (*as_json) {
      text::JsonWriter w;
      w.begin_array();
      for (const auto& p : all) write_json(w, p);
      w.end_array();
      std::cout << w.str() << "\n";
      return;
    }
    for (const auto& p : all) print_text(p);
  });
}

}  // namespace traceprism::cli
