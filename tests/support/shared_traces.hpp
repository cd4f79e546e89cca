#pragma once

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

namespace traceprism::testing {

// The reference traces beside the repository (TRACEPRISM_SHARED_DIR is set by tests/CMakeLists.txt
// for the golden suite); tests skip with a message when the folder is absent.
inline std::filesystem::path shared_traces() {
  return std::filesystem::path(TRACEPRISM_SHARED_DIR) / "traces";
}

// A gtest parameter name from a path: letters and digits kept, everything else '_'.
inline std::string test_name(std::string text) {
  for (char& c : text) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return text;
}

// One real trace as a gtest parameter.
struct SharedTrace {
  std::string name;  // test_name() of the path under shared_traces()
  std::filesystem::path path;
};

// gtest prints the parameter in failure messages: show the trace, not its bytes.
inline void PrintTo(const SharedTrace& t, std::ostream* os) {
  *os << t.path;
}

// Every trace under shared_traces() (TraceLens, HTA, agent unit cases: *.json.gz, trace.json,
// trace1.json, trace2.json), sorted by name; one placeholder with an empty path when the folder
// is absent, so the suite can skip with a message.
inline std::vector<SharedTrace> all_shared_traces() {
  namespace fs = std::filesystem;
  const fs::path root = shared_traces();
  if (!fs::is_directory(root)) return {{"shared_traces_absent", {}}};
  std::vector<SharedTrace> cases;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    const std::string file = entry.path().filename().string();
    const bool gz = file.size() > 8 && file.ends_with(".json.gz");
    const bool agent = file == "trace.json" || file == "trace1.json" || file == "trace2.json";
    if (!entry.is_regular_file() || !(gz || agent)) continue;
    cases.push_back({test_name(fs::relative(entry.path(), root).string()), entry.path()});
  }
  std::sort(cases.begin(), cases.end(), [](auto& a, auto& b) { return a.name < b.name; });
  return cases;
}

}  // namespace traceprism::testing
