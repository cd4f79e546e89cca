#include "schedule/isolated_call.hpp"

#include <algorithm>
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
#ifdef __linux__
#include <sys/prctl.h>
#endif

namespace traceprism::schedule {

#ifdef TRACEPRISM_HAVE_FORK
namespace {

using Clock = std::chrono::steady_clock;

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

// A run killed by SIGKILL cannot stop its children: they would go on analysing for nobody.
// The signal follows the forking thread, which is safe here: run_isolated reaps every child
// before that thread can return.
void die_with_parent(pid_t parent) {
#ifdef __linux__
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(3);  // it died before the line above
#else
  (void)parent;
#endif
}

[[noreturn]] void child_main(int fd, const IsolatedTask& task) {
  task.body(*task.outcome);
  const std::string bytes = encode_outcome(*task.outcome);
  const std::uint64_t size = bytes.size();
  // A length prefix lets the parent stop reading without waiting for end-of-file.
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

// One task's child process, seen from the parent: its pipe, what it sent so far, its exit.
class Child {
 public:
  // Forks the child; false when no pipe or process could be had.
  bool start(const IsolatedTask& task) {
    int fds[2];
    if (::pipe(fds) != 0) return false;
    ::fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    ::fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    const pid_t parent = ::getpid();
    pid_ = ::fork();
    if (pid_ < 0) {
      ::close(fds[0]);
      ::close(fds[1]);
      return false;
    }
    if (pid_ == 0) {
      die_with_parent(parent);
      ::close(fds[0]);
      child_main(fds[1], task);
    }
    ::close(fds[1]);
    fd_ = fds[0];
    start_ = Clock::now();
    return true;
  }

  int fd() const { return fd_; }

  // Reads what the pipe holds; true once the child is done (result complete, pipe closed,
  // child exited or timed out).
  bool step(bool readable, double timeout_seconds) {
    if (readable && read_available()) return true;
    if (::waitpid(pid_, &status_, WNOHANG) == pid_) {
      exited_ = true;
      read_available();  // what it wrote before it exited
      return true;
    }
    const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
    if (timeout_seconds > 0 && elapsed > timeout_seconds) {
      ::kill(pid_, SIGKILL);
      timed_out_ = true;
      return true;
    }
    return false;
  }

  // Reaps the child and turns what it sent (or how it ended) into the outcome.
  void finish(findings::AnalyzerOutcome& outcome, double timeout_seconds) {
    ::close(fd_);
    if (!exited_) ::waitpid(pid_, &status_, 0);
    if (timed_out_) {
      char limit[32];
      std::snprintf(limit, sizeof limit, "%g", timeout_seconds);
      return fail(outcome, std::string("did not finish within ") + limit + " s and was stopped");
    }
    if (WIFSIGNALED(status_)) return fail(outcome, describe_signal(WTERMSIG(status_)));
    if (!WIFEXITED(status_) || WEXITSTATUS(status_) != 0 || !complete())
      return fail(outcome, "exited without a result (status " +
                               std::to_string(WIFEXITED(status_) ? WEXITSTATUS(status_) : -1) +
                               ")");
    if (!decode_outcome(std::string_view(received_).substr(0, expected_), outcome))
      return fail(outcome, "sent back a result that could not be read");
  }

 private:
  bool complete() const { return have_size_ && received_.size() >= expected_; }

  // Reads without blocking; true when the result is complete or the pipe is closed.
  bool read_available() {
    char buffer[1 << 16];
    while (true) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 0) <= 0) return false;
      const ssize_t n = ::read(fd_, buffer, sizeof buffer);
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (n <= 0) return true;  // every write end closed
      received_.append(buffer, static_cast<std::size_t>(n));
      if (!have_size_ && received_.size() >= sizeof expected_) {
        std::memcpy(&expected_, received_.data(), sizeof expected_);
        received_.erase(0, sizeof expected_);
        have_size_ = true;
      }
      if (complete()) return true;
    }
  }

  pid_t pid_ = -1;
  int fd_ = -1;
  Clock::time_point start_;
  std::string received_;
  std::uint64_t expected_ = 0;
  bool have_size_ = false, exited_ = false, timed_out_ = false;
  int status_ = 0;
};

enum class TaskState { kWaiting, kRunning, kDone };

}  // namespace

void run_isolated(std::vector<IsolatedTask>& tasks, int parallel, double timeout_seconds) {
  constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  const std::size_t limit = static_cast<std::size_t>(std::max(parallel, 1));
  std::vector<TaskState> state(tasks.size(), TaskState::kWaiting);
  std::vector<std::pair<std::size_t, Child>> running;  // task index, its child
  std::size_t done = 0;
  auto next_ready = [&] {
    for (std::size_t i = 0; i < tasks.size(); ++i)
      if (state[i] == TaskState::kWaiting &&
          std::all_of(tasks[i].after.begin(), tasks[i].after.end(),
                      [&](std::size_t d) { return state[d] == TaskState::kDone; }))
        return i;
    return kNone;
  };
  auto start_ready_tasks = [&] {
    for (std::size_t i; running.size() < limit && (i = next_ready()) != kNone;) {
      Child child;
      if (child.start(tasks[i])) {
        state[i] = TaskState::kRunning;
        running.emplace_back(i, std::move(child));
        continue;
      }
      tasks[i].body(*tasks[i].outcome);  // no process to spare: run here rather than not at all
      state[i] = TaskState::kDone;
      ++done;
    }
  };
  while (done < tasks.size()) {
    start_ready_tasks();
    if (running.empty()) break;  // what is left waits on a task that is not in the list
    std::vector<pollfd> fds;
    for (const auto& [i, child] : running) fds.push_back({child.fd(), POLLIN, 0});
    ::poll(fds.data(), fds.size(), 100);
    for (std::size_t k = running.size(); k-- > 0;) {  // backwards: erasing keeps fds[k] aligned
      auto& [i, child] = running[k];
      if (!child.step((fds[k].revents & (POLLIN | POLLHUP)) != 0, timeout_seconds)) continue;
      child.finish(*tasks[i].outcome, timeout_seconds);
      state[i] = TaskState::kDone;
      ++done;
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(k));
    }
  }
}

#else

void run_isolated(std::vector<IsolatedTask>& tasks, int, double) {
  std::vector<bool> done(tasks.size(), false);
  for (bool progress = true; progress;) {  // in dependency order, without processes
    progress = false;
    for (std::size_t i = 0; i < tasks.size(); ++i) {
      if (done[i] || !std::all_of(tasks[i].after.begin(), tasks[i].after.end(),
                                  [&](std::size_t d) { return done[d]; }))
        continue;
      tasks[i].body(*tasks[i].outcome);
      done[i] = progress = true;
    }
  }
}

#endif

}  // namespace traceprism::schedule
