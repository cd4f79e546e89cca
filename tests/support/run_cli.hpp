#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>
#include <utility>

namespace traceprism::testing {

// One shell word: the text in single quotes, inner quotes escaped ('\'').
inline std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  return out + "'";
}

// Runs `binary args` through the shell (args are pasted as written: quote paths with
// shell_quote) and returns its exit code, or -1 when it could not start or died from a signal.
// `output`, when given, receives stdout and stderr together.
inline int run_program(const std::string& binary, const std::string& args,
                       std::string* output = nullptr) {
  const std::string command = shell_quote(binary) + " " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return -1;
  std::string text;
  std::array<char, 4096> buffer{};
  std::size_t n = 0;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) text.append(buffer.data(), n);
  const int status = pclose(pipe);
  if (output) *output = std::move(text);
  if (status == -1 || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

#ifdef TRACEPRISM_BINARY
// Runs the traceprism executable of this build (TRACEPRISM_BINARY, set by tests/CMakeLists.txt).
inline int run_cli(const std::string& args, std::string* output = nullptr) {
  return run_program(TRACEPRISM_BINARY, args, output);
}
#endif

}  // namespace traceprism::testing
