// The restart with glibc's huge-page malloc tunable really happens when asked for
// (cli/huge_page_malloc): a traceprism waiting on stdin shows the tunable in its environment.
#include <gnu/libc-version.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "cli/huge_page_malloc.hpp"

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST(HugePageRestart, AWaitingRunThatAskedCarriesTheTunable) {
  const std::string mode = read_text("/sys/kernel/mm/transparent_hugepage/enabled");
  if (!traceprism::cli::huge_page_tunables("1", nullptr, mode, gnu_get_libc_version()))
    GTEST_SKIP() << "this machine gets no restart (THP mode '" << mode << "', glibc "
                 << gnu_get_libc_version() << ")";
  int stdin_pipe[2];
  ASSERT_EQ(::pipe(stdin_pipe), 0);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::dup2(stdin_pipe[0], STDIN_FILENO);
    ::close(stdin_pipe[0]);
    ::close(stdin_pipe[1]);
    ::unsetenv("GLIBC_TUNABLES");
    ::setenv("TRACEPRISM_HUGE_PAGES", "1", 1);
    ::execl(TRACEPRISM_BINARY, TRACEPRISM_BINARY, "inspect", "-q", "-",
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(stdin_pipe[0]);
  // It blocks reading stdin, after the restart: poll its environment for up to 20 s.
  const std::string environ_path = "/proc/" + std::to_string(pid) + "/environ";
  bool found = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!found && std::chrono::steady_clock::now() < deadline) {
    found =
        read_text(environ_path).find("GLIBC_TUNABLES=glibc.malloc.hugetlb=1") != std::string::npos;
    if (!found) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::close(stdin_pipe[1]);  // an empty trace: the run ends with "unreadable trace"
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_TRUE(found) << "no GLIBC_TUNABLES=glibc.malloc.hugetlb=1 in " << environ_path;
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 2);  // the restarted process ran the command as asked
}
