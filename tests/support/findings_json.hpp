// Reading what `traceprism analyze` wrote (findings.json: figures, findings) and the reference's
// golden JSON files, for the golden suites that compare the two.
#pragma once

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/run_cli.hpp"
#include "support/temp_dir.hpp"

namespace traceprism::testing {

// A JSON file, parsed (throws on a missing or malformed file: the test fails with the message).
inline boost::json::value read_json(const std::filesystem::path& path) {
  return boost::json::parse(read_file(path.string()));
}

#ifdef TRACEPRISM_BINARY
// Runs `traceprism analyze TRACE -o <temporary folder>` and returns its findings.json. A non-zero
// exit or a missing findings.json is a test failure (with the CLI's output) and gives an empty
// object: callers stop on `empty()`. `log`, when given, receives the CLI's output.
inline boost::json::object analyze_findings(const std::filesystem::path& trace,
                                            std::string* log = nullptr) {
  TempDir out;
  std::string text;
  const int rc = run_cli(
      "analyze " + shell_quote(trace.string()) + " -o " + shell_quote(out.path().string()), &text);
  const std::string findings = read_file((out.path() / "findings.json").string());
  if (log) *log = text;
  if (rc != 0) {
    ADD_FAILURE() << "traceprism analyze exited with " << rc << ": " << text;
    return {};
  }
  if (findings.empty()) {
    ADD_FAILURE() << "no findings.json: " << text;
    return {};
  }
  return boost::json::parse(findings).as_object();
}
#endif

// A golden or figure value as a double: numbers as they are, booleans 1/0; anything else is a
// test failure and NaN.
inline double number(const boost::json::value& v) {
  if (v.is_double()) return v.as_double();
  if (v.is_int64()) return static_cast<double>(v.as_int64());
  if (v.is_uint64()) return static_cast<double>(v.as_uint64());
  if (v.is_bool()) return v.as_bool() ? 1.0 : 0.0;
  ADD_FAILURE() << "not a number: " << boost::json::serialize(v);
  return std::nan("");
}

// figures[analyzer][key] of a findings.json, or nullopt when the analyzer or the key is absent.
inline std::optional<double> figure(const boost::json::object& findings, std::string_view analyzer,
                                    std::string_view key) {
  const boost::json::value* figures = findings.if_contains("figures");
  if (!figures || !figures->is_object()) return std::nullopt;
  const boost::json::value* mine = figures->as_object().if_contains(analyzer);
  if (!mine || !mine->is_object()) return std::nullopt;
  const boost::json::value* v = mine->as_object().if_contains(key);
  if (!v) return std::nullopt;
  return number(*v);
}

// The analyzer's findings in report order (none when findings.json has no "findings").
inline std::vector<const boost::json::object*> findings_of(const boost::json::object& findings,
                                                           std::string_view analyzer) {
  std::vector<const boost::json::object*> out;
  const boost::json::value* list = findings.if_contains("findings");
  if (!list || !list->is_array()) return out;
  for (const boost::json::value& f : list->as_array()) {
    if (f.as_object().at("analyzer").as_string() == analyzer) out.push_back(&f.as_object());
  }
  return out;
}

// The analyzer's finding with this key, or nullptr.
inline const boost::json::object* finding(const boost::json::object& findings,
                                          std::string_view analyzer, std::string_view key) {
  for (const boost::json::object* f : findings_of(findings, analyzer)) {
    if (f->at("key").as_string() == key) return f;
  }
  return nullptr;
}

// A list whose elements are addressed by one of their fields instead of their index: the list
// at every path ending in `path_suffix` (".issues"), its object elements by `field`.
struct ListKeyField {
  std::string path_suffix;
  std::string field;
};

// A golden's leaves (numbers, booleans, strings, nulls) by dotted path: objects by key, lists by
// index unless `keyed` names a field for them, as figure keys are built.
inline void flatten(const boost::json::value& v, const std::string& path,
                    std::map<std::string, const boost::json::value*>& out,
                    const std::vector<ListKeyField>& keyed = {}) {
  if (v.is_object()) {
    for (const auto& [key, child] : v.as_object())
      flatten(child, path.empty() ? std::string(key) : path + "." + std::string(key), out, keyed);
  } else if (v.is_array()) {
    const std::string* field = nullptr;
    for (const ListKeyField& k : keyed) {
      if (path.size() >= k.path_suffix.size() &&
          path.compare(path.size() - k.path_suffix.size(), k.path_suffix.size(), k.path_suffix) ==
              0)
        field = &k.field;
    }
    const auto& items = v.as_array();
    for (std::size_t i = 0; i < items.size(); ++i) {
      std::string key = std::to_string(i);
      if (field && items[i].is_object() && items[i].as_object().contains(*field))
        key = std::string(items[i].as_object().at(*field).as_string());
      flatten(items[i], path + "." + key, out, keyed);
    }
  } else {
    out[path] = &v;
  }
}

// A TraceLens trace with the reference agent's goldens beside it:
// tracelens/<dir>/<stem>.json.gz and tracelens/<dir>/<stem>_agent_expected/.
struct AgentGolden {
  std::string name;  // "<dir>_<stem>", <dir> relative to the tracelens folder (not sanitized)
  std::filesystem::path trace;
  std::filesystem::path expected;  // the <stem>_agent_expected folder
};

// Every such trace below `tracelens` (none when the folder is absent), in directory order.
inline std::vector<AgentGolden> tracelens_agent_goldens(const std::filesystem::path& tracelens) {
  namespace fs = std::filesystem;
  std::vector<AgentGolden> out;
  if (!fs::is_directory(tracelens)) return out;
  const std::string suffix = ".json.gz";
  for (const auto& entry : fs::recursive_directory_iterator(tracelens)) {
    const std::string file = entry.path().filename().string();
    if (!entry.is_regular_file() || file.size() <= suffix.size() ||
        file.substr(file.size() - suffix.size()) != suffix)
      continue;
    const std::string stem = file.substr(0, file.size() - suffix.size());
    const fs::path expected = entry.path().parent_path() / (stem + "_agent_expected");
    if (!fs::is_directory(expected)) continue;
    out.push_back({fs::relative(entry.path().parent_path(), tracelens).string() + "_" + stem,
                   entry.path(), expected});
  }
  return out;
}

}  // namespace traceprism::testing
