#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "plugins/plugin_registry.hpp"

namespace traceprism::cli {

// --plugin-dir, shared by analyze and plugins.
void add_plugin_dir_option(CLI::App& command, std::vector<std::string>& dirs);

// Loads the plugins of the default folders (next to the executable, TRACEPRISM_PLUGIN_PATH),
// then of each --plugin-dir, in that order. Never the current directory.
void load_plugins(plugins::PluginRegistry& registry, const std::vector<std::string>& extra_dirs);

}  // namespace traceprism::cli
