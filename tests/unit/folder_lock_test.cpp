// The lock of a report folder (io/folder_replacement.hpp) belongs to the run's process alone:
// a child it forked (an isolated analyzer) that outlives a run killed by SIGKILL does not keep
// the folder locked. With flock it did, and the next run was refused (seen in CI under
// AddressSanitizer, where the analyzers outlived their parent).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <stdexcept>
#include <string>

#include "io/folder_replacement.hpp"
#include "support/temp_dir.hpp"

namespace traceprism::io {
namespace {

namespace fs = std::filesystem;

bool any_file(const std::string&) {
  return true;
}

// A run that takes the lock, forks a slow child and waits to be killed; the child's pid comes
// back through `to_test`.
[[noreturn]] void locking_run(const fs::path& target, int to_test) {
  try {
    FolderReplacement replacement(target, any_file);
    const pid_t analyzer = ::fork();
    if (analyzer == 0) {
      ::sleep(60);
      ::_exit(0);
    }
    if (::write(to_test, &analyzer, sizeof analyzer) != sizeof analyzer) ::_exit(2);
    while (true) ::pause();
  } catch (...) {
    ::_exit(1);
  }
}

TEST(FolderLock, AKilledRunsForkedChildDoesNotKeepTheFolderLocked) {
  testing::TempDir dir;
  const fs::path target = dir.path() / "report";
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  const pid_t run = ::fork();
  ASSERT_GE(run, 0);
  if (run == 0) locking_run(target, pipe_fds[1]);
  ::close(pipe_fds[1]);
  pid_t analyzer = -1;
  ASSERT_EQ(::read(pipe_fds[0], &analyzer, sizeof analyzer), static_cast<ssize_t>(sizeof analyzer));
  ::close(pipe_fds[0]);

  EXPECT_THROW(FolderReplacement(target, any_file), std::runtime_error) << "while the run lives";
  ::kill(run, SIGKILL);
  ::waitpid(run, nullptr, 0);
  EXPECT_NO_THROW(FolderReplacement(target, any_file)) << "its child still runs";
  ::kill(analyzer, SIGKILL);
}

}  // namespace
}  // namespace traceprism::io
