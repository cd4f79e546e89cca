// A report folder is replaced as a whole (issue 19, defect 2): no sheet of an earlier run stays
// behind, a second run into the folder is refused, a run stopped by a signal or a write error
// leaves the previous complete report and no temporaries, and SIGKILL at any moment leaves the
// previous report or the new one.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "support/run_cli.hpp"
#include "support/temp_dir.hpp"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using traceprism::testing::read_file;
using traceprism::testing::run_program;
using traceprism::testing::shell_quote;

// A traceprism process the test can signal; stdout and stderr go to /dev/null.
class Child {
 public:
  Child(const std::vector<std::string>& args, const std::vector<std::string>& extra_env) {
    std::vector<std::string> env;
    for (char** e = environ; *e; ++e) env.emplace_back(*e);
    env.insert(env.end(), extra_env.begin(), extra_env.end());
    std::vector<char*> argv{const_cast<char*>(TRACEPRISM_BINARY)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    std::vector<char*> envp;
    for (auto& e : env) envp.push_back(e.data());
    envp.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    if (posix_spawn(&pid_, TRACEPRISM_BINARY, &actions, nullptr, argv.data(), envp.data()) != 0)
      pid_ = -1;
    posix_spawn_file_actions_destroy(&actions);
  }
  ~Child() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      wait();
    }
  }
  pid_t pid() const { return pid_; }
  // The wait status.
  int wait() {
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    return status;
  }

 private:
  pid_t pid_ = -1;
};

class ReportFolder : public ::testing::Test {
 protected:
  void SetUp() override {
    trace_ = dir_.file("t.json");
    ASSERT_EQ(run_program(TRACEPRISM_BINARY,
                          "synth -o " + shell_quote(trace_) + " --layers 2 --steps 2 --seed 5"),
              0);
    report_ = dir_.file("report");
  }
  int analyze(const std::string& extra = "") {
    return run_program(TRACEPRISM_BINARY,
                       "analyze -q " + shell_quote(trace_) + " -o " + shell_quote(report_) + extra,
                       &output_);
  }
  bool valid() {
    return run_program(TRACEPRISM_BINARY, "validate-report " + shell_quote(report_), &output_) == 0;
  }
  std::string manifest() const { return read_file(report_ + "/report_manifest.json"); }
  // Entries beside the report that a run creates for itself (.report.lock, .report.tmp.PID).
  std::vector<std::string> temporaries() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir_.path())) {
      const std::string name = e.path().filename().string();
      if (name.starts_with(".report.")) out.push_back(name);
    }
    for (const auto& e : fs::recursive_directory_iterator(report_))
      if (e.path().filename().string().find(".tmp.") != std::string::npos)
        out.push_back(e.path().string());
    return out;
  }
  // Waits until the run's staging folder holds its manifest: the report is complete, not yet
  // in place (the run pauses there under TRACEPRISM_TEST_PAUSE_BEFORE_SWAP_MS).
  bool wait_for_complete_staging(pid_t pid) {
    const std::string manifest_path =
        dir_.file(".report.tmp." + std::to_string(pid)) + "/report_manifest.json";
    for (int i = 0; i < 600; ++i) {
      if (fs::exists(manifest_path)) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }
  std::vector<std::string> paused_run_args() const {
    return {"analyze", "-q", trace_, "-o", report_};
  }

  traceprism::testing::TempDir dir_;
  std::string trace_, report_, output_;
};

TEST_F(ReportFolder, AFileOfAnEarlierRunDoesNotStayBehind) {
  ASSERT_EQ(analyze(), 0) << output_;
  {
    std::ofstream stale(report_ + "/perf_report_csvs/kernel_launchers.csv");
    stale << "name\nstale\n";
  }
  EXPECT_FALSE(valid());
  EXPECT_NE(output_.find("perf_report_csvs/kernel_launchers.csv:0: not listed in the manifest"),
            std::string::npos)
      << output_;
  ASSERT_EQ(analyze(), 0) << output_;
  EXPECT_FALSE(fs::exists(report_ + "/perf_report_csvs/kernel_launchers.csv"));
  EXPECT_TRUE(valid()) << output_;
  EXPECT_TRUE(temporaries().empty());
}

TEST_F(ReportFolder, AFolderHoldingOtherFilesIsNeverReplaced) {
  fs::create_directories(report_);
  {
    std::ofstream notes(report_ + "/notes.txt");
    notes << "mine";
  }
  EXPECT_EQ(analyze(), 3);
  EXPECT_NE(output_.find("it holds notes.txt, which no traceprism report writes"),
            std::string::npos)
      << output_;
  EXPECT_EQ(read_file(report_ + "/notes.txt"), "mine");
  EXPECT_TRUE(temporaries().empty());
}

TEST_F(ReportFolder, ASecondRunIntoTheFolderIsRefusedWhileTheFirstWrites) {
  Child first(paused_run_args(), {"TRACEPRISM_TEST_PAUSE_BEFORE_SWAP_MS=3000"});
  ASSERT_TRUE(wait_for_complete_staging(first.pid()));
  EXPECT_EQ(analyze(), 3);
  EXPECT_NE(output_.find("another traceprism run is writing this folder"), std::string::npos)
      << output_;
  const int status = first.wait();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_TRUE(valid()) << output_;
  EXPECT_TRUE(temporaries().empty());
}

TEST_F(ReportFolder, AStopSignalLeavesThePreviousReportAndNoTemporaries) {
  ASSERT_EQ(analyze(), 0) << output_;
  const std::string previous = manifest();
  fs::remove(trace_);  // the next runs would write a different report
  ASSERT_EQ(run_program(TRACEPRISM_BINARY,
                        "synth -o " + shell_quote(trace_) + " --layers 1 --steps 1 --seed 9"),
            0);
  for (int signal_number : {SIGINT, SIGTERM, SIGHUP}) {
    Child run(paused_run_args(), {"TRACEPRISM_TEST_PAUSE_BEFORE_SWAP_MS=3000"});
    ASSERT_TRUE(wait_for_complete_staging(run.pid()));
    ::kill(run.pid(), signal_number);
    const int status = run.wait();
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == signal_number) << signal_number;
    EXPECT_EQ(manifest(), previous) << signal_number;
    EXPECT_TRUE(valid()) << output_;
    EXPECT_TRUE(temporaries().empty()) << signal_number << ": " << temporaries().front();
  }
}

// SIGKILL cannot be caught: at every moment the folder is the previous complete report or the
// new one, and the next run removes what the killed one left.
TEST_F(ReportFolder, SigkillAtAnyMomentLeavesACompleteReport) {
  ASSERT_EQ(analyze(), 0) << output_;
  const std::string previous = manifest();
  ASSERT_EQ(run_program(TRACEPRISM_BINARY,
                        "synth -o " + shell_quote(trace_) + " --layers 1 --steps 1 --seed 9"),
            0);
  {
    Child paused(paused_run_args(), {"TRACEPRISM_TEST_PAUSE_BEFORE_SWAP_MS=3000"});
    ASSERT_TRUE(wait_for_complete_staging(paused.pid()));
    ::kill(paused.pid(), SIGKILL);
    paused.wait();
  }
  EXPECT_EQ(manifest(), previous);
  EXPECT_TRUE(valid()) << output_;
  std::string next;
  for (int delay_ms : {0, 20, 50, 100, 150, 200, 300, 400, 600, 900}) {
    Child run(paused_run_args(), {});
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    ::kill(run.pid(), SIGKILL);
    run.wait();
    EXPECT_TRUE(valid()) << delay_ms << " ms: " << output_;
    if (manifest() != previous) next = manifest();
  }
  ASSERT_EQ(analyze(), 0) << output_;
  if (!next.empty()) {
    EXPECT_EQ(manifest(), next);  // a killed run's report was the new one, whole
  }
  EXPECT_TRUE(temporaries().empty());
}

// A write that fails part-way (here a file size limit, as a full disk would) keeps the previous
// report whole.
TEST_F(ReportFolder, AWriteErrorKeepsThePreviousReport) {
  ASSERT_EQ(analyze(), 0) << output_;
  const std::string previous = manifest();
  ASSERT_EQ(run_program(TRACEPRISM_BINARY,
                        "synth -o " + shell_quote(trace_) + " --layers 1 --steps 1 --seed 9"),
            0);
  const std::string command = "trap '' XFSZ; ulimit -f 8; exec " + shell_quote(TRACEPRISM_BINARY) +
                              " analyze -q " + shell_quote(trace_) + " -o " + shell_quote(report_);
  EXPECT_EQ(run_program("sh", "-c " + shell_quote(command), &output_), 3);
  EXPECT_NE(output_.find("File too large"), std::string::npos) << output_;
  EXPECT_EQ(manifest(), previous);
  EXPECT_TRUE(valid()) << output_;
  EXPECT_TRUE(temporaries().empty());
}

}  // namespace
