#include "cli/plugin_loading.hpp"

#include <filesystem>

namespace traceprism::cli {

void add_plugin_dir_option(CLI::App& command, std::vector<std::string>& dirs) {
  command
      .add_option("--plugin-dir", dirs,
                  "Also load the plugins (*.so) in this folder; repeatable. Plugins are otherwise\n"
                  "loaded from the install's plugin folder and from TRACEPRISM_PLUGIN_PATH\n"
                  "(':'-separated), never from the current directory")
      ->check(CLI::ExistingDirectory);
}

void load_plugins(plugins::PluginRegistry& registry, const std::vector<std::string>& extra_dirs) {
  for (const auto& dir : plugins::default_plugin_dirs()) registry.load_directory(dir);
  for (const auto& dir : extra_dirs) registry.load_directory(dir);
}

}  // namespace traceprism::cli
