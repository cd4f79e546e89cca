// The CLI on inputs that are not readable traces: each must end with exit code 2 and one
// sentence on stderr naming the file, where it went wrong and what was expected.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <string>

#include "io/output_file.hpp"
#include "support/temp_dir.hpp"

namespace {

struct RunResult {
  int exit_code;
  std::string out;
  std::string err;
};

RunResult run_cli(const std::string& args, const std::string& stdin_path = "/dev/null") {
  traceprism::testing::TempDir dir;
  const std::string out = dir.file("stdout"), err = dir.file("stderr");
  const std::string command = std::string(TRACEPRISM_BINARY) + " " + args + " >" + out + " 2>" +
                              err + " <'" + stdin_path + "'";
  int status = std::system(command.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, traceprism::testing::read_file(out),
          traceprism::testing::read_file(err)};
}

std::string quote(const std::string& s) {
  return "'" + s + "'";
}

const std::string kValidTrace =
    R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1000.5, "dur": 20},)"
    R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1001, "dur": 2, "args": {"correlation": 5}},)"
    R"({"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 1010, "dur": 30, "args": {"correlation": 5, "stream": 7, "device": 0}},)"
    R"({"ph": "s", "id": 5, "pid": 1, "tid": 1, "ts": 1001, "cat": "ac2g", "name": "ac2g"},)"
    R"({"ph": "f", "id": 5, "pid": 0, "tid": 7, "ts": 1010, "cat": "ac2g", "name": "ac2g", "bp": "e"}]})";

// Asserts the one-sentence contract: exit 2, a single "error: " line naming the file.
void expect_clean_failure(const RunResult& r, const std::string& file,
                          const std::string& expected) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err.rfind("error: " + file, 0), 0u) << r.err;
  EXPECT_NE(r.err.find(expected), std::string::npos) << "stderr: " << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

class BadInput : public ::testing::Test {
 protected:
  std::string write(const std::string& name, const std::string& text) {
    return dir_.write(name, text);
  }
  std::string compressed(const std::string& name, const std::string& text,
                         traceprism::io::Compression c) {
    traceprism::io::OutputFile f(dir_.file(name), c);
    f.write(text);
    f.commit();
    return dir_.file(name);
  }
  RunResult inspect(const std::string& path, const std::string& flags = "") {
    return run_cli("inspect -q " + flags + " " + quote(path));
  }
  traceprism::testing::TempDir dir_;
};

TEST_F(BadInput, ValidTraceSucceeds) {
  auto r = inspect(write("ok.json", kValidTrace));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("1 linked to a launch"), std::string::npos) << r.out;
}

TEST_F(BadInput, EmptyFile) {
  auto path = write("empty.json", "");
  expect_clean_failure(inspect(path), path, "the file is empty");
}

TEST_F(BadInput, NotJson) {
  auto path = write("notjson.json", "hello, I am not a trace");
  expect_clean_failure(inspect(path), path, "at byte 0 of the JSON text: expected valid JSON");
}

// Issue 19, defect 11: these said only "syntax error".
TEST_F(BadInput, AByteOrderMarkIsNamed) {
  auto path = write("bom.json", "\xEF\xBB\xBF" + kValidTrace);
  expect_clean_failure(inspect(path), path,
                       "at byte 0 of the JSON text: expected JSON, found a UTF-8 byte order mark");
}

TEST_F(BadInput, ALoneSurrogateEscapeIsNamed) {
  auto path = write("surrogate.json",
                    R"({"traceEvents": [{"ph": "X", "name": "a\ud800", "ts": 1, "dur": 1}]})");
  expect_clean_failure(inspect(path), path,
                       "found a lone UTF-16 surrogate escape (\\ud800 without its pair)");
}

// Issue 19, defect 10: valid files that gzip, zstd and Python read were refused.
TEST_F(BadInput, GzipWithTrailingZeroPaddingIsRead) {
  auto gz = traceprism::testing::read_file(
      compressed("t.json.gz", kValidTrace, traceprism::io::Compression::kGzip));
  EXPECT_EQ(inspect(write("padded.json.gz", gz + std::string(1024, '\0'))).exit_code, 0);
  auto garbage = write("garbage.json.gz", gz + std::string(16, '\0') + "x");
  expect_clean_failure(inspect(garbage), garbage, "expected only zero padding after the last");
}

TEST_F(BadInput, ZstdWithASkippableFrameIsRead) {
  auto zst = traceprism::testing::read_file(
      compressed("t.json.zst", kValidTrace, traceprism::io::Compression::kZstd));
  const std::string skippable = std::string("\x50\x2A\x4D\x18\x04\x00\x00\x00", 8) + "abcd";
  for (const std::string& bytes : {skippable + zst, zst + skippable}) {
    auto r = inspect(write("skippable.json.zst", bytes));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("1 linked to a launch"), std::string::npos) << r.out;
  }
}

TEST_F(BadInput, TruncatedGzip) {
  auto full = traceprism::testing::read_file(
      compressed("t.json.gz", kValidTrace, traceprism::io::Compression::kGzip));
  auto path = write("truncated.json.gz", full.substr(0, full.size() / 2));
  expect_clean_failure(inspect(path), path, "truncated gzip stream at compressed byte");
}

TEST_F(BadInput, TruncatedZstd) {
  auto full = traceprism::testing::read_file(
      compressed("t.json.zst", kValidTrace, traceprism::io::Compression::kZstd));
  auto path = write("truncated.json.zst", full.substr(0, full.size() / 2));
  expect_clean_failure(inspect(path), path, "truncated zstd stream at compressed byte");
}

TEST_F(BadInput, TruncatedJson) {
  auto path = write("truncated.json", kValidTrace.substr(0, kValidTrace.size() - 40));
  expect_clean_failure(inspect(path), path, "the document is truncated");
}

TEST_F(BadInput, TraceEventsMissing) {
  auto path = write("missing.json", R"({"schemaVersion": 1, "events": []})");
  expect_clean_failure(inspect(path), path,
                       "expected a top-level \"traceEvents\" array, found none");
}

TEST_F(BadInput, TraceEventsNotAnArray) {
  auto path = write("notarray.json", R"({"schemaVersion": 1, "traceEvents": {"ph": "X"}})");
  expect_clean_failure(inspect(path), path,
                       "expected \"traceEvents\" to be an array of events, got an object");
  auto path2 = write("scalar.json", R"({"traceEvents": 12})");
  expect_clean_failure(inspect(path2), path2,
                       "expected \"traceEvents\" to be an array of events, got a number");
}

// Duplicate keys are legal JSON; Python keeps the last "traceEvents", we keep all: say so.
TEST_F(BadInput, TwoTraceEventsArraysAreReadWithAWarning) {
  std::string text = kValidTrace;
  text.insert(
      1,
      R"("traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "first", "pid": 1, "tid": 1, "ts": 1, "dur": 1}], )");
  auto path = write("two_arrays.json", text);
  auto r = inspect(path);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("warning: " + path +
                       ": the document has 2 top-level \"traceEvents\" "
                       "arrays; their events were read as one list, in file order."),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("events      6"), std::string::npos) << r.out;
  auto one = inspect(write("one_array.json", kValidTrace));
  EXPECT_EQ(one.err.find("traceEvents"), std::string::npos) << one.err;
}

TEST_F(BadInput, TimestampAsStringIsSkippedOrFatalWhenStrict) {
  std::string text = kValidTrace;
  text.replace(text.find("\"ts\": 1000.5"), 12, "\"ts\": \"1000.5\"");
  auto path = write("tsstring.json", text);
  auto lenient = inspect(path);
  EXPECT_EQ(lenient.exit_code, 0);
  EXPECT_NE(lenient.out.find("bad_ts (skipped)"), std::string::npos) << lenient.out;
  expect_clean_failure(inspect(path, "--strict"), path,
                       "event 0 (near byte 19): expected \"ts\" to be a number, got a string");
}

TEST_F(BadInput, NegativeDurationIsKeptOrFatalWhenStrict) {
  std::string text = kValidTrace;
  text.replace(text.find("\"dur\": 30"), 9, "\"dur\": -30");
  auto path = write("negdur.json", text);
  auto lenient = inspect(path);
  EXPECT_EQ(lenient.exit_code, 0);
  EXPECT_NE(lenient.out.find("negative_dur (kept)"), std::string::npos) << lenient.out;
  expect_clean_failure(inspect(path, "--strict"), path, "event 2 (near byte");
  expect_clean_failure(inspect(path, "--strict"), path, "expected \"dur\" to be zero or positive");
}

TEST_F(BadInput, MissingDurationIsSkippedOrFatalWhenStrict) {
  std::string text = kValidTrace;
  text.replace(text.find(", \"dur\": 30"), 11, "");
  auto path = write("nodur.json", text);
  auto lenient = inspect(path);
  EXPECT_EQ(lenient.exit_code, 0);
  EXPECT_NE(lenient.out.find("missing_dur (skipped)"), std::string::npos) << lenient.out;
  expect_clean_failure(inspect(path, "--strict"), path, "expected a \"dur\" number");
}

TEST_F(BadInput, DeeplyNestedJson) {
  std::string text =
      "{\"traceEvents\": [" + std::string(100000, '[') + std::string(100000, ']') + "]}";
  auto path = write("deep.json", text);
  expect_clean_failure(inspect(path), path, "expected at most 256 levels of nested arrays/objects");
}

TEST_F(BadInput, Directory) {
  expect_clean_failure(inspect(dir_.path().string()), dir_.path().string(), "is a directory");
}

TEST_F(BadInput, UnreadablePath) {
  auto path = dir_.file("does-not-exist.json");
  expect_clean_failure(inspect(path), path, "cannot open: No such file or directory");
}

TEST_F(BadInput, PerfReportRefusesTheSameWay) {
  auto path = write("empty2.json", "");
  auto r = run_cli("perf-report -q " + quote(path) + " -o " + quote(dir_.file("out")));
  expect_clean_failure(r, path, "the file is empty");
}

TEST(Cli, UsageErrorsExit64AndHelpTeaches) {
  EXPECT_EQ(run_cli("inspect").exit_code, 64);
  EXPECT_EQ(run_cli("no-such-command").exit_code, 64);
  auto help = run_cli("inspect --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("--strict"), std::string::npos);
  auto version = run_cli("--version");
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_NE(version.out.find("traceprism "), std::string::npos);
}

TEST(Cli, ReadsCompressedStandardInput) {
  traceprism::testing::TempDir dir;
  traceprism::io::OutputFile f(dir.file("ok.json.zst"), traceprism::io::Compression::kZstd);
  f.write(kValidTrace);
  f.commit();
  auto r = run_cli("inspect -q -", dir.file("ok.json.zst"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("(zstd)"), std::string::npos) << r.out;
}

TEST(Cli, PerfReportWritesTheTimelineSheet) {
  traceprism::testing::TempDir dir;
  auto path = dir.write("ok.json", kValidTrace);
  auto r = run_cli("perf-report -q " + quote(path) + " -o " + quote(dir.file("out")));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(traceprism::testing::read_file(dir.file("out/gpu_timeline.csv")),
            "type,time ms,percent\n"
            "computation_time,0.03,100.0\n"
            "exposed_comm_time,0.0,0.0\n"
            "exposed_memcpy_time,0.0,0.0\n"
            "busy_time,0.03,100.0\n"
            "idle_time,0.0,0.0\n"
            "total_time,0.03,100.0\n"
            "total_comm_time,0.0,0.0\n"
            "total_memcpy_time,0.0,0.0\n");
}

TEST(Cli, PerfReportSplitsIdleTimeOnRequest) {
  traceprism::testing::TempDir dir;
  auto path = dir.write("ok.json", kValidTrace);
  auto r = run_cli("perf-report -q " + quote(path) + " -o " + quote(dir.file("out")) +
                   " --micro-idle-threshold-us 5");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto csv = traceprism::testing::read_file(dir.file("out/gpu_timeline.csv"));
  EXPECT_NE(csv.find("\nmicro_idle_time,0.0,0.0\nmacro_idle_time,0.0,0.0\n"), std::string::npos)
      << csv;
  EXPECT_EQ(csv.find("\nidle_time"), std::string::npos);
  EXPECT_EQ(
      run_cli("perf-report -q " + quote(path) + " -o x --micro-idle-threshold-us -1").exit_code,
      64);
}

// --group-by-parent-module and --include-call-stack on a synthetic training trace (python
// frames with nn.Module names): the forward's GEMMs sit under their Linear module, the rest
// (backward, optimizer) under none; the optimizer step is called from torch/optim/adamw.py.
TEST(Cli, PerfReportGroupsByModuleAndNamesCallersOnRequest) {
  traceprism::testing::TempDir dir;
  ASSERT_EQ(
      run_cli("synth -o " + quote(dir.file("t.json")) + " --layers 1 --steps 1 --seed 3").exit_code,
      0);
  auto r = run_cli("perf-report -q " + quote(dir.file("t.json")) + " -o " + quote(dir.file("out")) +
                   " --group-by-parent-module --include-call-stack");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string by_category =
      traceprism::testing::read_file(dir.file("out/ops_summary_by_category.csv"));
  EXPECT_EQ(by_category.rfind("op category,parent_module,Count,call_stack_first,", 0), 0u)
      << by_category;
  EXPECT_NE(by_category.find("\nGEMM,nn.Module: Linear,"), std::string::npos) << by_category;
  EXPECT_NE(by_category.find("\nGEMM,NA,"), std::string::npos) << by_category;
  const std::string unified =
      traceprism::testing::read_file(dir.file("out/unified_perf_summary.csv"));
  EXPECT_NE(unified.find(",has_perf_model,entry_point,call_stack_full,"), std::string::npos);
  EXPECT_NE(unified.find("\naten::_fused_adamw_,"), std::string::npos) << unified;
  EXPECT_NE(unified.find(",torch/optim/adamw.py(187): step,"), std::string::npos) << unified;
}

TEST(Cli, PerfReportIntoAFileIsAnOutputError) {
  traceprism::testing::TempDir dir;
  auto path = dir.write("ok.json", kValidTrace);
  auto blocker = dir.write("not_a_folder", "x");
  auto r = run_cli("perf-report -q " + quote(path) + " -o " + quote(blocker));
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(
      r.err.rfind("error: " + blocker + ": cannot write the report: it exists and is not a folder",
                  0),
      0u)
      << r.err;
  EXPECT_EQ(traceprism::testing::read_file(blocker), "x");  // nothing overwritten
}

TEST(Cli, InspectOutputIsReproducible) {
  traceprism::testing::TempDir dir;
  auto path = dir.write("ok.json", kValidTrace);
  for (const char* flags : {"", "--json "}) {
    auto first = run_cli(std::string("inspect ") + flags + quote(path));
    auto second = run_cli(std::string("inspect ") + flags + quote(path));
    EXPECT_EQ(first.exit_code, 0);
    EXPECT_FALSE(first.out.empty());
    EXPECT_EQ(first.out, second.out);
  }
}

TEST(Cli, ReadsStandardInput) {
  traceprism::testing::TempDir dir;
  auto path = dir.write("ok.json", kValidTrace);
  auto r = run_cli("inspect -q --json -", path);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"path\":\"-\""), std::string::npos) << r.out;
}

}  // namespace

// Every duration within the reader's ±2^62 ns, but sums over overlapping kernels and waits that
// pass 2^63: signed overflow in an analyzer (host-sync summed its waits in int64) is undefined
// behaviour, which the sanitizer build turns into a crashed analyzer. Sums now saturate
// (support::add_ns).
TEST(HugeDurations, SumsPast2To63LeaveEveryAnalyzerRunning) {
  traceprism::testing::TempDir dir;
  const std::string big = "4.5e15";  // µs: 4.5e18 ns
  std::string events =
      R"({"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":0,"dur":)" + big + "}";
  for (int i = 1; i <= 4; ++i) {
    const std::string id = std::to_string(i), stream = std::to_string(6 + i);
    events += R"(,{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":)" +
              id + R"(,"dur":1,"args":{"correlation":)" + id + "}}";
    events += R"(,{"ph":"X","cat":"kernel","name":"gemm_kernel","pid":0,"tid":)" + stream +
              R"(,"ts":)" + std::to_string(9 + i) + R"(,"dur":)" + big +
              R"(,"args":{"correlation":)" + id + R"(,"stream":)" + stream + R"(,"device":0}})";
  }
  for (int i = 0; i < 3; ++i)
    events += R"(,{"ph":"X","cat":"cuda_runtime","name":"cudaDeviceSynchronize","pid":1,"tid":1,)"
              R"("ts":)" +
              std::to_string(100 + i) + R"(,"dur":)" + big + "}";
  const std::string trace = dir.write("huge.json", R"({"traceEvents":[)" + events + "]}");
  const RunResult r = run_cli("analyze -q " + quote(trace) + " -o " + quote(dir.file("out")));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("failed"), std::string::npos) << r.err;
  const std::string findings = traceprism::testing::read_file(dir.file("out/findings.json"));
  EXPECT_NE(findings.find(R"("name": "host-sync")"), std::string::npos);
  EXPECT_EQ(findings.find(R"("status": "failed")"), std::string::npos);
}
