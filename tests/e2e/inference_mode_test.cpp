// `analyze --mode inference --capture-dir DIR` end to end (inference-mode spec §3, issue 17): the
// capture merge attributes replayed kernels to the captured ops, the report says what it
// merged, the default mode names the option, and bad folders are refused with one sentence.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <fstream>
#include <sstream>

#include "support/run_cli.hpp"
#include "support/shared_traces.hpp"
#include "support/temp_dir.hpp"
#include "support/trace_builder.hpp"

namespace traceprism::testing {
namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

// One decode step of 2 tokens whose graph launch replays two kernels.
std::string replay_trace() {
  TraceText t;
  t.x("user_annotation", "execute_2_context_0(sq0sk0sqsq0sqsk0)_generation_2(sq2sk10sqsq2sqsk10)",
      "0", "1000");
  t.x("cuda_runtime", "hipGraphLaunch", "100", "50", R"({"correlation": 50})");
  t.x("kernel", "gemm_replayed", "200", "300", R"({"correlation": 50, "stream": 0, "device": 0})",
      "0", "0");
  t.x("kernel", "add_replayed", "500", "20", R"({"correlation": 50, "stream": 0, "device": 0})",
      "0", "0");
  return t.str();
}

// The capture of that graph: classified FULL, batch 2 (the most frequent leading dimension).
std::string capture_trace() {
  TraceText t;
  t.x("python_function", "vllm/worker.py(1): capture_model", "0", "10000");
  t.x("cuda_runtime", "hipStreamBeginCapture", "100", "2");
  t.x("python_function", "nn.Module: Linear_0", "200", "300");
  t.x("cpu_op", "aten::mm", "210", "100",
      R"({"Input Dims": [[2, 64], [64, 128]], "Input type": ["c10::BFloat16", "c10::BFloat16"]})");
  t.x("cuda_runtime", "hipLaunchKernel", "220", "5",
      R"({"correlation": 7, "kernel": "gemm_replayed"})");
  t.x("cpu_op", "aten::add", "350", "100", R"({"Input Dims": [[2, 128], [2, 128]]})");
  t.x("cuda_runtime", "hipLaunchKernel", "360", "5",
      R"({"correlation": 8, "kernel": "add_replayed"})");
  t.x("cuda_runtime", "hipStreamEndCapture", "900", "2");
  return t.str();
}

class InferenceMode : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(captures());
    write(replay(), replay_trace());
    write(captures() / "graph_capture_rank_0.json", capture_trace());
  }
  fs::path replay() const { return dir_.path() / "replay.json"; }
  fs::path captures() const { return dir_.path() / "captures"; }
  fs::path out() const { return dir_.path() / "out"; }
  int analyze(const std::string& flags, std::string* log = nullptr) {
    return run_cli("analyze -q " + shell_quote(replay().string()) + " -o " +
                       shell_quote(out().string()) + " " + flags,
                   log);
  }
  TempDir dir_;
};

TEST_F(InferenceMode, CaptureMergeAttributesReplayedKernelsToCapturedOps) {
  std::string log;
  ASSERT_EQ(analyze("--capture-dir " + shell_quote(captures().string()), &log), 0) << log;
  const auto f = boost::json::parse(read(out() / "findings.json")).as_object();
  EXPECT_EQ(f.at("analysis_mode").as_string(), "inference");
  const auto& quality = f.at("data_quality").as_object();
  EXPECT_EQ(quality.at("events").to_number<std::uint64_t>(), 4u);  // the trace's own
  EXPECT_FALSE(quality.contains("graph_replay"));  // no kernel is left under the launch
  const auto& merge = quality.at("capture_merge").as_object();
  EXPECT_EQ(merge.at("merged_launches").to_number<std::uint64_t>(), 1u);
  EXPECT_EQ(merge.at("attributed_gpu_events").to_number<std::uint64_t>(), 2u);
  EXPECT_EQ(merge.at("captures").as_array().at(0).as_string(), "graph_capture_rank_0.json");
  const std::string md = read(out() / "analysis.md");
  EXPECT_NE(md.find("1 of 1 graph launch in 1 serving step merged; 2 replayed GPU events"),
            std::string::npos)
      << md;
  EXPECT_EQ(md.find("The trace replays CUDA/HIP graphs"), std::string::npos) << md;
  // The replayed GEMM is now an aten::mm op with shapes, modelled as a GEMM.
  const std::string unified = read(out() / "perf_report_csvs" / "unified_perf_summary.csv");
  EXPECT_NE(unified.find("aten::mm,GEMM"), std::string::npos) << unified;
  EXPECT_EQ(unified.find("Synthetic Op"), std::string::npos) << unified;
  EXPECT_EQ(run_cli("validate-report " + shell_quote(out().string()), &log), 0) << log;
}

TEST_F(InferenceMode, DefaultModeNamesTheOptionAndTheFolderItNeeds) {
  ASSERT_EQ(analyze(""), 0);
  const std::string md = read(out() / "analysis.md");
  EXPECT_NE(md.find("Run `traceprism analyze --mode inference --capture-dir DIR`"),
            std::string::npos)
      << md;
  const auto f = boost::json::parse(read(out() / "findings.json")).as_object();
  EXPECT_EQ(f.at("analysis_mode").as_string(), "default");
}

TEST_F(InferenceMode, BadCaptureFoldersAreRefusedWithOneSentence) {
  std::string log;
  EXPECT_EQ(analyze("--mode default --capture-dir " + shell_quote(captures().string()), &log), 64);
  EXPECT_NE(log.find("--capture-dir needs --mode inference"), std::string::npos) << log;
  const fs::path empty = dir_.path() / "empty";
  fs::create_directories(empty);
  EXPECT_EQ(analyze("--capture-dir " + shell_quote(empty.string()), &log), 2);
  EXPECT_NE(log.find("holds no capture trace"), std::string::npos) << log;
  EXPECT_FALSE(fs::exists(out()));
}

// A capture whose kernels differ from the replayed ones: nothing is merged, the report says
// why, and the kernels stay under the launch with the graph-replay warning.
TEST_F(InferenceMode, UnalignedCaptureIsReportedAndTheAnalysisContinues) {
  std::string capture = capture_trace();
  capture.replace(capture.find("add_replayed"), 12, "other_kernel");
  write(captures() / "graph_capture_rank_0.json", capture);
  ASSERT_EQ(analyze("--capture-dir " + shell_quote(captures().string())), 0);
  const std::string md = read(out() / "analysis.md");
  EXPECT_NE(md.find("0 of 1 graph launch in 1 serving step merged"), std::string::npos) << md;
  EXPECT_NE(md.find("Not merged: 1 launch, the captured launch calls do not align with the "
                    "replayed kernels."),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("The capture merge left them unattributed"), std::string::npos) << md;
}

// synth --graph-replay on both vendors: CUDA launch calls carry no kernel name, so the NVIDIA
// capture aligns by position (spec §3.7 QUIRK; no shared CUDA golden exists), the AMD one by
// args.kernel. Every launch of every step is merged and no replayed kernel is left unattributed.
class SynthGraphReplay : public ::testing::TestWithParam<std::string> {};

TEST_P(SynthGraphReplay, EveryStepMergesAndTheReportIsValid) {
  TempDir tmp;
  const fs::path trace = tmp.path() / "decode.json.gz", captures = tmp.path() / "captures",
                 out = tmp.path() / "out";
  std::string log;
  ASSERT_EQ(run_cli("synth -o " + shell_quote(trace.string()) + " --vendor " + GetParam() +
                        " --inference --graph-replay --steps 3 --layers 2 --capture-out " +
                        shell_quote(captures.string()),
                    &log),
            0)
      << log;
  ASSERT_TRUE(fs::exists(captures / "graph_capture_rank_0.json.gz"));
  ASSERT_EQ(run_cli("analyze -q " + shell_quote(trace.string()) + " --capture-dir " +
                        shell_quote(captures.string()) + " -o " + shell_quote(out.string()),
                    &log),
            0)
      << log;
  const auto f = boost::json::parse(read(out / "findings.json")).as_object();
  const auto& quality = f.at("data_quality").as_object();
  const auto& merge = quality.at("capture_merge").as_object();
  EXPECT_EQ(merge.at("steps").to_number<std::uint64_t>(), 3u);
  EXPECT_EQ(merge.at("merged_launches").to_number<std::uint64_t>(), 3u);
  EXPECT_GT(merge.at("attributed_gpu_events").to_number<std::uint64_t>(), 3u * 20);
  EXPECT_FALSE(quality.contains("graph_replay"));
  const std::string unified = read(out / "perf_report_csvs" / "unified_perf_summary.csv");
  EXPECT_EQ(unified.find("Synthetic Op"), std::string::npos) << unified;
  EXPECT_NE(unified.find("aten::mm,GEMM"), std::string::npos) << unified;
  // Three steps: too few for a plateau, the middle one stands for the steady state.
  const auto& steady = f.at("diagnosis").as_object().at("steady_state").as_object();
  EXPECT_FALSE(steady.at("plateau").as_bool());
  EXPECT_EQ(steady.at("first_step").to_number<std::uint64_t>(), 1u);
  EXPECT_EQ(steady.at("end_step").to_number<std::uint64_t>(), 2u);
  EXPECT_NE(read(out / "analysis.md")
                .find("so the middle of the trace (step 2 of 3) stands for "
                      "the steady state"),
            std::string::npos);
  EXPECT_EQ(run_cli("validate-report " + shell_quote(out.string()), &log), 0) << log;
}

// Twelve prefill steps of the same batch: a plateau from the first step, still open at the end, so
// (spec §7.2 QUIRK) it stops before the last step.
TEST(SynthGraphReplaySteadyState, PlateauOfEqualStepsIsTheSteadyState) {
  TempDir tmp;
  const fs::path trace = tmp.path() / "decode.json", captures = tmp.path() / "captures",
                 out = tmp.path() / "out";
  std::string log;
  ASSERT_EQ(run_cli("synth -o " + shell_quote(trace.string()) +
                        " --inference --graph-replay --steps 12 --layers 1 --capture-out " +
                        shell_quote(captures.string()),
                    &log),
            0)
      << log;
  ASSERT_EQ(run_cli("analyze -q " + shell_quote(trace.string()) + " --capture-dir " +
                        shell_quote(captures.string()) + " -o " + shell_quote(out.string()),
                    &log),
            0)
      << log;
  const auto f = boost::json::parse(read(out / "findings.json")).as_object();
  const auto& steady = f.at("diagnosis").as_object().at("steady_state").as_object();
  EXPECT_TRUE(steady.at("plateau").as_bool());
  EXPECT_EQ(steady.at("first_step").to_number<std::uint64_t>(), 0u);
  EXPECT_EQ(steady.at("end_step").to_number<std::uint64_t>(), 11u);
  EXPECT_EQ(steady.at("peak_requests").to_number<std::uint64_t>(), 8u);
  EXPECT_NE(read(out / "analysis.md")
                .find("Steady state (inference-mode spec §7): steps 1–11 of 12, where the engine "
                      "schedules about its peak of 8 requests"),
            std::string::npos);
  // Prefill steps of 4096 tokens: the GEMMs are compute-bound, as the phase leads one to expect.
  EXPECT_NE(read(out / "analysis.md")
                .find("As expected for prefill steps (many tokens per weight read), the modelled "
                      "time is mostly compute-bound."),
            std::string::npos);
}

// compare with both traces' capture folders: a graph-replay trace against itself differs in
// nothing, and both sides are merged.
TEST(SynthGraphReplayCompare, TraceAgainstItselfWithCapturesHasNoDifference) {
  TempDir tmp;
  const fs::path trace = tmp.path() / "serving.json", captures = tmp.path() / "captures",
                 out = tmp.path() / "out";
  std::string log;
  ASSERT_EQ(run_cli("synth -o " + shell_quote(trace.string()) +
                        " --inference --graph-replay --steps 2 --layers 1 --capture-out " +
                        shell_quote(captures.string()),
                    &log),
            0)
      << log;
  const std::string t = shell_quote(trace.string()), c = shell_quote(captures.string());
  ASSERT_EQ(run_cli("compare -q " + t + " " + t + " --capture-dir " + c +
                        " --reference-capture-dir " + c + " -o " + shell_quote(out.string()),
                    &log),
            0)
      << log;
  const std::string md = read(out / "analysis.md");
  EXPECT_NE(md.find("The two traces take the same time"), std::string::npos) << md;
  EXPECT_NE(md.find("Capture merge"), std::string::npos) << md;
  EXPECT_EQ(read(out / "perf_report_trace2_csvs" / "unified_perf_summary.csv").find("Synthetic Op"),
            std::string::npos);
  EXPECT_EQ(run_cli("validate-report " + shell_quote(out.string()), &log), 0) << log;
}

INSTANTIATE_TEST_SUITE_P(Vendors, SynthGraphReplay, ::testing::Values("nvidia", "amd"));

struct SharedCase {
  std::string name, replay;
};

class InferenceSharedTraces : public ::testing::TestWithParam<SharedCase> {};

// Issue 17's "must hold": on every shared inference trace, inference mode gives Top Operations,
// a known platform and a valid report.
TEST_P(InferenceSharedTraces, ReportHasTopOperationsAKnownPlatformAndIsValid) {
  const fs::path dir = shared_traces() / "tracelens" / "inference" / GetParam().name;
  if (!fs::exists(dir / GetParam().replay)) GTEST_SKIP() << dir << " is absent";
  TempDir tmp;
  const fs::path out = tmp.path() / "out";
  std::string log;
  ASSERT_EQ(run_cli("analyze -q " + shell_quote((dir / GetParam().replay).string()) +
                        " --capture-dir " + shell_quote((dir / "capture_traces").string()) +
                        " -o " + shell_quote(out.string()),
                    &log),
            0)
      << log;
  const std::string md = read(out / "analysis.md");
  EXPECT_NE(md.find("| 1 | "), std::string::npos) << "Top Operations is empty:\n" << md;
  EXPECT_EQ(md.find("Synthetic Op"), std::string::npos) << md;
  const auto f = boost::json::parse(read(out / "findings.json")).as_object();
  const auto& merge = f.at("data_quality").as_object().at("capture_merge").as_object();
  EXPECT_EQ(merge.at("merged_launches"), merge.at("graph_launches"));
  EXPECT_EQ(f.at("platform").as_object().at("name").as_string(), "MI300X");
  EXPECT_EQ(run_cli("validate-report " + shell_quote(out.string()), &log), 0) << log;
  // vLLM GPT-OSS: the expert GEMMs are pseudo ops with a roofline (matrix_bf16 fallback peak:
  // MI300X has no FP4 one), the Warnings say so, and they are the first item (65-78 % of the
  // computation).
  const bool gpt_oss = GetParam().name.rfind("vllm", 0) == 0;
  EXPECT_EQ(md.find("24 `pseudo_op::moe_triton_unfused_up`") != std::string::npos, gpt_oss);
  if (gpt_oss) {
    const std::size_t p1 = md.find("P1: ");
    ASSERT_NE(p1, std::string::npos);
    const std::string first_item = md.substr(p1, md.find('\n', p1) - p1);
    EXPECT_NE(first_item.find("BF16×FP4 unfused MoE ops"), std::string::npos) << first_item;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, InferenceSharedTraces,
    ::testing::Values(SharedCase{"vllm_decode_full", "graph_execution.json.gz"},
                      SharedCase{"vllm_prefilldecode_piecewise", "graph_execution.json.gz"},
                      SharedCase{"sglang_decode", "sglang_Qwen3-8B_decode.json.gz"}),
    [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace traceprism::testing
