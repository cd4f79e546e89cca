#pragma once

#include <cctype>
#include <filesystem>
#include <string>

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

}  // namespace traceprism::testing
