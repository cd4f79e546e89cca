#include "config/run_config.hpp"

#include <boost/json.hpp>

namespace traceprism::config {
namespace {

constexpr char kDefaultConfig[] =
#include "default_config.inc"
    ;

std::string trim(std::string_view s) {
  auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  auto e = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(b, e - b + 1));
}

std::vector<std::string> split_globs(std::string_view list) {
  std::vector<std::string> out;
  while (!list.empty()) {
    auto comma = list.find(',');
    std::string item = trim(list.substr(0, comma));
    if (!item.empty()) out.push_back(item);
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
  }
  return out;
}

std::string option_text(const boost::json::value& v, const std::string& source,
                        const std::string& key) {
  if (v.is_string()) return std::string(v.get_string());
  if (v.is_bool()) return v.get_bool() ? "true" : "false";
  if (v.is_int64() || v.is_uint64() || v.is_double()) {
    std::string text = boost::json::serialize(v);
    return text;
  }
  throw ConfigError(source + ": option '" + key + "' must be a string, a number or true/false.");
}

}  // namespace

bool glob_match(std::string_view pattern, std::string_view text) {
  std::size_t p = 0, t = 0, star = std::string_view::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p, ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

bool RunConfig::enabled(std::string_view analyzer) const {
  bool on = false;
  for (const std::string& glob : analyzer_globs) {
    bool negative = !glob.empty() && glob[0] == '-';
    std::string_view pattern = negative ? std::string_view(glob).substr(1) : glob;
    if (glob_match(pattern, analyzer)) on = !negative;
  }
  return on;
}

const std::string* RunConfig::option(std::string_view analyzer, std::string_view name) const {
  std::string key = std::string(analyzer) + "." + std::string(name);
  auto it = options.find(key);
  return it == options.end() ? nullptr : &it->second;
}

RunConfig parse_config(std::string_view text, const std::string& source) {
  boost::json::error_code ec;
  boost::json::value root = boost::json::parse(text, ec);
  if (ec) throw ConfigError(source + ": not valid JSON (" + ec.message() + ").");
  if (!root.is_object()) throw ConfigError(source + ": expected a JSON object at the top.");
  RunConfig config;
  config.sources.push_back(source);
  for (const auto& [key, value] : root.get_object()) {
    if (key == "_comment") continue;
    if (key == "analyzers") {
      if (!value.is_string())
        throw ConfigError(source + ": 'analyzers' must be a string of comma-separated globs.");
      config.analyzer_globs = split_globs(value.get_string());
    } else if (key == "options") {
      if (!value.is_object()) throw ConfigError(source + ": 'options' must be an object.");
      for (const auto& [name, v] : value.get_object()) {
        std::string k(name);
        if (k.find('.') == std::string::npos)
          throw ConfigError(source + ": option '" + k + "' must be written '<analyzer>.<Option>'.");
        config.options[k] = option_text(v, source, k);
      }
    } else if (key == "report") {
      if (!value.is_object()) throw ConfigError(source + ": 'report' must be an object.");
      for (const auto& [name, v] : value.get_object()) {
        if (name == "fail_on" && v.is_string()) {
          std::string level(v.get_string());
          if (level != "none" && level != "info" && level != "warning" && level != "critical")
            throw ConfigError(source + ": report.fail_on must be none, info, warning or critical.");
          config.fail_on = level;
        } else {
          throw ConfigError(source + ": unknown report setting '" + std::string(name) + "'.");
        }
      }
    } else {
      throw ConfigError(source + ": unknown key '" + std::string(key) +
                        "' (expected analyzers, options, report).");
    }
  }
  return config;
}

RunConfig default_config() {
  return parse_config(kDefaultConfig, "config/default.json");
}

void merge_config(RunConfig& base, const RunConfig& overlay) {
  base.analyzer_globs.insert(base.analyzer_globs.end(), overlay.analyzer_globs.begin(),
                             overlay.analyzer_globs.end());
  for (const auto& [k, v] : overlay.options) base.options[k] = v;
  if (overlay.fail_on != "none") base.fail_on = overlay.fail_on;
  base.sources.insert(base.sources.end(), overlay.sources.begin(), overlay.sources.end());
}

}  // namespace traceprism::config
