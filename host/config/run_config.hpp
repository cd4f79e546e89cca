#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace traceprism::config {

// A configuration file that cannot be used; what() is one sentence naming the file.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Which analyzers run and with which options, shaped like .clang-tidy (plugin-sdk.md §6.11):
//   {"analyzers": "*,-memcpy", "options": {"cpu-idle.IdleThresholdPercent": "20"},
//    "report": {"fail_on": "critical"}}
// Option values are text at the ABI; numbers and booleans in the file are converted.
struct RunConfig {
  std::vector<std::string> analyzer_globs;     // in order; "-glob" disables; last match wins
  std::map<std::string, std::string> options;  // "<analyzer>.<Option>" -> value
  std::string fail_on = "none";                // none | info | warning | critical
  std::vector<std::string> sources;            // files merged, for --dump-config

  bool enabled(std::string_view analyzer) const;
  // The configured value of an analyzer's option, or nullptr.
  const std::string* option(std::string_view analyzer, std::string_view name) const;
};

// The built-in defaults (config/default.json, compiled in).
RunConfig default_config();
// Parses a config text; `source` names it in error sentences.
RunConfig parse_config(std::string_view text, const std::string& source);
// `overlay` on top of `base`: globs appended, options and report settings replaced.
void merge_config(RunConfig& base, const RunConfig& overlay);

// '*' matches any run of characters, '?' one character.
bool glob_match(std::string_view pattern, std::string_view text);

}  // namespace traceprism::config
