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
#include <poll.h>
#include <sys/socket.h>
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
using findings::AnalyzerOutcome;

bool write_all(int fd, const void* data, std::size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    // Sockets, not pipes: MSG_NOSIGNAL turns a dead reader into EPIPE rather than SIGPIPE.
    const ssize_t n = ::send(fd, p, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

bool read_all(int fd, void* data, std::size_t size) {
  char* p = static_cast<char*>(data);
  while (size > 0) {
    const ssize_t n = ::read(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

// A length prefix lets the reader stop without waiting for end-of-file.
bool write_message(int fd, const std::string& bytes) {
  const std::uint64_t size = bytes.size();
  return write_all(fd, &size, sizeof size) && write_all(fd, bytes.data(), bytes.size());
}

bool read_message(int fd, std::string& bytes) {
  std::uint64_t size = 0;
  if (!read_all(fd, &size, sizeof size)) return false;
  bytes.resize(size);
  return read_all(fd, bytes.data(), size);
}

// A run killed by SIGKILL cannot stop its workers: they would go on analysing for nobody.
// The signal follows the forking thread, which is safe here: run_isolated reaps every worker
// before that thread can return.
void die_with_parent(pid_t parent) {
#ifdef __linux__
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(3);  // it died before the line above
#else
  (void)parent;
#endif
}

// The worker process: for each request (a task index, then the outcomes of the tasks it waits
// for that finished after this worker was forked), runs the body and sends its outcome back.
// The parent closing the request socket ends it.
[[noreturn]] void worker_main(int requests, int results, std::vector<IsolatedTask>& tasks) {
  std::string message;
  while (read_message(requests, message)) {
    std::uint64_t task = 0, dependencies = 0;
    std::size_t at = 0;
    const auto take = [&](std::uint64_t& v) {
      if (message.size() - at < sizeof v) ::_exit(3);
      std::memcpy(&v, message.data() + at, sizeof v);
      at += sizeof v;
    };
    take(task);
    take(dependencies);
    for (std::uint64_t k = 0; k < dependencies; ++k) {
      std::uint64_t index = 0, size = 0;
      take(index);
      take(size);
      if (index >= tasks.size() || message.size() - at < size ||
          !decode_outcome(std::string_view(message).substr(at, size), *tasks[index].outcome))
        ::_exit(3);
      at += size;
    }
    if (task >= tasks.size()) ::_exit(3);
    AnalyzerOutcome& slot = *tasks[task].outcome;
    // The parent's slot stays as it was until the result comes back decoded; this copy does too,
    // so that a later task here that reads it gets the decoded result, as in the parent.
    const AnalyzerOutcome before_run = slot;
    tasks[task].body(slot);
    const bool sent = write_message(results, encode_outcome(slot));
    slot = before_run;
    if (!sent) ::_exit(3);
  }
  ::_exit(0);  // no atexit handlers, no stdio flush of the parent's buffers
}

std::string describe_signal(int sig) {
  const char* name = ::strsignal(sig);
  return "crashed (signal " + std::to_string(sig) + ": " + (name ? name : "unknown") + ")";
}

void fail(AnalyzerOutcome& outcome, std::string why) {
  outcome.status = findings::AnalyzerStatus::kFailed;
  outcome.error = std::move(why);
  outcome.findings.clear();
}

// One worker process seen from the parent: the socket it reads requests from, the one it
// answers on, and the task it runs. A worker serves several tasks in turn, which saves a fork
// per analyzer (about 0.1 s each on a 650 MB process, docs/performance.md); one that crashes,
// hangs or exits ends with the task it was running, and the next tasks go to a new worker.
class Worker {
 public:
  static constexpr std::size_t kIdle = static_cast<std::size_t>(-1);

  // Forks the worker; false when no socket or process could be had.
  // `others` holds the parent's ends of the other workers' channels: the new worker closes its
  // copies, or an older worker would never see the end of its requests.
  bool start(std::vector<IsolatedTask>& tasks, std::uint64_t completed_so_far,
             const std::vector<int>& others) {
    int request_fds[2], result_fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, request_fds) != 0) return false;
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, result_fds) != 0) {
      ::close(request_fds[0]);
      ::close(request_fds[1]);
      return false;
    }
    const pid_t parent = ::getpid();
    pid_ = ::fork();
    if (pid_ == 0) {
      die_with_parent(parent);
      for (int fd : others) ::close(fd);
      ::close(request_fds[0]);
      ::close(result_fds[0]);
      worker_main(request_fds[1], result_fds[1], tasks);
    }
    ::close(request_fds[1]);
    ::close(result_fds[1]);
    if (pid_ < 0) {
      ::close(request_fds[0]);
      ::close(result_fds[0]);
      return false;
    }
    requests_ = request_fds[0];
    results_ = result_fds[0];
    forked_after_ = completed_so_far;
    return true;
  }

  bool idle() const { return task_ == kIdle; }
  std::size_t task() const { return task_; }
  int result_fd() const { return results_; }

  // Sends `task` with the outcomes of the tasks it waits for that this worker has not seen
  // (`completion[d]` counts the tasks finished when d finished, from 1).
  void send(std::size_t task, const std::vector<IsolatedTask>& tasks,
            const std::vector<std::uint64_t>& completion) {
    std::string message;
    const auto put = [&](std::uint64_t v) {
      message.append(reinterpret_cast<char*>(&v), sizeof v);
    };
    std::vector<std::size_t> unseen;
    for (std::size_t d : tasks[task].after)
      if (completion[d] > forked_after_) unseen.push_back(d);
    put(task);
    put(unseen.size());
    for (std::size_t d : unseen) {
      const std::string bytes = encode_outcome(*tasks[d].outcome);
      put(d);
      put(bytes.size());
      message += bytes;
    }
    task_ = task;
    start_ = Clock::now();
    received_.clear();
    if (!write_message(requests_, message)) lost_ = true;  // it died: step() reaps it
  }

  // Reads what the socket holds; true once the running task is done (its result complete, or
  // the worker gone or timed out).
  bool step(bool readable, double timeout_seconds) {
    if (readable && read_available()) return true;
    if (lost_ || ::waitpid(pid_, &status_, WNOHANG) == pid_) {
      if (!exited_ && lost_) ::waitpid(pid_, &status_, 0);
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

  // Turns what the worker sent (or how it ended) into the task's outcome; afterwards the
  // worker is idle, or gone when it did not answer.
  void finish(AnalyzerOutcome& outcome, double timeout_seconds) {
    task_ = kIdle;
    if (complete() && !timed_out_) {
      if (!decode_outcome(std::string_view(received_).substr(sizeof(std::uint64_t), expected()),
                          outcome))
        fail(outcome, "sent back a result that could not be read");
      received_.clear();
      return;
    }
    stop();
    if (timed_out_) {
      char limit[32];
      std::snprintf(limit, sizeof limit, "%g", timeout_seconds);
      return fail(outcome, std::string("did not finish within ") + limit + " s and was stopped");
    }
    if (WIFSIGNALED(status_)) return fail(outcome, describe_signal(WTERMSIG(status_)));
    fail(outcome, "exited without a result (status " +
                      std::to_string(WIFEXITED(status_) ? WEXITSTATUS(status_) : -1) + ")");
  }

  bool alive() const { return pid_ > 0; }
  void add_channels(std::vector<int>& fds) const {
    if (alive()) fds.insert(fds.end(), {requests_, results_});
  }

  // Ends an idle worker (end-of-file on its requests) or reaps a dead one.
  void stop() {
    if (pid_ <= 0) return;
    ::close(requests_);
    ::close(results_);
    if (!exited_) ::waitpid(pid_, &status_, 0);
    pid_ = -1;
  }

 private:
  std::uint64_t expected() const {
    std::uint64_t size = 0;
    std::memcpy(&size, received_.data(), sizeof size);
    return size;
  }
  bool complete() const {
    return received_.size() >= sizeof(std::uint64_t) &&
           received_.size() - sizeof(std::uint64_t) >= expected();
  }

  // Reads without blocking; true when the result is complete or the socket is closed.
  bool read_available() {
    char buffer[1 << 16];
    while (true) {
      pollfd p{results_, POLLIN, 0};
      if (::poll(&p, 1, 0) <= 0) return false;
      const ssize_t n = ::read(results_, buffer, sizeof buffer);
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (n <= 0) return true;  // every write end closed
      received_.append(buffer, static_cast<std::size_t>(n));
      if (complete()) return true;
    }
  }

  pid_t pid_ = -1;
  int requests_ = -1, results_ = -1;
  std::size_t task_ = kIdle;
  std::uint64_t forked_after_ = 0;
  Clock::time_point start_;
  std::string received_;
  bool exited_ = false, timed_out_ = false, lost_ = false;
  int status_ = 0;
};

enum class TaskState { kWaiting, kRunning, kDone };

}  // namespace

void run_isolated(std::vector<IsolatedTask>& tasks, int parallel, double timeout_seconds) {
  constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  const std::size_t limit = static_cast<std::size_t>(std::max(parallel, 1));
  std::vector<TaskState> state(tasks.size(), TaskState::kWaiting);
  std::vector<std::uint64_t> completion(tasks.size(), 0);
  std::vector<Worker> workers;
  std::uint64_t done = 0;
  const auto finished = [&](std::size_t i) {
    state[i] = TaskState::kDone;
    completion[i] = ++done;
  };
  const auto next_ready = [&] {
    for (std::size_t i = 0; i < tasks.size(); ++i)
      if (state[i] == TaskState::kWaiting &&
          std::all_of(tasks[i].after.begin(), tasks[i].after.end(),
                      [&](std::size_t d) { return state[d] == TaskState::kDone; }))
        return i;
    return kNone;
  };
  const auto idle_worker = [&]() -> Worker* {
    for (Worker& w : workers)
      if (w.alive() && w.idle()) return &w;
    std::erase_if(workers, [](const Worker& w) { return !w.alive(); });
    if (workers.size() >= limit) return nullptr;
    std::vector<int> others;
    for (const Worker& running : workers) running.add_channels(others);
    Worker w;
    if (!w.start(tasks, done, others)) return nullptr;
    workers.push_back(std::move(w));
    return &workers.back();
  };
  const auto start_ready_tasks = [&] {
    for (std::size_t i; (i = next_ready()) != kNone;) {
      Worker* w = idle_worker();
      if (w) {
        state[i] = TaskState::kRunning;
        w->send(i, tasks, completion);
        continue;
      }
      const bool busy = std::any_of(workers.begin(), workers.end(),
                                    [](const Worker& w) { return w.alive() && !w.idle(); });
      if (busy) return;
      tasks[i].body(*tasks[i].outcome);  // no process to spare: run here rather than not at all
      finished(i);
    }
  };
  while (done < tasks.size()) {
    start_ready_tasks();
    std::vector<Worker*> running;
    for (Worker& w : workers)
      if (w.alive() && !w.idle()) running.push_back(&w);
    if (running.empty()) break;  // what is left waits on a task that is not in the list
    std::vector<pollfd> fds;
    for (const Worker* w : running) fds.push_back({w->result_fd(), POLLIN, 0});
    ::poll(fds.data(), fds.size(), 100);
    for (std::size_t k = 0; k < running.size(); ++k) {
      Worker& w = *running[k];
      if (!w.step((fds[k].revents & (POLLIN | POLLHUP)) != 0, timeout_seconds)) continue;
      const std::size_t i = w.task();
      w.finish(*tasks[i].outcome, timeout_seconds);
      finished(i);
    }
  }
  for (Worker& w : workers) w.stop();
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
