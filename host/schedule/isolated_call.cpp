#include "schedule/isolated_call.hpp"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <string>

#include "schedule/outcome_codec.hpp"

#if defined(__unix__) || defined(__APPLE__)
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>
#define TRACEPRISM_HAVE_FORK 1
#endif

namespace traceprism::schedule {

#ifdef TRACEPRISM_HAVE_FORK
namespace {

bool write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

[[noreturn]] void child_main(int fd, const std::function<void(findings::AnalyzerOutcome&)>& body,
                             findings::AnalyzerOutcome& outcome) {
  body(outcome);
  const std::string bytes = encode_outcome(outcome);
  const std::uint64_t size = bytes.size();
  // A length prefix lets the parent stop reading without waiting for end-of-file (another
  // child forked meanwhile may hold a copy of this pipe's write end).
  bool ok = write_all(fd, reinterpret_cast<const char*>(&size), sizeof size) &&
            write_all(fd, bytes.data(), bytes.size());
  ::_exit(ok ? 0 : 3);  // no atexit handlers, no stdio flush of the parent's buffers
}

std::string describe_signal(int sig) {
  const char* name = ::strsignal(sig);
  return "crashed (signal " + std::to_string(sig) + ": " + (name ? name : "unknown") + ")";
}

void fail(findings::AnalyzerOutcome& outcome, std::string why) {
  outcome.status = findings::AnalyzerStatus::kFailed;
  outcome.error = std::move(why);
  outcome.findings.clear();
}

}  // namespace

void run_isolated(const std::function<void(findings::AnalyzerOutcome&)>& body,
                  findings::AnalyzerOutcome& outcome, double timeout_seconds) {
  int fds[2];
  if (::pipe(fds) != 0) {
    body(outcome);
    return;
  }
  ::fcntl(fds[0], F_SETFD, FD_CLOEXEC);
  ::fcntl(fds[1], F_SETFD, FD_CLOEXEC);
  const pid_t pid = ::fork();
  if (pid < 0) {  // no process to spare: run here rather than not at all
    ::close(fds[0]);
    ::close(fds[1]);
    body(outcome);
    return;
  }
  if (pid == 0) {
    ::close(fds[0]);
    child_main(fds[1], body, outcome);
  }
  ::close(fds[1]);

  const auto start = std::chrono::steady_clock::now();
  std::string received;
  std::uint64_t expected = 0;
  bool have_size = false, complete = false, exited = false, timed_out = false;
  int status = 0;
  char buffer[1 << 16];
  while (!complete) {
    pollfd p{fds[0], POLLIN, 0};
    int ready = ::poll(&p, 1, 100);
    if (ready > 0) {
      ssize_t n = ::read(fds[0], buffer, sizeof buffer);
      if (n > 0) {
        received.append(buffer, static_cast<std::size_t>(n));
        if (!have_size && received.size() >= sizeof expected) {
          std::memcpy(&expected, received.data(), sizeof expected);
          received.erase(0, sizeof expected);
          have_size = true;
        }
        complete = have_size && received.size() >= expected;
        continue;
      }
      if (n == 0) break;  // every write end closed
      if (errno != EINTR && errno != EAGAIN) break;
    }
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      exited = true;
      // Drain what the child wrote before it exited.
      while (true) {
        pollfd q{fds[0], POLLIN, 0};
        if (::poll(&q, 1, 0) <= 0) break;
        ssize_t n = ::read(fds[0], buffer, sizeof buffer);
        if (n <= 0) break;
        received.append(buffer, static_cast<std::size_t>(n));
      }
      if (!have_size && received.size() >= sizeof expected) {
        std::memcpy(&expected, received.data(), sizeof expected);
        received.erase(0, sizeof expected);
        have_size = true;
      }
      complete = have_size && received.size() >= expected;
      break;
    }
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (timeout_seconds > 0 && elapsed > timeout_seconds) {
      ::kill(pid, SIGKILL);
      timed_out = true;
      break;
    }
  }
  ::close(fds[0]);
  if (!exited) ::waitpid(pid, &status, 0);

  if (timed_out) {
    char limit[32];
    std::snprintf(limit, sizeof limit, "%g", timeout_seconds);
    return fail(outcome, std::string("did not finish within ") + limit + " s and was stopped");
  }
  if (WIFSIGNALED(status)) return fail(outcome, describe_signal(WTERMSIG(status)));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !complete)
    return fail(outcome, "exited without a result (status " +
                             std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ")");
  if (!decode_outcome(std::string_view(received).substr(0, expected), outcome))
    return fail(outcome, "sent back a result that could not be read");
}

#else

void run_isolated(const std::function<void(findings::AnalyzerOutcome&)>& body,
                  findings::AnalyzerOutcome& outcome, double) {
  body(outcome);
}

#endif

}  // namespace traceprism::schedule
