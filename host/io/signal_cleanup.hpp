// Temporaries a run must not leave behind when it is stopped by a signal (issue 19): the
// staging folder of a report, its lock file, the temporary beside an output file. SIGKILL cannot
// be caught; what it leaves is removed by the next run into the same folder.
#pragma once

#include <string>

namespace traceprism::io {

// Installs handlers for SIGINT, SIGTERM, SIGHUP and SIGQUIT (unless ignored, as under nohup)
// that remove every registered temporary of this process, then die of the same signal.
void remove_temporaries_on_signals();

// Registers one temporary file or folder for the signal handlers while it exists. Forked
// children inherit the registry but never act on their parent's entries.
class SignalCleanup {
 public:
  SignalCleanup() = default;
  SignalCleanup(const std::string& path, bool is_folder);
  ~SignalCleanup() { release(); }
  SignalCleanup(const SignalCleanup&) = delete;
  SignalCleanup& operator=(const SignalCleanup&) = delete;
  SignalCleanup(SignalCleanup&& other) noexcept : slot_(other.slot_) { other.slot_ = -1; }
  SignalCleanup& operator=(SignalCleanup&& other) noexcept;

  // Stops watching the path (it was renamed into place or removed).
  void release();

 private:
  int slot_ = -1;
};

}  // namespace traceprism::io
