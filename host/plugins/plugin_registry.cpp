#include "plugins/plugin_registry.hpp"

#include <algorithm>
#include <cstdlib>
#include <system_error>

#ifndef _WIN32
#include <dlfcn.h>
#endif

namespace traceprism::plugins {
namespace {

namespace fs = std::filesystem;

std::string quoted(const fs::path& p) {
  // Appended rather than `"'" + p.string() + "'"`: GCC 12 at -O3 reports a false -Wrestrict
  // on inserting before a moved string (GCC bug 105329).
  std::string out(1, '\'');
  out += p.string();
  out += '\'';
  return out;
}

bool is_shared_library(const fs::path& p) {
  const auto ext = p.extension();
  return ext == ".so" || ext == ".dylib" || ext == ".dll";
}

// Smallest struct sizes a 1.0 plugin may declare (the sizes of the 1.0 structs).
constexpr std::uint32_t kMinPluginSize = sizeof(traceprism_plugin_v1);
constexpr std::uint32_t kMinAnalyzerSize = sizeof(traceprism_analyzer_v1);
constexpr std::uint32_t kMinOpModelSize = sizeof(traceprism_op_model_v1);

}  // namespace

bool is_kebab_case(std::string_view name) {
  if (name.empty() || name.front() == '-' || name.back() == '-') return false;
  char previous = 0;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
    if (!ok || (c == '-' && previous == '-')) return false;
    previous = c;
  }
  return true;
}

bool PluginRegistry::refuse(const fs::path& file, std::string reason) {
  refused_.push_back({file, std::move(reason)});
  return false;
}

std::string PluginRegistry::check_tables(const fs::path& file,
                                         const traceprism_plugin_v1& info) const {
  const std::string who = quoted(file);
  if (info.struct_size < kMinPluginSize)
    return who + ": traceprism_plugin_v1 is " + std::to_string(info.struct_size) +
           " bytes; ABI 1.0 needs at least " + std::to_string(kMinPluginSize);
  if (!info.name || !*info.name) return who + ": the plugin has no name";
  if (info.analyzer_count > 0 && !info.analyzers) return who + ": analyzer table is missing";
  if (info.op_model_count > 0 && !info.op_models) return who + ": op model table is missing";
  for (std::uint32_t i = 0; i < info.analyzer_count; ++i) {
    const traceprism_analyzer_v1& a = info.analyzers[i];
    if (a.struct_size < kMinAnalyzerSize)
      return who + ": analyzer #" + std::to_string(i + 1) + " is " + std::to_string(a.struct_size) +
             " bytes; ABI 1.0 needs at least " + std::to_string(kMinAnalyzerSize);
    std::string name = a.name ? a.name : "";
    if (!is_kebab_case(name))
      return who + ": analyzer name '" + name +
             "' is not kebab-case (lowercase letters, digits and '-')";
    if (!a.run) return who + ": analyzer '" + name + "' has no run function";
    if (a.option_count > 0 && !a.options)
      return who + ": analyzer '" + name + "' declares options but no option table";
  }
  for (std::uint32_t i = 0; i < info.op_model_count; ++i) {
    const traceprism_op_model_v1& m = info.op_models[i];
    std::string name = m.name ? m.name : "";
    if (m.struct_size < kMinOpModelSize)
      return who + ": op model #" + std::to_string(i + 1) + " is too small";
    if (!is_kebab_case(name))
      return who + ": op model name '" + name +
             "' is not kebab-case (lowercase letters, digits and '-')";
    if (!m.model) return who + ": op model '" + name + "' has no model function";
    if (!m.op_names) return who + ": op model '" + name + "' claims no op names";
  }
  return {};
}

bool PluginRegistry::load_file(const fs::path& file) {
  boost::dll::fs::error_code ec;
  boost::dll::shared_library library(
      file, ec, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
  if (ec) {
    const char* detail = nullptr;
#ifndef _WIN32
    // Boost's message is generic; dlerror() still holds the loader's own words.
    detail = ::dlerror();
#endif
    return refuse(file, "cannot load " + quoted(file) + ": " + (detail ? detail : ec.message()));
  }
  if (!library.has(TRACEPRISM_PLUGIN_QUERY_SYMBOL))
    return refuse(file, quoted(file) + " is not a traceprism plugin (no " +
                            TRACEPRISM_PLUGIN_QUERY_SYMBOL + ")");
  auto& query = library.get<const traceprism_plugin_v1*()>(TRACEPRISM_PLUGIN_QUERY_SYMBOL);
  const traceprism_plugin_v1* info = query();
  if (!info) return refuse(file, quoted(file) + ": traceprism_plugin_query_v1 returned nothing");
  // Only the frozen prefix (struct_size, abi_major, abi_minor) is read before the version check.
  if (info->abi_major != TRACEPRISM_ABI_MAJOR)
    return refuse(file, quoted(file) + " was built for traceprism ABI " +
                            std::to_string(info->abi_major) + ".x; this host speaks " +
                            std::to_string(TRACEPRISM_ABI_MAJOR) + ".x");
  if (info->abi_minor > TRACEPRISM_ABI_MINOR) {
    const std::string host =
        std::to_string(TRACEPRISM_ABI_MAJOR) + "." + std::to_string(TRACEPRISM_ABI_MINOR);
    return refuse(file, quoted(file) +
                            " needs traceprism ABI >= " + std::to_string(info->abi_major) + "." +
                            std::to_string(info->abi_minor) + "; this host provides " + host +
                            "; upgrade traceprism or rebuild the plugin against SDK " + host);
  }
  if (std::string problem = check_tables(file, *info); !problem.empty())
    return refuse(file, problem);
  for (std::uint32_t i = 0; i < info->analyzer_count; ++i) {
    std::string_view name = info->analyzers[i].name;
    for (const LoadedPlugin& other : plugins_)
      for (std::uint32_t j = 0; j < other.info->analyzer_count; ++j)
        if (name == other.info->analyzers[j].name)
          return refuse(file, quoted(file) + ": analyzer '" + std::string(name) +
                                  "' is already provided by " + quoted(other.path));
  }
  plugins_.push_back({file, std::move(library), info});
  return true;
}

void PluginRegistry::load_directory(const fs::path& dir) {
  std::error_code ec;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.is_regular_file(ec) && is_shared_library(entry.path())) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) load_file(f);
}

std::vector<fs::path> default_plugin_dirs() {
  std::vector<fs::path> dirs;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path bin = exe.parent_path();
    for (const fs::path& candidate :
         {bin / "plugins", bin.parent_path() / "lib" / "traceprism" / "plugins"})
      if (fs::is_directory(candidate, ec)) dirs.push_back(candidate);
  }
  if (const char* env = std::getenv("TRACEPRISM_PLUGIN_PATH")) {
    std::string_view rest(env);
    while (!rest.empty()) {
      auto colon = rest.find(':');
      std::string_view item = rest.substr(0, colon);
      if (!item.empty()) dirs.emplace_back(std::string(item));
      rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
    }
  }
  return dirs;
}

}  // namespace traceprism::plugins
