#include "io/run_inputs.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <mutex>
#include <utility>
#include <vector>

namespace traceprism::io {
namespace {

using FileId = std::pair<dev_t, ino_t>;

struct RunInputs {
  std::mutex mutex;
  bool enabled = false;
  std::vector<FileId> files;
};

RunInputs& run_inputs() {
  static RunInputs inputs;
  return inputs;
}

}  // namespace

void protect_run_inputs() {
  RunInputs& inputs = run_inputs();
  std::lock_guard lock(inputs.mutex);
  inputs.enabled = true;
}

void remember_run_input(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;
  RunInputs& inputs = run_inputs();
  std::lock_guard lock(inputs.mutex);
  if (inputs.enabled) inputs.files.emplace_back(st.st_dev, st.st_ino);
}

bool is_run_input(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return false;  // nothing there to replace
  RunInputs& inputs = run_inputs();
  std::lock_guard lock(inputs.mutex);
  return std::find(inputs.files.begin(), inputs.files.end(), FileId{st.st_dev, st.st_ino}) !=
         inputs.files.end();
}

}  // namespace traceprism::io
