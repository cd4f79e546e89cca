#pragma once

#include <traceprism/abi.h>

#define BOOST_DLL_USE_STD_FS
#include <boost/dll/shared_library.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace traceprism::plugins {

// A plugin that passed the handshake. The library stays loaded as long as the registry lives
// (the shared_library destructor unloads it), so a command creates the registry first and
// destroys it last, after the graph, the findings and the report (plugin-sdk.md §6.5);
// everything a plugin handed over has been deep-copied by then.
struct LoadedPlugin {
  std::filesystem::path path;
  boost::dll::shared_library library;
  const traceprism_plugin_v1* info = nullptr;
};

// A file that was refused, with one sentence saying why.
struct RefusedPlugin {
  std::filesystem::path path;
  std::string reason;
};

// Loads plugins serially, before any analysis starts, and refuses bad ones with one sentence
// each (the handshake of plugin-sdk.md §6.4): not loadable, no entry point, other ABI major,
// newer ABI minor, malformed tables, duplicate analyzer names.
class PluginRegistry {
 public:
  PluginRegistry() = default;
  PluginRegistry(const PluginRegistry&) = delete;
  PluginRegistry& operator=(const PluginRegistry&) = delete;

  // Loads one file; false when refused (see refused()).
  bool load_file(const std::filesystem::path& file);
  // Loads every shared library in the folder (not recursive), in file-name order.
  void load_directory(const std::filesystem::path& dir);

  const std::vector<LoadedPlugin>& plugins() const { return plugins_; }
  const std::vector<RefusedPlugin>& refused() const { return refused_; }

 private:
  bool refuse(const std::filesystem::path& file, std::string reason);
  std::string check_tables(const std::filesystem::path& file,
                           const traceprism_plugin_v1& info) const;

  std::vector<LoadedPlugin> plugins_;
  std::vector<RefusedPlugin> refused_;
};

// True for names made of lowercase letters, digits and single '-' (not first or last).
bool is_kebab_case(std::string_view name);

// The folders searched by default: the install's plugin folder (next to the executable:
// plugins/ in a build tree, ../lib/traceprism/plugins once installed), then every entry of
// TRACEPRISM_PLUGIN_PATH (':'-separated). Never the current directory.
std::vector<std::filesystem::path> default_plugin_dirs();

}  // namespace traceprism::plugins
