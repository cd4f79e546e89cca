// Capture-folder classification (inference-mode spec §1.3) on the shared inference cases: each
// capture trace classified from its events (the folder's execution_details.json set aside)
// must give that file byte for byte (vLLM decode and piecewise by their capture annotations,
// SGLang by the inferred path), and reading the file back gives the same entries.
#include <gtest/gtest.h>

#include <filesystem>

#include "ingest/trace_reader.hpp"
#include "model/capture_folder.hpp"
#include "support/shared_traces.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;

namespace {

std::vector<std::string> cases() {
  const fs::path root = traceprism::testing::shared_traces() / "tracelens" / "inference";
  std::vector<std::string> out;
  std::error_code ec;
  if (fs::is_directory(root, ec))
    for (const auto& e : fs::directory_iterator(root))
      if (fs::exists(e.path() / "capture_traces" / "execution_details.json"))
        out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  if (out.empty()) out.push_back("shared_traces_absent");
  return out;
}

class CaptureClassificationGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(CaptureClassificationGolden, RegeneratesExecutionDetails) {
  if (GetParam() == "shared_traces_absent") GTEST_SKIP() << "no shared inference traces";
  const fs::path folder = traceprism::testing::shared_traces() / "tracelens" / "inference" /
                          GetParam() / "capture_traces";
  std::vector<traceprism::model::CaptureTrace> classified;
  for (const fs::path& file : traceprism::model::capture_trace_files(folder)) {
    const auto trace = traceprism::ingest::read_trace(file.string());
    classified.push_back(
        traceprism::model::classify_capture_trace(trace.index, file.filename().string()));
  }
  const std::string golden =
      traceprism::testing::read_file((folder / "execution_details.json").string());
  EXPECT_EQ(traceprism::model::execution_details_json(classified), golden);
  const auto read_back = traceprism::model::parse_execution_details(golden, "golden");
  ASSERT_EQ(read_back.size(), classified.size());
  for (std::size_t i = 0; i < read_back.size(); ++i) {
    EXPECT_EQ(read_back[i].file, classified[i].file);
    EXPECT_EQ(read_back[i].batch_size, classified[i].batch_size);
    EXPECT_EQ(read_back[i].mode, classified[i].mode);
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, CaptureClassificationGolden, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param; });

}  // namespace
