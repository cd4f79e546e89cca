#include "ingest/trace_reader.hpp"

#include <gtest/gtest.h>

#include <limits>

#include "ingest/time_text.hpp"
#include "io/input_error.hpp"
#include "io/output_file.hpp"
#include "model/call_tree.hpp"
#include "model/launch_links.hpp"
#include "support/temp_dir.hpp"
#include "support/trace_builder.hpp"

using traceprism::index::EventKind;
using traceprism::index::ImportIssue;
using traceprism::index::Row;
using traceprism::ingest::read_trace;
using traceprism::ingest::ReadOptions;

namespace {

traceprism::testing::TraceText small_trace() {
  traceprism::testing::TraceText t;
  t.launch("aten::mm", 1000.5, 100.25, "gemm_kernel", 1200.125, 50.001, 7, 10);
  t.x("cpu_op", "aten::linear", "1419247333291.708", "22.51",
      R"({"External id": 2, "Input Dims": [[1, 512], [], [[3], [4, 5]]], "Input type": ["c10::BFloat16", "Scalar", "TensorList"], "Concrete Inputs": ["", "1", "say \"hi\""], "Sequence number": 77})");
  t.event(
      R"({"name": "process_name", "ph": "M", "pid": 100, "tid": 0, "args": {"name": "python3"}})");
  t.event(
      R"({"name": "thread_name", "ph": "M", "pid": 0, "tid": 7, "args": {"name": "stream 7 "}})");
  t.event(
      R"({"name": "thread_sort_index", "ph": "M", "pid": 0, "tid": 7, "args": {"sort_index": 3}})");
  t.event(
      R"json({"ph": "X", "cat": "Trace", "ts": 900, "dur": 2000, "pid": "Spans", "tid": "PyTorch Profiler", "name": "PyTorch Profiler (0)", "args": {"Op count": 0}})json");
  t.event(
      R"({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 100, "tid": 100, "ts": 1001})");
  return t;
}

const std::string kTop =
    R"("schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85018279936, "numSms": 132, "warpSize": 32}], "distributedInfo": {"backend": "nccl", "rank": 3, "world_size": 8}, "metadata": {"deep": {"ignored": [1, 2, {"x": null}]}}, "cuda_runtime_version": 12040)";

TEST(TraceReader, ReadsEventsArgsAndTopLevelKeys) {
  traceprism::testing::TempDir dir;
  auto file = read_trace(dir.write("t.json", small_trace().str(kTop)));
  const auto& x = file.index;
  ASSERT_EQ(x.size(), 11u);
  EXPECT_EQ(x.kind(0), EventKind::kCpuOp);
  EXPECT_EQ(x.ts_ns(0), 1000500);
  EXPECT_EQ(x.dur_ns(0), 100250);
  EXPECT_EQ(x.kind(2), EventKind::kKernel);
  EXPECT_EQ(x.correlation(2), 10);
  ASSERT_TRUE(x.gpu_args(2).has_value());
  EXPECT_EQ(x.gpu_args(2)->stream, 7);
  EXPECT_EQ(x.kind(3), EventKind::kFlowStart);
  EXPECT_EQ(x.flow_id(3), 10);

  Row linear = 5;
  EXPECT_EQ(x.name(linear), "aten::linear");
  EXPECT_EQ(x.ts_ns(linear), 1419247333291708);
  EXPECT_EQ(x.external_id(linear), 2);
  const auto args = x.op_args(linear);
  ASSERT_TRUE(args.has_value());
  EXPECT_EQ(x.strings().view(args->input_dims), "[[1,512],[],[[3],[4,5]]]");
  EXPECT_EQ(x.strings().view(args->input_types), R"(["c10::BFloat16","Scalar","TensorList"])");
  EXPECT_EQ(x.strings().view(args->concrete_inputs), R"(["","1","say \"hi\""])");
  EXPECT_EQ(args->sequence_number, 77);
  const auto* shapes = x.input_shapes(linear);
  ASSERT_NE(shapes, nullptr);
  ASSERT_EQ(shapes->arg_count(), 3u);
  EXPECT_EQ(shapes->arg_dims(0).size(), 2u);
  EXPECT_EQ(shapes->arg_dims(0)[1], 512);
  EXPECT_EQ(shapes->arg(1).tensor_count, 0u);
  EXPECT_TRUE(shapes->arg(2).is_list);
  EXPECT_EQ(shapes->arg(2).tensor_count, 2u);

  EXPECT_EQ(x.id_string(x.pid(9)), "Spans");
  const auto& meta = x.metadata();
  ASSERT_EQ(meta.devices.size(), 1u);
  EXPECT_EQ(meta.devices[0].name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(meta.devices[0].num_sms, 132);
  ASSERT_TRUE(meta.distributed.has_value());
  EXPECT_EQ(meta.distributed->rank, 3);
  EXPECT_EQ(meta.keys.at("cuda_runtime_version"), "12040");
  EXPECT_EQ(meta.keys.count("metadata"), 0u);
  EXPECT_EQ(meta.processes.at(x.pid(0)).name, "python3");
  EXPECT_EQ(meta.thread_names.at({x.pid(2), x.tid(2)}), "stream 7 ");
  EXPECT_EQ(meta.thread_sort_indices.at({x.pid(2), x.tid(2)}), 3);
  EXPECT_TRUE(x.stats().empty());
}

// ReadOptions::keep: refused complete events are left out; other phases and the events it keeps
// are read as without it (multi-rank --rank-depth light).
TEST(TraceReader, KeepLeavesOutTheCompleteEventsItRefuses) {
  traceprism::testing::TempDir dir;
  traceprism::testing::TraceText t = small_trace();
  t.event(
      R"({"ph": "B", "cat": "cpu_op", "name": "aten::begin_end", "pid": 1, "tid": 1, "ts": 5})");
  t.event(
      R"({"ph": "E", "cat": "cpu_op", "name": "aten::begin_end", "pid": 1, "tid": 1, "ts": 9})");
  const std::string path = dir.write("t.json", t.str(kTop));
  const auto whole = read_trace(path);
  ReadOptions options;
  options.keep = [](EventKind kind, std::string_view name) {
    return kind != EventKind::kCpuOp || name == "aten::mm";
  };
  const auto kept = read_trace(path, options);
  // aten::linear (X) is left out; aten::mm (X) and the B/E pair stay.
  EXPECT_EQ(kept.index.size(), whole.index.size() - 1);
  std::vector<std::string> names;
  for (Row r = 0; r < kept.index.size(); ++r)
    if (kept.index.kind(r) == EventKind::kCpuOp) names.emplace_back(kept.index.name(r));
  EXPECT_EQ(names, (std::vector<std::string>{"aten::mm", "aten::begin_end"}));
  EXPECT_EQ(kept.index.dur_ns(kept.index.size() - 2), 4000);  // the pair still closes
  EXPECT_EQ(kept.index.metadata().devices.size(), 1u);
  EXPECT_TRUE(kept.index.stats().empty());
}

// Tokens split at every possible place across decompressed chunks must not change anything.
TEST(TraceReader, ChunkBoundariesDoNotMatter) {
  traceprism::testing::TempDir dir;
  const std::string path = dir.write("t.json", small_trace().str(kTop));
  auto whole = read_trace(path);
  for (std::size_t chunk : {1u, 2u, 3u, 7u, 64u, 1000u}) {
    ReadOptions options;
    options.chunk_bytes = chunk;
    auto split = read_trace(path, options);
    ASSERT_EQ(split.index.size(), whole.index.size()) << chunk;
    for (Row r = 0; r < whole.index.size(); ++r) {
      EXPECT_EQ(split.index.ts_ns(r), whole.index.ts_ns(r)) << chunk;
      EXPECT_EQ(split.index.dur_ns(r), whole.index.dur_ns(r)) << chunk;
      EXPECT_EQ(split.index.name(r), whole.index.name(r)) << chunk;
      EXPECT_EQ(split.index.kind(r), whole.index.kind(r)) << chunk;
      EXPECT_EQ(split.index.correlation(r), whole.index.correlation(r)) << chunk;
    }
    EXPECT_EQ(split.index.strings().view(split.index.op_args(5)->input_dims),
              "[[1,512],[],[[3],[4,5]]]");
    EXPECT_EQ(split.index.metadata().devices.size(), 1u);
  }
}

TEST(TraceReader, GzipAndZstdAreDetectedByMagicBytes) {
  traceprism::testing::TempDir dir;
  const std::string text = small_trace().str(kTop);
  for (auto c : {traceprism::io::Compression::kGzip, traceprism::io::Compression::kZstd}) {
    // Deliberately misleading extension: detection must use the content.
    traceprism::io::OutputFile out(dir.file("trace.json"), c);
    out.write(text);
    out.commit();
    auto file = read_trace(dir.file("trace.json"));
    EXPECT_EQ(file.compression, c);
    EXPECT_EQ(file.index.size(), 11u);
    EXPECT_EQ(file.json_bytes, text.size());
  }
}

TEST(TraceReader, MalformedEventsAreCountedAndSkipped) {
  traceprism::testing::TraceText t;
  t.x("cpu_op", "good", "1", "2");
  t.event(
      R"({"ph": "X", "cat": "cpu_op", "name": "ts_string", "pid": 1, "tid": 1, "ts": "12", "dur": 1})");
  t.event(R"({"ph": "X", "cat": "cpu_op", "name": "no_dur", "pid": 1, "tid": 1, "ts": 12})");
  t.event(
      R"({"ph": "X", "cat": "kernel", "name": "neg_dur", "pid": 0, "tid": 7, "ts": 12, "dur": -3})");
  t.event(R"({"cat": "cpu_op", "name": "no_ph", "pid": 1, "tid": 1, "ts": 12, "dur": 1})");
  t.event(R"(42)");
  t.event(R"({"ph": "s", "cat": "ac2g", "pid": 1, "tid": 1, "ts": 12})");
  t.event(R"({"ph": "E", "pid": 1, "tid": 1, "ts": 12})");
  traceprism::testing::TempDir dir;
  auto file = read_trace(dir.write("t.json", t.str()));
  const auto& x = file.index;
  EXPECT_EQ(x.size(), 8u);  // every element keeps its row (UID)
  const auto& s = x.stats();
  EXPECT_EQ(s.count(ImportIssue::kBadTimestamp), 1u);
  EXPECT_EQ(s.count(ImportIssue::kMissingDuration), 1u);
  EXPECT_EQ(s.count(ImportIssue::kNegativeDuration), 1u);
  EXPECT_EQ(s.count(ImportIssue::kMissingPhase), 1u);
  EXPECT_EQ(s.count(ImportIssue::kNotAnObject), 1u);
  EXPECT_EQ(s.count(ImportIssue::kMissingFlowId), 1u);
  EXPECT_EQ(s.count(ImportIssue::kUnmatchedEnd), 1u);
  EXPECT_EQ(s.skipped_events(), 6u);
  EXPECT_EQ(s.examples(ImportIssue::kBadTimestamp).front().event_index, 1u);
  EXPECT_EQ(s.examples(ImportIssue::kBadTimestamp).front().detail,
            "expected \"ts\" to be a number, got a string");
  EXPECT_EQ(x.rows_of_kind(EventKind::kCpuOp).size(), 1u);
  EXPECT_EQ(x.rows_of_kind(EventKind::kKernel).size(),
            1u);  // negative dur kept, like the reference
  EXPECT_EQ(x.dur_ns(3), -3000);
}

// Times near ±2^63 ns used to overflow the trace's span ("time span -0.000 ms"). Each time
// and each end now lies within ±(2^62 - 1) ns; beyond that the event is malformed.
TEST(TraceReader, TimesWhoseDifferenceWouldOverflowAreMalformed) {
  traceprism::testing::TraceText t;
  t.x("cpu_op", "earliest", "-4611686018427387.903", "0");
  t.x("cpu_op", "latest", "4611686018427387.000", "0.903");
  t.x("cpu_op", "ts_beyond", "9.2e15", "0");
  t.x("cpu_op", "end_beyond", "4611686018427387", "1");
  t.x("cpu_op", "dur_beyond", "0", "-9.2e15");
  traceprism::testing::TempDir dir;
  const auto& x = read_trace(dir.write("t.json", t.str())).index;
  const auto& s = x.stats();
  EXPECT_EQ(s.count(ImportIssue::kBadTimestamp), 1u);
  EXPECT_EQ(s.count(ImportIssue::kBadDuration), 2u);
  EXPECT_EQ(s.examples(ImportIssue::kBadDuration).front().detail,
            "expected \"ts\" + \"dur\" to end within ±146 years");
  EXPECT_EQ(x.rows_of_kind(EventKind::kCpuOp).size(), 2u);
  EXPECT_EQ(x.first_ts_ns(), -traceprism::ingest::kTimeLimitNs);
  EXPECT_EQ(x.last_end_ns(), traceprism::ingest::kTimeLimitNs);
  EXPECT_EQ(x.last_end_ns() - x.first_ts_ns(), std::numeric_limits<std::int64_t>::max() - 1);
}

// A device property that is not an integer of its field's range is ignored, never cast.
TEST(TraceReader, OutOfRangeDevicePropertiesFallBackToTheirDefaults) {
  traceprism::testing::TraceText t;
  t.x("cpu_op", "op", "1", "2");
  traceprism::testing::TempDir dir;
  const auto file = read_trace(dir.write(
      "t.json",
      t.str(
          R"("deviceProperties": [{"id": 1e36, "numSms": 1e10, "warpSize": 64.0, "computeMajor": 9.5, "totalGlobalMem": 18446744073709551615}], "distributedInfo": {"rank": -1e300, "world_size": 8})")));
  const auto& devices = file.index.metadata().devices;
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices[0].id, 0);  // the entry's position, as when "id" is absent
  EXPECT_EQ(devices[0].num_sms, 0);
  EXPECT_EQ(devices[0].warp_size, 64);
  EXPECT_EQ(devices[0].compute_major, 0);
  EXPECT_EQ(devices[0].total_global_mem, 0);
  ASSERT_TRUE(file.index.metadata().distributed.has_value());
  EXPECT_EQ(file.index.metadata().distributed->rank, -1);
  EXPECT_EQ(file.index.metadata().distributed->world_size, 8);
}

TEST(TraceReader, StrictModeStopsAtTheFirstMalformedEvent) {
  traceprism::testing::TraceText t;
  t.x("cpu_op", "good", "1", "2");
  t.event(
      R"({"ph": "X", "cat": "cpu_op", "name": "ts_string", "pid": 1, "tid": 1, "ts": "12", "dur": 1})");
  traceprism::testing::TempDir dir;
  ReadOptions strict;
  strict.strict = true;
  try {
    read_trace(dir.write("t.json", t.str()), strict);
    FAIL() << "expected an InputError";
  } catch (const traceprism::io::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("event 1 (near byte"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("expected \"ts\" to be a number, got a string"),
              std::string::npos);
  }
}

TEST(TraceReader, BeginEndPairsBecomeCompleteEvents) {
  traceprism::testing::TraceText t;
  t.event(R"({"ph": "B", "cat": "cpu_op", "name": "outer", "pid": 1, "tid": 1, "ts": 10})");
  t.event(R"({"ph": "B", "cat": "cpu_op", "name": "inner", "pid": 1, "tid": 1, "ts": 12})");
  t.event(R"({"ph": "E", "pid": 1, "tid": 1, "ts": 15})");
  t.event(R"({"ph": "E", "pid": 1, "tid": 1, "ts": 20.5})");
  t.event(R"({"ph": "B", "cat": "cpu_op", "name": "never_closed", "pid": 1, "tid": 1, "ts": 30})");
  traceprism::testing::TempDir dir;
  auto file = read_trace(dir.write("t.json", t.str()));
  const auto& x = file.index;
  EXPECT_EQ(x.dur_ns(0), 10500);
  EXPECT_EQ(x.dur_ns(1), 3000);
  EXPECT_EQ(x.kind(0), EventKind::kCpuOp);
  EXPECT_FALSE(x.valid(4));
  EXPECT_EQ(x.stats().count(ImportIssue::kUnclosedBegin), 1u);
  EXPECT_EQ(x.rows_of_kind(EventKind::kCpuOp).size(), 2u);
}

// PyTorch <= 1.9 traces: old category names, "external id", "stream N" tids, async flows,
// integer microseconds.
TEST(TraceReader, LegacyKinetoVocabularyIsNormalized) {
  traceprism::testing::TraceText t;
  t.event(
      R"({"ph": "X", "cat": "Operator", "name": "aten::mm", "pid": 5, "tid": 5, "ts": 100, "dur": 50, "args": {"external id": 3}})");
  t.event(
      R"({"ph": "X", "cat": "Runtime", "name": "cudaLaunchKernel", "pid": 5, "tid": 5, "ts": 110, "dur": 5, "args": {"correlation": 9, "external id": 3}})");
  t.event(
      R"({"ph": "X", "cat": "Kernel", "name": "gemm", "pid": 0, "tid": "stream 7", "ts": 200, "dur": 30, "args": {"correlation": 9, "external id": 3, "device": 0, "stream": 7}})");
  t.event(
      R"({"ph": "s", "cat": "async", "id": 9, "pid": 5, "tid": 5, "ts": 110, "name": "launch"})");
  t.event(
      R"({"ph": "f", "cat": "async", "id": 9, "pid": 0, "tid": "stream 7", "ts": 200, "name": "launch", "bp": "e"})");
  t.event(
      R"({"ph": "X", "cat": "Memcpy", "name": "Memcpy HtoD", "pid": 0, "tid": "stream 7", "ts": 240, "dur": 3, "args": {"device": 0, "stream": 7}})");
  t.event(
      R"({"ph": "X", "cat": "Python", "name": "train.py(1): main", "pid": 5, "tid": 5, "ts": 90, "dur": 200})");
  traceprism::testing::TempDir dir;
  auto file = read_trace(dir.write("t.json", t.str()));
  const auto& x = file.index;
  EXPECT_TRUE(x.metadata().legacy_format);
  EXPECT_EQ(x.kind(0), EventKind::kCpuOp);
  EXPECT_EQ(x.category(0), "cpu_op");
  EXPECT_EQ(x.external_id(0), 3);
  EXPECT_EQ(x.kind(1), EventKind::kCudaRuntime);
  EXPECT_EQ(x.kind(2), EventKind::kKernel);
  EXPECT_EQ(x.id_string(x.tid(2)), "7");
  EXPECT_EQ(x.category(3), "ac2g");
  EXPECT_EQ(x.kind(5), EventKind::kGpuMemcpy);
  EXPECT_EQ(x.kind(6), EventKind::kPythonFunction);
  EXPECT_EQ(x.stats().skipped_events(), 0u);
  EXPECT_GT(x.stats().count(ImportIssue::kLegacyNormalized), 0u);
}

TEST(TraceReader, LegacyTraceLinksItsKernel) {
  traceprism::testing::TraceText t;
  t.event(
      R"({"ph": "X", "cat": "Runtime", "name": "cudaLaunchKernel", "pid": 5, "tid": 5, "ts": 110, "dur": 5, "args": {"correlation": 9}})");
  t.event(
      R"({"ph": "X", "cat": "Kernel", "name": "gemm", "pid": 0, "tid": "stream 7", "ts": 200, "dur": 30, "args": {"correlation": 9, "device": 0, "stream": 7}})");
  t.event(
      R"({"ph": "s", "cat": "async", "id": 9, "pid": 5, "tid": 5, "ts": 110, "name": "launch"})");
  t.event(
      R"({"ph": "f", "cat": "async", "id": 9, "pid": 0, "tid": "stream 7", "ts": 200, "name": "launch", "bp": "e"})");
  traceprism::testing::TempDir dir;
  auto file = read_trace(dir.write("t.json", t.str()));
  auto links = traceprism::model::LaunchLinks::build(file.index);
  EXPECT_EQ(links.linked_count(), 1u);
  EXPECT_EQ(links.launcher(1), 0);
}

// Early Kineto output (its ChromeTraceLogger): host tids as digit strings on ops and runtime
// calls, integers on flow starts, "stream N" on the GPU side.
TEST(TraceReader, LegacyDigitStringTidsAreNumbers) {
  traceprism::testing::TraceText t;
  t.event(
      R"json({"name": "thread_name", "ph": "M", "ts": 1, "pid": 5, "tid": "77", "args": {"name": "thread 77 (python)"}})json");
  t.event(
      R"({"ph": "X", "cat": "Operator", "name": "aten::mm", "pid": 5, "tid": "77", "ts": 100, "dur": 50, "args": {"Device": 5, "External id": 3}})");
  t.event(
      R"({"ph": "X", "cat": "Runtime", "name": "cudaLaunchKernel", "pid": 5, "tid": "77", "ts": 110, "dur": 5, "args": {"cbid": 211, "correlation": 9, "external id": 3}})");
  t.event(
      R"({"ph": "s", "id": 9, "pid": 5, "tid": 77, "ts": 110, "cat": "async", "name": "launch"})");
  t.event(
      R"({"ph": "X", "cat": "Kernel", "name": "gemm", "pid": 0, "tid": "stream 7", "ts": 200, "dur": 30, "args": {"correlation": 9, "external id": 3, "device": 0, "stream": 7}})");
  t.event(
      R"({"ph": "f", "id": 9, "pid": 0, "tid": "stream 7", "ts": 200, "cat": "async", "name": "launch", "bp": "e"})");
  traceprism::testing::TempDir dir;
  auto file = read_trace(dir.write("t.json", t.str()));
  const auto& x = file.index;
  EXPECT_EQ(x.tid(1), x.tid(3));  // "77" on the op == 77 on the flow start
  EXPECT_FALSE(x.ids().value(x.tid(1)).is_string);
  EXPECT_EQ(x.thread(1), x.thread(3));  // and both are on one thread of the timeline
  EXPECT_EQ(x.thread(0), traceprism::index::kNoThread);  // metadata lives on no thread
  EXPECT_EQ(x.metadata().thread_names.at({x.pid(1), x.tid(1)}), "thread 77 (python)");
  auto tree = traceprism::model::CallTree::build(x);
  EXPECT_EQ(tree.parent(2), 1);
  EXPECT_EQ(traceprism::model::LaunchLinks::build(x).launcher(4), 2);
}

TEST(TraceReader, DigitStringTidsStayStringsInCurrentTraces) {
  traceprism::testing::TraceText t;
  t.event(
      R"({"ph": "X", "cat": "cpu_op", "name": "a", "pid": 5, "tid": "77", "ts": 100, "dur": 50})");
  t.event(R"({"ph": "X", "cat": "cpu_op", "name": "b", "pid": 5, "tid": 77, "ts": 110, "dur": 5})");
  traceprism::testing::TempDir dir;
  auto file = read_trace(dir.write("t.json", t.str()));
  EXPECT_NE(file.index.tid(0),
            file.index.tid(1));  // compared with their types, as the reference does
  EXPECT_EQ(file.index.threads().size(), 2u);
  EXPECT_NE(file.index.thread(0), file.index.thread(1));
}

TEST(TraceReader, BareEventArrayIsAccepted) {
  traceprism::testing::TempDir dir;
  auto file = read_trace(dir.write(
      "t.json",
      R"([{"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 1}])"));
  EXPECT_TRUE(file.index.metadata().bare_event_array);
  EXPECT_EQ(file.index.size(), 1u);
}

}  // namespace

namespace {

TEST(TraceReader, TextAfterTheDocumentIsAnError) {
  traceprism::testing::TempDir dir;
  const std::string path = dir.write("t.json", R"({"traceEvents": []}  {"more": 1})");
  try {
    read_trace(path);
    FAIL() << "expected an InputError";
  } catch (const traceprism::io::InputError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "at byte 21 of the JSON text: expected the end of the JSON document"),
              std::string::npos)
        << e.what();
  }
  // Trailing whitespace is fine.
  EXPECT_EQ(read_trace(dir.write("ok.json", "{\"traceEvents\": []}\n\n  ")).index.size(), 0u);
}

TEST(TraceReader, PairedBeginKeepsItsDurationForSubNanosecondTimes) {
  traceprism::testing::TraceText t;
  t.event(R"({"ph": "B", "cat": "cpu_op", "name": "outer", "pid": 1, "tid": 1, "ts": 10.0001})");
  t.event(R"({"ph": "E", "pid": 1, "tid": 1, "ts": 20})");
  t.event(
      R"({"ph": "X", "cat": "cpu_op", "name": "inner", "pid": 1, "tid": 1, "ts": 12, "dur": 2})");
  traceprism::testing::TempDir dir;
  auto file = read_trace(dir.write("t.json", t.str()));
  EXPECT_EQ(file.index.dur_ns(0), 10000);  // 10.0001 µs rounds to 10000 ns
  EXPECT_NEAR(file.index.end_us(0), 20.0, 1e-9);
}

}  // namespace
