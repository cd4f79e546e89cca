#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "cli/plugin_loading.hpp"

namespace traceprism::cli {

namespace {

void print_plugin(const plugins::LoadedPlugin& p) {
  const traceprism_plugin_v1& info = *p.info;
  std::cout << info.name << " " << (info.version ? info.version : "") << "  (ABI " << info.abi_major
            << "." << info.abi_minor << ", " << p.path.string() << ")\n";
  for (std::uint32_t i = 0; i < info.analyzer_count; ++i) {
    const traceprism_analyzer_v1& a = info.analyzers[i];
    std::cout << "  analyzer " << a.name << ": " << (a.summary ? a.summary : "") << "\n";
    if (a.depends_on) {
      std::cout << "    depends on:";
      for (const char* const* d = a.depends_on; *d; ++d)
        std::cout << " " << ((*d)[0] == '?' ? std::string(*d + 1) + " (optional)" : *d);
      std::cout << "\n";
    }
    for (std::uint32_t o = 0; o < a.option_count; ++o) {
      const traceprism_option_v1& opt = a.options[o];
      std::cout << "    " << a.name << "." << (opt.name ? opt.name : "?") << " = "
                << (opt.default_value ? opt.default_value : "") << "   "
                << (opt.description ? opt.description : "") << "\n";
    }
  }
  for (std::uint32_t i = 0; i < info.op_model_count; ++i) {
    const traceprism_op_model_v1& m = info.op_models[i];
    std::cout << "  op model " << m.name << ": " << (m.summary ? m.summary : "") << "\n    ops:";
    for (const char* const* n = m.op_names; *n; ++n) std::cout << " " << *n;
    std::cout << "\n";
  }
}

}  // namespace

void add_plugins_command(CLI::App& app) {
  auto dirs = std::make_shared<std::vector<std::string>>();
  CLI::App* cmd = app.add_subcommand(
      "plugins",
      "List the plugins traceprism loads: name, version, ABI, file, analyzers with their\n"
      "options and defaults, op models, and the files refused with the reason.");
  add_plugin_dir_option(*cmd, *dirs);
  cmd->footer(
      "Examples:\n"
      "  traceprism plugins\n"
      "  TRACEPRISM_PLUGIN_PATH=~/my-plugins traceprism plugins\n"
      "  traceprism plugins --plugin-dir build/my_plugin");
  cmd->callback([dirs] {
    plugins::PluginRegistry registry;
    load_plugins(registry, *dirs);
    if (registry.plugins().empty() && registry.refused().empty())
      std::cout << "No plugins found. Searched the install's plugin folder, "
                   "TRACEPRISM_PLUGIN_PATH and --plugin-dir.\n";
    for (const auto& p : registry.plugins()) print_plugin(p);
    if (!registry.refused().empty()) {
      std::cout << "\nRefused:\n";
      for (const auto& r : registry.refused()) std::cout << "  " << r.reason << "\n";
    }
  });
}

}  // namespace traceprism::cli
