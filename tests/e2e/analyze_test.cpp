// `traceprism analyze` end to end: outputs, determinism across --jobs, configuration, exit codes.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <fstream>
#include <sstream>

#include "support/run_cli.hpp"
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

// Two kernels 100 µs apart with 10 µs of work each: the GPU is idle ~83% of the span.
std::string idle_trace() {
  TraceText t;
  t.launch("aten::mm", 0, 20, "gemm_kernel_a", 10, 10, 7, 1);
  t.launch("aten::mm", 100, 20, "gemm_kernel_b", 110, 10, 7, 2);
  return t.str();
}

// Back-to-back kernels: no idle time, nothing to report at the system level.
std::string busy_trace() {
  TraceText t;
  t.launch("aten::mm", 0, 20, "gemm_kernel_a", 10, 50, 7, 1);
  t.launch("aten::mm", 5, 20, "gemm_kernel_b", 60, 50, 7, 2);
  return t.str();
}

boost::json::object findings(const fs::path& dir) {
  return boost::json::parse(read(dir / "findings.json")).as_object();
}

const boost::json::object* analyzer(const boost::json::object& f, std::string_view name) {
  for (const auto& a : f.at("analyzers").as_array())
    if (a.as_object().at("name").as_string() == name) return &a.as_object();
  return nullptr;
}

class Analyze : public ::testing::Test {
 protected:
  fs::path trace(const std::string& name, const std::string& text) {
    fs::path p = dir_.path() / name;
    write(p, text);
    return p;
  }
  int analyze(const fs::path& t, const fs::path& out, const std::string& flags = "",
              std::string* output = nullptr) {
    return run_cli(
        "analyze -q " + shell_quote(t.string()) + " -o " + shell_quote(out.string()) + " " + flags,
        output);
  }
  TempDir dir_;
};

TEST_F(Analyze, WritesTheThreeOutputs) {
  auto t = trace("idle.json", idle_trace());
  ASSERT_EQ(analyze(t, dir_.path() / "out"), 0);
  EXPECT_TRUE(fs::exists(dir_.path() / "out" / "analysis.md"));
  EXPECT_TRUE(fs::exists(dir_.path() / "out" / "perf_report_csvs" / "gpu_timeline.csv"));
  auto f = findings(dir_.path() / "out");
  EXPECT_EQ(f.at("schema_version").as_int64(), 2);
  for (const char* name : {"cpu-idle", "memcpy", "comm", "host-sync"}) {
    const auto* a = analyzer(f, name);
    ASSERT_NE(a, nullptr) << name << " is not loaded";
    EXPECT_EQ(a->at("status").as_string(), "ok") << name;
  }
}

// A serving trace that replays a CUDA/HIP graph (analysis-rules §14's GPU_GRAPH_REPLAY): the
// replayed kernels have no CPU op, so the report says so, findings.json counts them, and the
// item about their time asks to attribute them first instead of tuning an unknown op.
TEST_F(Analyze, GraphReplayIsReportedAndItsKernelsAttributedFirst) {
  TraceText t;  // no ac2g flows: kernels link to the launch by correlation alone
  t.x("user_annotation", "step[DECODE bs=8]", "0", "40");
  t.x("cuda_runtime", "hipGraphLaunch", "10", "20", R"({"correlation":5})");
  t.x("kernel", "matmul_big", "50", "400", R"({"correlation":5,"stream":3,"device":0})", "0", "3");
  t.x("kernel", "rmsnorm_small", "450", "20", R"({"correlation":5,"stream":3,"device":0})", "0",
      "3");
  t.x("cpu_op", "aten::mm", "600", "20");
  t.x("cuda_runtime", "hipLaunchKernel", "605", "5", R"({"correlation":9})");
  t.x("kernel", "gemm_eager", "620", "10", R"({"correlation":9,"stream":3,"device":0})", "0", "3");
  const fs::path out = dir_.path() / "out";
  ASSERT_EQ(analyze(trace("graph.json", t.str()), out), 0);
  const auto replay = findings(out).at("data_quality").as_object().at("graph_replay").as_object();
  EXPECT_EQ(replay.at("launches").to_number<std::uint64_t>(), 1u);
  EXPECT_EQ(replay.at("gpu_events").to_number<std::uint64_t>(), 2u);
  EXPECT_DOUBLE_EQ(replay.at("busy_us").as_double(), 420.0);
  const std::string md = read(out / "analysis.md");
  EXPECT_NE(md.find("The trace replays CUDA/HIP graphs: 1 graph launch ran 2 GPU events, busy "
                    "0.42 ms"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("**Action**: Attribute `matmul_big` to its op first"), std::string::npos) << md;
  std::string log;
  EXPECT_EQ(run_cli("validate-report " + shell_quote(out.string()), &log), 0) << log;
}

TEST_F(Analyze, IdleGpuGivesTheSystemItemWithMarkers) {
  auto t = trace("idle.json", idle_trace());
  ASSERT_EQ(analyze(t, dir_.path() / "out"), 0);
  auto f = findings(dir_.path() / "out");
  // One system item per idle cause; the largest ranks first.
  bool idle_item = false, first = false;
  for (const auto& x : f.at("findings").as_array())
    if (x.as_object().at("analyzer").as_string() == "cpu-idle") {
      idle_item = true;
      EXPECT_EQ(x.as_object().at("tier").as_string(), "system");
      first = first || x.as_object().at("rank").as_int64() == 1;
    }
  EXPECT_TRUE(idle_item);
  EXPECT_TRUE(first);
  std::string md = read(dir_.path() / "out" / "analysis.md");
  for (const char* header :
       {"## Executive Summary", "## Compute Kernel Optimizations",
        "## Kernel Fusion Opportunities (Experimental)", "## System-Level Optimizations",
        "## Detailed Analysis", "## Appendix"})
    EXPECT_NE(md.find(header), std::string::npos) << header;
  EXPECT_NE(md.find("### 🔴 P1: "), std::string::npos);
  // Idle causes carry a quantified impact (diagnosis.md §2.5).
  EXPECT_NE(md.find("<!-- impact-begin kind=p_item low="), std::string::npos);
  EXPECT_NE(md.find("<a id=\"detailed-analysis-system-p1\"></a>"), std::string::npos);
  EXPECT_NE(md.find("<!-- reasoning-candidate tier=system rank=1 -->"), std::string::npos);
  EXPECT_NE(md.find("(#detailed-analysis-system-p1)"), std::string::npos);
  EXPECT_EQ(md.find("{{"), std::string::npos) << "a template placeholder reached the report";
}

TEST_F(Analyze, BusyGpuUsesTemplateA) {
  auto t = trace("busy.json", busy_trace());
  ASSERT_EQ(analyze(t, dir_.path() / "out"), 0);
  std::string md = read(dir_.path() / "out" / "analysis.md");
  EXPECT_NE(md.find("✅ No system-level bottlenecks detected. GPU activity breakdown shows 100.00% "
                    "computation"),
            std::string::npos);
  EXPECT_EQ(findings(dir_.path() / "out").at("findings").as_array().size(), 0u);
}

TEST_F(Analyze, SameOutputAtAnyJobs) {
  fs::path t = dir_.path() / "synth.json.gz";
  ASSERT_EQ(run_cli("synth -o " + shell_quote(t.string()) + " --layers 2 --steps 2"), 0);
  ASSERT_EQ(analyze(t, dir_.path() / "j1", "--jobs 1"), 0);
  ASSERT_EQ(analyze(t, dir_.path() / "j2", "--jobs 2"), 0);
  ASSERT_EQ(analyze(t, dir_.path() / "j1b", "--jobs 1"), 0);
  for (const char* file :
       {"analysis.md", "findings.json", "model_info.json", "perf_breakdown.svg",
        "perf_report_csvs/gpu_timeline.csv", "perf_report_csvs/unified_perf_summary.csv"}) {
    std::string one = read(dir_.path() / "j1" / file);
    EXPECT_FALSE(one.empty()) << file;
    EXPECT_EQ(one, read(dir_.path() / "j2" / file)) << file << " differs between --jobs 1 and 2";
    EXPECT_EQ(one, read(dir_.path() / "j1b" / file)) << file << " differs between two runs";
  }
}

// --read-threads: a trace above the parallel reader's 16 MB threshold is parsed by the worker
// threads (inspect says how many) and every output is the one-thread reader's.
TEST_F(Analyze, SameOutputAtAnyReadThreads) {
  const fs::path t = dir_.path() / "synth.json";
  ASSERT_EQ(run_cli("synth -o " + shell_quote(t.string()) + " --layers 2 --target-mb 17"), 0);
  std::string log;
  ASSERT_EQ(run_cli("inspect " + shell_quote(t.string()) + " --read-threads 3", &log), 0) << log;
  EXPECT_NE(log.find(" (3 parsing threads), model "), std::string::npos) << log;
  ASSERT_EQ(analyze(t, dir_.path() / "r1"), 0);
  ASSERT_EQ(analyze(t, dir_.path() / "r3", "--read-threads 3"), 0);
  for (const char* file :
       {"analysis.md", "findings.json", "model_info.json", "perf_breakdown.svg",
        "perf_report_csvs/gpu_timeline.csv", "perf_report_csvs/unified_perf_summary.csv",
        "perf_report_csvs/kernel_summary.csv"}) {
    const std::string one = read(dir_.path() / "r1" / file);
    EXPECT_FALSE(one.empty()) << file;
    EXPECT_EQ(one, read(dir_.path() / "r3" / file)) << file << " differs with --read-threads 3";
  }
}

TEST_F(Analyze, DisableAndConfigOptions) {
  auto t = trace("idle.json", idle_trace());
  ASSERT_EQ(analyze(t, dir_.path() / "out", "--disable 'mem*'"), 0);
  auto f = findings(dir_.path() / "out");
  ASSERT_NE(analyzer(f, "memcpy"), nullptr);
  EXPECT_EQ(analyzer(f, "memcpy")->at("status").as_string(), "disabled");

  // --enable and --disable apply in command-line order: the last match wins.
  ASSERT_EQ(analyze(t, dir_.path() / "only", "--disable '*' --enable 'cpu-*'"), 0);
  auto only = findings(dir_.path() / "only");
  EXPECT_EQ(analyzer(only, "memcpy")->at("status").as_string(), "disabled");
  EXPECT_EQ(analyzer(only, "cpu-idle")->at("status").as_string(), "ok");
  ASSERT_EQ(analyze(t, dir_.path() / "none", "--enable 'cpu-*' --disable '*'"), 0);
  auto none = findings(dir_.path() / "none");
  EXPECT_EQ(analyzer(none, "cpu-idle")->at("status").as_string(), "disabled");

  // A cause threshold above the trace's idle share silences the idle items.
  auto config = dir_.path() / "config.json";
  write(config, R"({"options": {"cpu-idle.MinCausePercent": "99"}})");
  ASSERT_EQ(analyze(t, dir_.path() / "out2", "--config " + shell_quote(config.string())), 0);
  auto quiet = findings(dir_.path() / "out2");  // keep the document alive while iterating
  for (const auto& x : quiet.at("findings").as_array())
    EXPECT_NE(x.as_object().at("analyzer").as_string(), "cpu-idle");
}

TEST_F(Analyze, DumpConfigShowsEffectiveOptions) {
  auto config = dir_.path() / "config.json";
  write(config, R"({"analyzers": "*,-comm", "options": {"cpu-idle.IdleThresholdPercent": 20}})");
  std::string out;
  ASSERT_EQ(run_cli("analyze --dump-config --config " + shell_quote(config.string()), &out), 0);
  auto dump = boost::json::parse(out).as_object();
  EXPECT_EQ(dump.at("analyzers").as_string(), "*,*,-comm");
  EXPECT_EQ(dump.at("options").as_object().at("cpu-idle.IdleThresholdPercent").as_string(), "20");
  bool comm_enabled = false;
  for (const auto& a : dump.at("_enabled").as_array()) comm_enabled |= a.as_string() == "comm";
  EXPECT_FALSE(comm_enabled);
}

TEST_F(Analyze, BadConfigIsOneSentence) {
  auto t = trace("idle.json", idle_trace());
  auto config = dir_.path() / "bad.json";
  write(config, R"({"analyzer": "*"})");
  std::string out;
  EXPECT_EQ(analyze(t, dir_.path() / "out", "--config " + shell_quote(config.string()), &out), 64);
  EXPECT_NE(out.find("error: " + config.string() + ": unknown key 'analyzer'"), std::string::npos)
      << out;
}

TEST_F(Analyze, FailOnSeverity) {
  auto t = trace("idle.json", idle_trace());
  EXPECT_EQ(analyze(t, dir_.path() / "a", "--fail-on info"), 1);
  auto busy = trace("busy.json", busy_trace());
  EXPECT_EQ(analyze(busy, dir_.path() / "b", "--fail-on info"), 0);
}

TEST_F(Analyze, UnreadableTraceExitsTwo) {
  auto t = trace("broken.json", "{\"traceEvents\": [");
  std::string out;
  EXPECT_EQ(analyze(t, dir_.path() / "out", "", &out), 2);
  EXPECT_FALSE(fs::exists(dir_.path() / "out" / "analysis.md"));
}

TEST_F(Analyze, NoAnalyzerEnabledIsAWarningNotACleanBill) {
  auto t = trace("idle.json", idle_trace());
  std::string out;
  ASSERT_EQ(run_cli("analyze " + shell_quote(t.string()) + " -o " +
                        shell_quote((dir_.path() / "out").string()) + " --disable '*'",
                    &out),
            0);
  std::string md = read(dir_.path() / "out" / "analysis.md");
  EXPECT_NE(md.find("## Warnings"), std::string::npos);
  EXPECT_NE(md.find("No analyzer ran"), std::string::npos);
}

TEST_F(Analyze, PluginsCommandListsAnalyzersAndOptions) {
  std::string out;
  ASSERT_EQ(run_cli("plugins", &out), 0);
  EXPECT_NE(out.find("analyzer cpu-idle"), std::string::npos) << out;
  EXPECT_NE(out.find("cpu-idle.IdleThresholdPercent = 15"), std::string::npos) << out;
  // The compute plugins pin the minor they need: 1.5, for op_metrics.
  EXPECT_NE(out.find("gemm 1.0.0  (ABI 1.5,"), std::string::npos) << out;
}

}  // namespace
}  // namespace traceprism::testing
