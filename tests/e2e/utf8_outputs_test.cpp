// Invalid UTF-8 in a trace (the reader accepts it on purpose) never reaches an output: every
// file analyze, perf-report and compare write is valid UTF-8, findings.json parses as JSON and
// validate-report accepts the report (issue 19, defect 1).
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <string>

#include "io/utf8_text.hpp"
#include "support/run_cli.hpp"
#include "support/temp_dir.hpp"

namespace {

namespace fs = std::filesystem;
using traceprism::testing::run_program;
using traceprism::testing::shell_quote;

// An op, its launch and kernel, an input type and a python frame, each with invalid bytes: a
// lone Latin-1 byte, 0xFF, a truncated emoji, a surrogate.
const std::string kTrace =
    "{\"traceEvents\": ["
    "{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"model.py(1): f\xE9\", \"pid\": 1, "
    "\"tid\": 1, \"ts\": 990, \"dur\": 100},"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::m\xFFm\", \"pid\": 1, \"tid\": 1, "
    "\"ts\": 1000.5, \"dur\": 20, \"args\": {\"Input Dims\": [[64, 64], [64, 64]], "
    "\"Input type\": [\"c10::BF\xF0\x9F\x98\", \"float\"]}},"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, "
    "\"tid\": 1, \"ts\": 1001, \"dur\": 2, \"args\": {\"correlation\": 5}},"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm_\xED\xA0\x80_k\", \"pid\": 0, "
    "\"tid\": 7, \"ts\": 1010, \"dur\": 30, \"args\": {\"correlation\": 5, \"stream\": 7, "
    "\"device\": 0}},"
    "{\"ph\": \"s\", \"id\": 5, \"pid\": 1, \"tid\": 1, \"ts\": 1001, \"cat\": \"ac2g\", "
    "\"name\": \"ac2g\"},"
    "{\"ph\": \"f\", \"id\": 5, \"pid\": 0, \"tid\": 7, \"ts\": 1010, \"cat\": \"ac2g\", "
    "\"name\": \"ac2g\", \"bp\": \"e\"}]}";

void expect_every_file_valid_utf8(const std::string& folder) {
  std::size_t files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(folder)) {
    if (!entry.is_regular_file()) continue;
    ++files;
    const std::string text = traceprism::testing::read_file(entry.path().string());
    EXPECT_TRUE(traceprism::io::is_valid_utf8(text)) << entry.path();
    if (entry.path().filename() == "findings.json") {
      boost::system::error_code ec;
      boost::json::parse(text, ec);  // rejects invalid UTF-8 itself
      EXPECT_FALSE(ec) << entry.path() << ": " << ec.message();
    }
  }
  EXPECT_GT(files, 2u) << folder;
}

TEST(Utf8Outputs, InvalidBytesInNamesAndPathsNeverReachAnOutput) {
  traceprism::testing::TempDir dir;
  const std::string trace = dir.write("trace_\xE9.json", kTrace);
  const std::string report = dir.file("report"), sheets = dir.file("sheets"),
                    comparison = dir.file("comparison");
  std::string log;
  ASSERT_EQ(
      run_program(TRACEPRISM_BINARY,
                  "analyze -q --platform H100 " + shell_quote(trace) + " -o " + shell_quote(report),
                  &log),
      0)
      << log;
  expect_every_file_valid_utf8(report);
  EXPECT_EQ(run_program(TRACEPRISM_BINARY, "validate-report " + shell_quote(report), &log), 0)
      << log;

  ASSERT_EQ(
      run_program(TRACEPRISM_BINARY,
                  "perf-report -q " + shell_quote(trace) + " -o " + shell_quote(sheets), &log),
      0)
      << log;
  expect_every_file_valid_utf8(sheets);

  ASSERT_EQ(run_program(TRACEPRISM_BINARY,
                        "compare -q --platform H100 " + shell_quote(trace) + " " +
                            shell_quote(trace) + " -o " + shell_quote(comparison),
                        &log),
            0)
      << log;
  expect_every_file_valid_utf8(comparison);
}

}  // namespace
