// diagnosis.md §1.5 and §6.2 on the shared real traces, judged from their kernels. TimeSformer's
// eager attention (QKᵀ and AV `aten::bmm`, an FP32 `aten::_softmax` that alone holds about 40 %
// of the run) is one problem: the fusion finding on the 24 TimesformerSelfAttention modules owns
// those kernels and is the report's first item on H100 and MI300X alike; the GEMM and softmax
// compute items about the same kernels are folded into it instead of repeating it with tile and
// split-K advice. Its savings are modelled per instance (the temporal instances are GEMM-heavy,
// the spatial ones softmax-heavy), so the two GPUs agree. BERT-small's M = 141 `addmm` GEMMs
// average about 6 µs: the GEMM item advises fewer, larger GEMMs, never "fold bias".
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <string>

#include "support/run_cli.hpp"
#include "support/shared_traces.hpp"
#include "support/temp_dir.hpp"
#include "validate/report_validator.hpp"

namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

// findings.json of `analyze` on traces/tracelens/<platform>/<trace>; null when it is absent.
json::value analyzed(const std::string& platform, const std::string& trace) {
  const fs::path path = traceprism::testing::shared_traces() / "tracelens" / platform / trace;
  if (!fs::exists(path)) return nullptr;
  traceprism::testing::TempDir dir;
  const std::string out = dir.file("out");
  std::string log;
  EXPECT_EQ(traceprism::testing::run_cli("analyze -q " + path.string() + " -o " + out, &log), 0)
      << log;
  for (const auto& p : traceprism::validate::validate_report(out))
    ADD_FAILURE() << trace << ": " << p.to_string();
  return json::parse(traceprism::testing::read_file(out + "/findings.json"));
}

bool contains(json::string_view text, std::string_view part) {
  return std::string_view(text.data(), text.size()).find(part) != std::string_view::npos;
}

class TimesformerAttention : public ::testing::TestWithParam<const char*> {};

TEST_P(TimesformerAttention, FusionOwnsTheAttentionKernelsAndComesFirst) {
  const json::value report =
      analyzed(GetParam(), "facebook_timesformer-base-finetuned-k400__1016002.json.gz");
  if (report.is_null()) GTEST_SKIP() << "no shared traces";
  const json::object* fusion = nullptr;
  for (const json::value& f : report.at("findings").as_array()) {
    if (f.at("id").as_string() == "fusion-p1") fusion = &f.as_object();
    // The softmax of the attention is not a compute item of its own any more.
    if (f.at("tier").as_string() == "compute") {
      EXPECT_FALSE(contains(f.at("title").as_string(), "aten::_softmax")) << f.at("title");
    }
  }
  ASSERT_NE(fusion, nullptr);
  EXPECT_TRUE(contains(fusion->at("title").as_string(), "Unfused attention"));
  EXPECT_EQ(report.at("diagnosis").at("first").at("finding").as_string(), "fusion-p1");
  // Savings from every instance's kernels: over a third of the run on both GPUs (the first
  // instance alone gave 22.8 % on H100 and 2.5 % on MI300X), never above its kernels' time.
  const json::object& impact = fusion->at("impact").as_object();
  EXPECT_GT(impact.at("mid").to_number<double>(), 30.0);
  const double time_percent = fusion->at("metrics").at("time_ms").to_number<double>() /
                              report.at("gpu_utilization").at("total_time_ms").to_number<double>() *
                              100;
  EXPECT_LE(impact.at("high").to_number<double>(), time_percent);
  bool softmax = false, gemm = false;
  for (const json::value& f : report.at("folded_findings").as_array()) {
    if (f.at("folded_into").as_string() != "fusion-p1") continue;
    softmax = softmax || contains(f.at("title").as_string(), "aten::_softmax");
    gemm = gemm || f.at("analyzer").as_string() == "gemm-efficiency";
  }
  EXPECT_TRUE(softmax) << json::serialize(report.at("folded_findings"));
  EXPECT_TRUE(gemm) << json::serialize(report.at("folded_findings"));
}

INSTANTIATE_TEST_SUITE_P(Gpus, TimesformerAttention, ::testing::Values("h100", "mi300"));

TEST(ShortGemmAdvice, BertSmallAddmmGetsFewerLargerGemmsNotTileTuning) {
  const json::value report = analyzed("h100", "gaunernst_bert-small-uncased__1016001.json.gz");
  if (report.is_null()) GTEST_SKIP() << "no shared traces";
  bool seen = false;
  for (const json::value& f : report.at("findings").as_array()) {
    if (f.at("analyzer").as_string() != "gemm-efficiency") continue;
    const json::string_view action = f.at("action").as_string();
    EXPECT_FALSE(contains(action, "fold bias")) << action;
    if (!contains(f.at("title").as_string(), "Memory-bound")) continue;
    seen = true;
    EXPECT_TRUE(contains(action, "fewer, larger GEMMs")) << action;
  }
  EXPECT_TRUE(seen) << "no memory-bound GEMM item on BERT-small";
}

}  // namespace
