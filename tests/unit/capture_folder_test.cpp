// The capture folder's building blocks (inference-mode spec §1.3, §3.3) on small inputs:
// classification by annotations or by the inferred path, the file list, the JSON round trip,
// and the choice of a capture for a replayed step.
#include <gtest/gtest.h>

#include <fstream>

#include "io/input_error.hpp"
#include "model/capture_folder.hpp"
#include "pipeline/trace_load.hpp"
#include "support/temp_dir.hpp"
#include "support/trace_builder.hpp"

namespace traceprism::model {
namespace {

index::EventIndex load(testing::TempDir& dir, const testing::TraceText& t) {
  pipeline::LoadOptions options;
  options.quiet = true;
  return std::move(pipeline::load_trace(dir.write("c.json", t.str()), options).file.index);
}

TEST(CaptureFolder, AnnotationsClassifyWhenTheyMatchTheDummyRuns) {
  testing::TraceText t;
  for (int i = 0; i < 2; ++i)
    t.x("python_function", "vllm/v1/worker/gpu_model_runner.py(2345): _dummy_run",
        std::to_string(100 * i), "50");
  t.x("user_annotation", "capture_64_FULL", "110", "20");
  t.x("user_annotation", "capture_32_PIECEWISE", "10", "20");  // earlier: it wins
  testing::TempDir dir;
  const CaptureTrace c = classify_capture_trace(load(dir, t), "a.json");
  EXPECT_EQ(c.batch_size, 32);
  EXPECT_EQ(c.mode, "PIECEWISE");
}

TEST(CaptureFolder, OtherwiseModeFromBeginCapturesAndBatchFromShapes) {
  testing::TraceText t;
  t.x("user_annotation", "capture_32_DECODE", "0", "5");  // no _dummy_run frame to match
  t.x("cuda_runtime", "hipStreamBeginCapture", "1", "1");
  t.x("cpu_op", "aten::to", "10", "5", R"({"Input Dims":[[32],[],[]]})");
  t.x("cpu_op", "aten::mm", "20", "5", R"({"Input Dims":[[32, 4096],[4096, 4096]]})");
  t.x("cpu_op", "aten::cat", "30", "5", R"({"Input Dims":[[[8, 2],[8, 2]], []]})");
  testing::TempDir dir;
  const CaptureTrace full = classify_capture_trace(load(dir, t), "bs_32_rank0.json.gz");
  EXPECT_EQ(full.mode, "FULL");
  EXPECT_EQ(full.batch_size, 32);  // 32 twice, 4096 once; the nested TensorList not counted
  t.x("cuda_runtime", "hipStreamBeginCapture", "40", "1");
  EXPECT_EQ(classify_capture_trace(load(dir, t), "x").mode, "PIECEWISE");
  testing::TraceText no_shapes;
  no_shapes.x("cpu_op", "aten::empty", "0", "1");
  EXPECT_FALSE(classify_capture_trace(load(dir, no_shapes), "y").batch_size.has_value());
}

TEST(CaptureFolder, TraceFilesAreSortedWithoutTheDetailsFile) {
  testing::TempDir dir;
  for (const char* name : {"b.json.gz", "a.json", "execution_details.json", "notes.txt"})
    std::ofstream(dir.path() / name) << "{}";
  const auto files = capture_trace_files(dir.path());
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].filename(), "a.json");
  EXPECT_EQ(files[1].filename(), "b.json.gz");
  EXPECT_THROW(capture_trace_files(dir.path() / "missing"), io::InputError);
}

TEST(CaptureFolder, ExecutionDetailsRoundTrip) {
  const std::vector<CaptureTrace> traces = {{"bs_32_rank0.json.gz", 32, "FULL"},
                                            {"odd.json", std::nullopt, "PIECEWISE"}};
  const std::string text = execution_details_json(traces);
  EXPECT_EQ(text,
            "[\n  {\n    \"file\": \"bs_32_rank0.json.gz\",\n    \"batch_size\": 32,\n    "
            "\"mode\": \"FULL\"\n  },\n  {\n    \"file\": \"odd.json\",\n    \"batch_size\": null,"
            "\n    \"mode\": \"PIECEWISE\"\n  }\n]");
  const auto back = parse_execution_details(text, "x");
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[1].batch_size, std::nullopt);
  EXPECT_THROW(parse_execution_details("{\"file\": 1}", "details.json"), io::InputError);
}

TEST(CaptureFolder, ChoiceTakesTheSmallestCaptureThatFits) {
  const std::vector<CaptureTrace> entries = {{"a", 8, "FULL"},       {"b", 32, "FULL"},
                                             {"c", 32, "PIECEWISE"}, {"d", 512, "PIECEWISE"},
                                             {"e", 16, "DECODE"},    {"f", std::nullopt, "FULL"},
                                             {"b2", 32, "FULL"}};
  EXPECT_EQ(choose_capture(entries, 5, 1)->file, "a");
  EXPECT_EQ(choose_capture(entries, 9, 1)->file, "b2");   // 32, one graph root: FULL, last wins
  EXPECT_EQ(choose_capture(entries, 9, 25)->file, "c");   // several roots: PIECEWISE
  EXPECT_EQ(choose_capture(entries, 100, 1)->file, "d");  // only PIECEWISE at 512
  EXPECT_FALSE(choose_capture(entries, 1000, 1).has_value());
  EXPECT_EQ(choose_capture(entries, 16, 1)->file, "b2");  // DECODE entries never count
}

}  // namespace
}  // namespace traceprism::model
