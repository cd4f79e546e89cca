// Isolated analyzers (schedule/isolated_call.hpp): each body in its own child process, at most
// `parallel` at once, each after the tasks it depends on; a crash or hang fails only its task.
#include "schedule/isolated_call.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "support/temp_dir.hpp"

namespace traceprism::schedule {
namespace {

using findings::AnalyzerOutcome;
using findings::AnalyzerStatus;

// A chain a -> b -> c where each records what it read from the one before, plus two
// independent tasks; the outcomes come back from the children.
std::vector<AnalyzerOutcome> run_chain(int parallel) {
  std::vector<AnalyzerOutcome> out(5);
  std::vector<IsolatedTask> tasks(5);
  for (std::size_t i = 0; i < tasks.size(); ++i) tasks[i].outcome = &out[i];
  // Listed before what they wait for, so list order alone would read an empty outcome.
  tasks[0].body = [&](AnalyzerOutcome& o) { o.figures = {{"c", out[1].figures.at(0).second + 1}}; };
  tasks[0].after = {1};
  tasks[1].body = [&](AnalyzerOutcome& o) { o.figures = {{"b", out[2].figures.at(0).second + 1}}; };
  tasks[1].after = {2};
  tasks[2].body = [](AnalyzerOutcome& o) { o.figures = {{"a", 1}}; };
  tasks[3].body = [](AnalyzerOutcome& o) { o.error = "independent"; };
  tasks[4].body = [](AnalyzerOutcome& o) { o.status = AnalyzerStatus::kSkipped; };
  run_isolated(tasks, parallel, 0);
  return out;
}

TEST(IsolatedCall, DependentsReadTheOutcomesOfWhatTheyWaitFor) {
  for (int parallel : {1, 2, 4}) {
    SCOPED_TRACE("parallel " + std::to_string(parallel));
    const std::vector<AnalyzerOutcome> out = run_chain(parallel);
    ASSERT_EQ(out[0].figures.size(), 1u);
    EXPECT_EQ(out[0].figures[0], (std::pair<std::string, double>{"c", 3}));
    EXPECT_EQ(out[1].figures[0], (std::pair<std::string, double>{"b", 2}));
    EXPECT_EQ(out[3].error, "independent");
    EXPECT_EQ(out[4].status, AnalyzerStatus::kSkipped);
  }
}

TEST(IsolatedCall, ACrashFailsOnlyItsTaskAndItsDependentStillRuns) {
  std::vector<AnalyzerOutcome> out(3);
  std::vector<IsolatedTask> tasks(3);
  for (std::size_t i = 0; i < tasks.size(); ++i) tasks[i].outcome = &out[i];
  // SIGKILL rather than a fault: a sanitizer would spend seconds reporting a fault.
  tasks[0].body = [](AnalyzerOutcome&) { ::kill(::getpid(), SIGKILL); };
  tasks[1].body = [&](AnalyzerOutcome& o) {
    o.error = out[0].status == AnalyzerStatus::kFailed ? "saw the failure" : "did not";
  };
  tasks[1].after = {0};
  tasks[2].body = [](AnalyzerOutcome& o) { o.error = "fine"; };
  run_isolated(tasks, 2, 0);
  EXPECT_EQ(out[0].status, AnalyzerStatus::kFailed);
  EXPECT_EQ(out[0].error, "crashed (signal 9: Killed)");
  EXPECT_EQ(out[1].status, AnalyzerStatus::kOk);
  EXPECT_EQ(out[1].error, "saw the failure");
  EXPECT_EQ(out[2].error, "fine");
}

TEST(IsolatedCall, AHangIsStoppedAtTheTimeoutWhileTheOthersFinish) {
  std::vector<AnalyzerOutcome> out(2);
  std::vector<IsolatedTask> tasks(2);
  for (std::size_t i = 0; i < tasks.size(); ++i) tasks[i].outcome = &out[i];
  tasks[0].body = [](AnalyzerOutcome&) { std::this_thread::sleep_for(std::chrono::seconds(60)); };
  tasks[1].body = [](AnalyzerOutcome& o) { o.error = "fine"; };
  run_isolated(tasks, 2, 0.5);
  EXPECT_EQ(out[0].status, AnalyzerStatus::kFailed);
  EXPECT_EQ(out[0].error, "did not finish within 0.5 s and was stopped");
  EXPECT_EQ(out[1].error, "fine");
}

// A worker process serves several tasks in turn (one fork per worker, not per analyzer), and
// never the parent's: each task reports the process it ran in.
TEST(IsolatedCall, ParallelWorkersServeAllTheTasks) {
  for (int parallel : {1, 2, 3}) {
    SCOPED_TRACE("parallel " + std::to_string(parallel));
    std::vector<AnalyzerOutcome> out(9);
    std::vector<IsolatedTask> tasks(9);
    for (std::size_t i = 0; i < tasks.size(); ++i) {
      tasks[i].outcome = &out[i];
      tasks[i].body = [](AnalyzerOutcome& o) { o.figures = {{"pid", double(::getpid())}}; };
    }
    tasks[8].after = {0, 1, 2, 3};  // started once they finished, in any worker
    run_isolated(tasks, parallel, 0);
    std::set<double> pids;
    for (const AnalyzerOutcome& o : out) {
      ASSERT_EQ(o.figures.size(), 1u) << o.error;
      pids.insert(o.figures[0].second);
    }
    EXPECT_EQ(pids.count(double(::getpid())), 0u);
    EXPECT_LE(pids.size(), static_cast<std::size_t>(parallel));
  }
}

// After a crash the worker is replaced; the tasks after it, and those that read the failed
// task's outcome, still run.
TEST(IsolatedCall, ACrashedWorkerIsReplaced) {
  std::vector<AnalyzerOutcome> out(4);
  std::vector<IsolatedTask> tasks(4);
  for (std::size_t i = 0; i < tasks.size(); ++i) tasks[i].outcome = &out[i];
  tasks[0].body = [](AnalyzerOutcome& o) { o.error = "first"; };
  tasks[1].body = [](AnalyzerOutcome&) { ::kill(::getpid(), SIGKILL); };
  tasks[1].after = {0};
  tasks[2].body = [&](AnalyzerOutcome& o) { o.error = out[0].error + " then " + out[1].error; };
  tasks[2].after = {1};
  tasks[3].body = [](AnalyzerOutcome& o) { o.error = "last"; };
  run_isolated(tasks, 1, 0);
  EXPECT_EQ(out[0].error, "first");
  EXPECT_EQ(out[1].error, "crashed (signal 9: Killed)");
  EXPECT_EQ(out[2].error, "first then crashed (signal 9: Killed)");
  EXPECT_EQ(out[3].error, "last");
}

// A run killed by SIGKILL takes its analyzers with it rather than leave them running for
// nobody. The run here is a forked process whose one task reports its pid and sleeps.
TEST(IsolatedCall, TheChildrenOfAKilledRunEndWithIt) {
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  const pid_t run = ::fork();
  ASSERT_GE(run, 0);
  if (run == 0) {
    AnalyzerOutcome out;
    std::vector<IsolatedTask> tasks(1);
    tasks[0].outcome = &out;
    tasks[0].body = [&](AnalyzerOutcome&) {
      const pid_t self = ::getpid();
      if (::write(pipe_fds[1], &self, sizeof self) == sizeof self)
        std::this_thread::sleep_for(std::chrono::seconds(60));
    };
    run_isolated(tasks, 1, 0);
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  pid_t analyzer = -1;
  ASSERT_EQ(::read(pipe_fds[0], &analyzer, sizeof analyzer), static_cast<ssize_t>(sizeof analyzer));
  ::close(pipe_fds[0]);
  ::kill(run, SIGKILL);
  ::waitpid(run, nullptr, 0);
  // Gone, or a zombie waiting for whoever adopted it: /proc/PID/stat's state after the ")".
  const auto alive = [analyzer] {
    const std::string stat = testing::read_file("/proc/" + std::to_string(analyzer) + "/stat");
    const auto paren = stat.rfind(')');
    return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] != 'Z';
  };
  for (int waited_ms = 0; alive() && waited_ms < 20000; waited_ms += 10)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_FALSE(alive()) << "the analyzer of the killed run still runs";
  ::kill(analyzer, SIGKILL);
}

}  // namespace
}  // namespace traceprism::schedule
