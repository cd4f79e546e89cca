// Model identification on the shared real traces (issue 15 item 7): what each trace's modules,
// layer structure and GEMM kernels show, checked against the models' published configurations
// (BERT-small: 4 layers, hidden 512; ViT-base and TimeSformer-base: 12 layers, hidden 768;
// Qwen1.5-0.5B: 24 layers, hidden 1024; all recorded in bfloat16, traces README). The scale is
// what the shapes measure, never a parameter count.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <string>

#include "support/run_cli.hpp"
#include "support/shared_traces.hpp"
#include "support/temp_dir.hpp"

namespace json = boost::json;

namespace {

struct Expected {
  const char* trace;  // under traces/tracelens/<platform>/
  const char* model;
  const char* architecture;
  const char* scale;
};

constexpr Expected kTraces[] = {
    {"gaunernst_bert-small-uncased__1016001.json.gz", "BERT", "Transformer, 4 blocks",
     "hidden size 512"},
    {"Falconsai_nsfw_image_detection__1016002.json.gz", "ViT", "Transformer, 12 blocks",
     "hidden size 768"},
    {"facebook_timesformer-base-finetuned-k400__1016002.json.gz", "TimeSformer",
     "Transformer, 12 blocks", "hidden size 768"},
    {"Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz", "Qwen2", "Transformer, 24 blocks",
     "hidden size 1024"},
};

class ModelIdentificationTraces : public ::testing::TestWithParam<const char*> {};

TEST_P(ModelIdentificationTraces, ModulesStructureAndKernelsAgree) {
  const std::filesystem::path platform_dir =
      traceprism::testing::shared_traces() / "tracelens" / GetParam();
  if (!std::filesystem::is_directory(platform_dir))
    GTEST_SKIP() << "no shared traces under " << platform_dir;
  for (const Expected& e : kTraces) {
    SCOPED_TRACE(e.trace);
    traceprism::testing::TempDir dir;
    const std::string out = dir.file("out");
    std::string log;  // the analyzers are not needed: identification reads the trace
    ASSERT_EQ(
        traceprism::testing::run_cli(
            "analyze " + (platform_dir / e.trace).string() + " --disable '*' -o " + out, &log),
        0)
        << log;
    const json::object info =
        json::parse(traceprism::testing::read_file(out + "/model_info.json")).as_object();
    EXPECT_EQ(info.at("model").as_string(), e.model);
    EXPECT_EQ(info.at("architecture").as_string(), e.architecture);
    EXPECT_EQ(info.at("scale").as_string(), e.scale);
    // bf16 GEMMs: cuBLAS / CUTLASS `bf16` kernels on H100, hipBLASLt `Cijk_..._B_` on MI300X.
    EXPECT_EQ(info.at("precision").as_string(), "BF16");
  }
}

INSTANTIATE_TEST_SUITE_P(Platforms, ModelIdentificationTraces, ::testing::Values("h100", "mi300"));

}  // namespace
