// Command-line mistakes and an unwritable standard output (issue 19, defects 5, 6 and 11): each
// gets one clear sentence and a non-zero exit status, never a crash or a misleading success.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "support/run_cli.hpp"
#include "support/temp_dir.hpp"

namespace {

using traceprism::testing::run_program;
using traceprism::testing::shell_quote;

class CommandLine : public ::testing::Test {
 protected:
  void SetUp() override {
    trace_ = dir_.file("t.json");
    ASSERT_EQ(run_program(TRACEPRISM_BINARY,
                          "synth -o " + shell_quote(trace_) + " --layers 1 --steps 1 --seed 3"),
              0);
  }
  int run(const std::string& args) { return run_program(TRACEPRISM_BINARY, args, &output_); }

  traceprism::testing::TempDir dir_;
  std::string trace_;
  std::string output_;
};

TEST_F(CommandLine, AnUnknownCommandIsNamedWithTheCommandsThereAre) {
  EXPECT_EQ(run("frobnicate " + shell_quote(trace_)), 64);
  EXPECT_NE(output_.find("'frobnicate' is not a traceprism command"), std::string::npos) << output_;
  EXPECT_NE(output_.find("analyze, compare"), std::string::npos) << output_;
}

TEST_F(CommandLine, JobsOutsideItsRangeAreRefusedWithTheRange) {
  for (const char* jobs : {"70000", "-1"}) {
    EXPECT_EQ(run("analyze -q " + shell_quote(trace_) + " -o " + shell_quote(dir_.file("r")) +
                  " --jobs " + jobs),
              64)
        << jobs;
    EXPECT_NE(output_.find("not in range 0 to 1024"), std::string::npos) << output_;
    EXPECT_LT(output_.size(), 200u) << output_;  // no 309-digit bound
  }
  EXPECT_FALSE(std::filesystem::exists(dir_.file("r")));
}

TEST_F(CommandLine, MoreJobsThanCoresGiveTheSameReport) {
  ASSERT_EQ(
      run("analyze -q " + shell_quote(trace_) + " -o " + shell_quote(dir_.file("a")) + " --jobs 1"),
      0)
      << output_;
  ASSERT_EQ(run("analyze -q " + shell_quote(trace_) + " -o " + shell_quote(dir_.file("b")) +
                " --jobs 1024"),
            0)
      << output_;
  EXPECT_TRUE(output_.empty()) << output_;  // no oneTBB warning about the thread count
  EXPECT_EQ(traceprism::testing::read_file(dir_.file("a/findings.json")),
            traceprism::testing::read_file(dir_.file("b/findings.json")));
}

TEST_F(CommandLine, AReportFolderCannotGoToStandardOutput) {
  for (const std::string command : {"analyze", "perf-report"}) {
    EXPECT_EQ(run(command + " -q " + shell_quote(trace_) + " -o -"), 64) << command;
    EXPECT_NE(output_.find("cannot go to standard output"), std::string::npos) << output_;
  }
  EXPECT_FALSE(std::filesystem::exists(dir_.file("-")));
}

TEST_F(CommandLine, AFailedWriteToStandardOutputIsAnError) {
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full on this system";
  const std::string errors = dir_.file("stderr");
  const std::string command = shell_quote(TRACEPRISM_BINARY) + " inspect " + shell_quote(trace_) +
                              " >/dev/full 2>" + shell_quote(errors);
  EXPECT_EQ(run_program("sh", "-c " + shell_quote(command)), 3);
  EXPECT_NE(traceprism::testing::read_file(errors).find("cannot write to standard output"),
            std::string::npos);
}

// Defect 3: `analyze DIR/findings.json -o DIR` replaced the trace with the report; a symlink
// named like an output did the same to the file it points to.
TEST_F(CommandLine, NoOutputReplacesTheTraceItReads) {
  const std::string folder = dir_.file("report");
  std::filesystem::create_directory(folder);
  const std::string trace_as_output = folder + "/findings.json";
  std::filesystem::copy_file(trace_, trace_as_output);
  const std::string original = traceprism::testing::read_file(trace_);
  EXPECT_EQ(run("analyze -q " + shell_quote(trace_as_output) + " -o " + shell_quote(folder)), 3);
  EXPECT_NE(
      output_.find("/report/findings.json, which this run reads; choose another output folder"),
      std::string::npos)
      << output_;
  EXPECT_EQ(traceprism::testing::read_file(trace_as_output), original);

  std::filesystem::create_symlink(trace_, folder + "/analysis.md");
  EXPECT_EQ(run("analyze -q " + shell_quote(trace_) + " -o " + shell_quote(folder)), 3);
  EXPECT_EQ(traceprism::testing::read_file(trace_), original);
  EXPECT_TRUE(std::filesystem::is_symlink(folder + "/analysis.md"));
}

// Defect 9: a configuration or report file pointed at an endless device was read forever.
TEST_F(CommandLine, AnEndlessConfigurationFileIsRefusedWithItsName) {
  if (!std::filesystem::exists("/dev/zero")) GTEST_SKIP() << "no /dev/zero on this system";
  EXPECT_NE(run("analyze -q " + shell_quote(trace_) + " -o " + shell_quote(dir_.file("r")) +
                " --config /dev/zero"),
            0);
  EXPECT_NE(output_.find("/dev/zero: is larger than 256 MiB; expected a JSON configuration file"),
            std::string::npos)
      << output_;
}

}  // namespace
