#include "io/small_file.hpp"

#include <fstream>

#include "io/run_inputs.hpp"

namespace traceprism::io {

SmallFile read_small_file(const std::string& path, std::uint64_t max_bytes, SmallFileRole role) {
  SmallFile file;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    file.status = SmallFile::Status::kCannotOpen;
    return file;
  }
  if (role == SmallFileRole::kRunInput) remember_run_input(path);
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    file.text.append(buffer, static_cast<std::size_t>(in.gcount()));
    if (file.text.size() > max_bytes) {
      file.status = SmallFile::Status::kTooLarge;
      file.text.clear();
      return file;
    }
  }
  return file;
}

std::string too_large_sentence(const std::string& path, const std::string& expected,
                               std::uint64_t max_bytes) {
  return path + ": is larger than " + std::to_string(max_bytes >> 20) + " MiB; expected " +
         expected + ".";
}

}  // namespace traceprism::io
