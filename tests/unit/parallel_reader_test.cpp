// The parallel reader (ingest/parallel_reader.hpp) against the one-thread reader: the same index
// (fingerprinted whole: strings in id order, rows, byte offsets of the import examples,
// metadata) for any thread count, chunk size and batch size, and, for what it does not read
// itself, the same error through the fallback.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "ingest/event_splitter.hpp"
#include "ingest/trace_reader.hpp"
#include "io/input_error.hpp"
#include "support/index_fingerprint.hpp"
#include "support/trace_builder.hpp"

namespace {

using traceprism::ingest::read_trace_bytes;
using traceprism::ingest::ReadOptions;
using traceprism::ingest::TraceFile;
using traceprism::testing::index_fingerprint;

ReadOptions one_thread(std::size_t chunk_bytes) {
  ReadOptions o;
  o.chunk_bytes = chunk_bytes;
  return o;
}

ReadOptions parallel(std::size_t chunk_bytes, std::size_t batch_bytes, unsigned threads) {
  ReadOptions o = one_thread(chunk_bytes);
  o.threads = threads;
  o.batch_bytes = batch_bytes;
  o.parallel_min_bytes = 0;
  return o;
}

// What the reader said: the fingerprint of the index, or the error.
std::string outcome(const std::string& text, const ReadOptions& options,
                    unsigned* parse_threads = nullptr) {
  try {
    TraceFile file = read_trace_bytes(text, "t.json", options);
    if (parse_threads) *parse_threads = file.parse_threads;
    return index_fingerprint(file.index);
  } catch (const traceprism::io::InputError& e) {
    return std::string("error: ") + e.what();
  }
}

// Every (chunk, batch, threads) combination gives the one-thread reader's result; `splits`
// says whether the parallel reader must have done the work itself (not fallen back).
void expect_same_everywhere(const std::string& text, bool splits) {
  for (std::size_t chunk : {1, 3, 7, 64, 4096}) {
    const std::string expected = outcome(text, one_thread(chunk));
    for (std::size_t batch : {1, 5, 40, 1000}) {
      for (unsigned threads : {2u, 3u}) {
        unsigned used = 0;
        EXPECT_EQ(outcome(text, parallel(chunk, batch, threads), &used), expected)
            << "chunk " << chunk << ", batch " << batch << ", threads " << threads;
        if (splits) {
          EXPECT_EQ(used, threads) << "fell back: chunk " << chunk << ", batch " << batch;
        }
      }
    }
  }
}

// Launches, flows, metadata, B/E pairs, string ids, escapes and brackets inside names,
// non-object elements, malformed and legacy events: every path of the handler and the builder.
std::string varied_trace() {
  traceprism::testing::TraceText t;
  t.event(R"({"ph":"M","name":"process_name","pid":100,"args":{"name":"python3 \u00e9"}})");
  t.event(R"({"ph":"M","name":"thread_name","pid":100,"tid":"7","args":{"name":"main"}})");
  t.launch("aten::mm", 10, 40, "gemm_kernel<[1,2],{3}>", 60, 20, 7, 1);
  t.launch("aten::add", 55, 30, "elementwise \\\"quoted\\\", kernel]", 90, 5, 7, 2);
  t.event(R"({"ph":"B","name":"step","pid":100,"tid":100,"ts":1})");
  t.event(R"( 17 )");
  t.event(
      R"({"ph":"X","cat":"cpu_op","name":"aten::linear","pid":"100","tid":"100","ts":3,"dur":2,)"
      R"("args":{"Input Dims":[[4,8],[8,16]],"Input type":["float","float"],"External id":9}})");
  t.event(R"([1,2,[3]])");
  t.event(R"({})");
  t.event(R"("a string element")");
  t.event(R"({"ph":"X","cat":"cpu_op","name":"bad ts","pid":100,"tid":100,"ts":"x","dur":1})");
  t.event(
      R"({"ph":"X","cat":"Operator","name":"legacy","pid":100,"tid":100,"ts":4.0000001,"dur":1})");
  t.event(R"({"ph":"E","name":"step","pid":100,"tid":100,"ts":200})");
  t.event(R"({"ph":"f","cat":"ac2g","name":"flow without id","pid":0,"tid":7,"ts":61,"bp":"e"})");
  t.event(R"(true)");
  t.event(R"(null)");
  t.event(R"(-2.5e1)");
  return t.str(R"("schemaVersion":1,"deviceProperties":[{"id":0,"name":"NVIDIA H100"}])");
}

TEST(ParallelReader, GivesTheOneThreadIndexForAnyChunkBatchAndThreadCount) {
  expect_same_everywhere(varied_trace(), /*splits=*/true);
}

TEST(ParallelReader, KeysAfterTheEventsAndTwoEventArrays) {
  const std::string two_arrays =
      R"({"traceEvents":[{"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":1,"dur":1}],)"
      R"("displayTimeUnit":"ms","traceEvents" : [ {"ph":"X","cat":"cpu_op","name":"b","pid":1,)"
      R"("tid":1,"ts":2,"dur":1}, 5 ],"distributedInfo":{"rank":0,"world_size":2}})"
      "\n\n";
  expect_same_everywhere(two_arrays, /*splits=*/true);
  EXPECT_NE(outcome(two_arrays, one_thread(4096)).find("metadata 0 2 "), std::string::npos);
}

TEST(ParallelReader, EmptyAndWhitespaceOnlyArrays) {
  expect_same_everywhere(R"({"traceEvents":[]})", /*splits=*/true);
  expect_same_everywhere("{\"traceEvents\":[ \n\t ],\"x\":[1]}", /*splits=*/true);
}

// What the splitter does not take apart is read by one thread: the same result either way.
TEST(ParallelReader, FallsBackToOneThreadWithTheSameResult) {
  const std::vector<std::string> texts = {
      R"([{"ph":"X","cat":"cpu_op","name":"bare","pid":1,"tid":1,"ts":1,"dur":1}])",
      R"({"trace\u0045vents":[{"ph":"X","cat":"cpu_op","name":"esc","pid":1,"tid":1,"ts":1,"dur":1}]})",
      "\xEF\xBB\xBF{\"traceEvents\":[]}",
      R"({"traceEvents":[{"ph":"X","name":"a"},]})",  // a trailing comma
      R"({"traceEvents":[{"ph":"X","name":"a"} {"ph":"X"}]})",
      R"({"traceEvents":[{"ph":"X","name":"a\u00"}]})",
      R"({"traceEvents":[{"ph":"X","name":"a"}]} extra)",
      R"({"traceEvents":[{"ph":"X","name":"a"}]}{})",
      R"({"traceEvents":[{"ph":"X","name":"a"})",  // truncated
      R"({"traceEvents":{"a":1}})",
      R"({"other":[1,2]})",
      "",
  };
  for (const std::string& text : texts) {
    SCOPED_TRACE(text);
    expect_same_everywhere(text, /*splits=*/false);
  }
}

TEST(ParallelReader, StrictModeStopsAtTheSameEvent) {
  const std::string text = varied_trace();
  ReadOptions strict_one = one_thread(64);
  strict_one.strict = true;
  ReadOptions strict_parallel = parallel(64, 40, 2);
  strict_parallel.strict = true;
  const std::string expected = outcome(text, strict_one);
  ASSERT_EQ(expected.rfind("error: ", 0), 0u) << "the trace has malformed events";
  EXPECT_EQ(outcome(text, strict_parallel), expected);
}

TEST(ParallelReader, SmallInputsStayOnOneThread) {
  ReadOptions o = parallel(4096, 1000, 2);
  o.parallel_min_bytes = 1 << 20;
  EXPECT_EQ(read_trace_bytes(varied_trace(), "t.json", o).parse_threads, 1u);
}

// The splitter's ranges, concatenated, are the text again, and it finds every element.
class RecordingConsumer final : public traceprism::ingest::EventSplitter::Consumer {
 public:
  void document(std::string_view text, std::uint64_t) override { rebuilt += text; }
  void elements(std::string_view text, std::uint64_t) override {
    rebuilt += text;
    current += text;
  }
  void separator(std::uint64_t) override {
    rebuilt += ',';
    found.push_back(current);
    current.clear();
  }
  void array_end() override {
    found.push_back(current);
    current.clear();
  }
  std::string rebuilt, current;
  std::vector<std::string> found;
};

TEST(EventSplitter, FindsTheElementsWhateverTheChunks) {
  const std::string text =
      R"({"a":{"traceEvents":[9]},"s":"traceEvents","traceEvents":[{"n":"x,]\"}"},[1,2] , "\\",3]})";
  for (std::size_t chunk = 1; chunk <= text.size(); ++chunk) {
    traceprism::ingest::EventSplitter splitter;
    RecordingConsumer out;
    for (std::size_t at = 0; at < text.size(); at += chunk)
      splitter.scan(std::string_view(text).substr(at, chunk), at, out);
    EXPECT_EQ(out.rebuilt, text);
    EXPECT_EQ(out.found, (std::vector<std::string>{R"({"n":"x,]\"}"})", "[1,2] ", R"( "\\")", "3"}))
        << "chunk " << chunk;
  }
}

// Every call the splitter makes, with its offset, in order.
class CallLog final : public traceprism::ingest::EventSplitter::Consumer {
 public:
  void document(std::string_view text, std::uint64_t offset) override {
    log += "d" + std::to_string(offset) + ":" + std::string(text) + "\n";
  }
  void elements(std::string_view text, std::uint64_t offset) override {
    log += "e" + std::to_string(offset) + ":" + std::string(text) + "\n";
  }
  void separator(std::uint64_t offset) override { log += "s" + std::to_string(offset) + "\n"; }
  void array_end() override { log += "]\n"; }
  std::string log;
};

std::string split_log(const std::string& text, std::size_t chunk, bool in_blocks) {
  traceprism::ingest::EventSplitter splitter(in_blocks);
  CallLog out;
  for (std::size_t at = 0; at < text.size(); at += chunk)
    splitter.scan(std::string_view(text).substr(at, chunk), at, out);
  return out.log;
}

// A random element: nested objects and arrays, numbers, literals, and strings (some longer
// than a block) full of brackets, commas, quotes and backslashes, escaped or not.
std::string random_element(std::mt19937& rng, int depth) {
  const auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const auto random_string = [&] {
    static const std::vector<std::string> kPieces = {
        "a", "kernel", "{", "}", "[", "]", ",", ":", " ", "traceEvents", "0123456789abcdef"};
    static const std::vector<std::string> kEscapes = {"\\\"", "\\\\", "\\n", "\\u0041", "\\/"};
    std::string s = "\"";
    for (int n = pick(pick(4) == 0 ? 40 : 6); n > 0; --n) {
      s += pick(40) == 0 ? kEscapes[pick(static_cast<int>(kEscapes.size()))]
                         : kPieces[pick(static_cast<int>(kPieces.size()))];
    }
    return s + "\"";
  };
  const int kind = depth > 3 ? pick(3) : pick(5);
  if (kind == 0) return random_string();
  if (kind == 1) return std::to_string(static_cast<int>(rng() % 100000)) + (pick(2) ? ".5" : "");
  if (kind == 2) return pick(2) ? "true" : "null";
  const bool object = kind == 3;
  std::string s = object ? "{" : "[";
  for (int n = pick(6); n > 0; --n) {
    if (s.size() > 1) s += pick(3) ? "," : " , ";
    if (object) s += random_string() + (pick(2) ? ":" : " : ");
    s += random_element(rng, depth + 1);
  }
  return s + (object ? "}" : "]");
}

// The 64-byte block scan makes exactly the byte loop's calls, wherever the chunks are cut.
TEST(EventSplitter, BlockScanMakesTheByteScansCalls) {
  std::mt19937 rng(20261206);
  for (int doc = 0; doc < 60; ++doc) {
    std::string text = R"({"schemaVersion":1, "traceEvents" : [)";
    for (int n = static_cast<int>(rng() % 40); n > 0; --n) {
      if (text.back() != '[') text += rng() % 4 ? "," : "\n, ";
      text += random_element(rng, 0);
    }
    text += doc % 5 == 0 ? "" : "], \"after\":[\"x,]\"]}";  // some end inside the array
    SCOPED_TRACE("document " + std::to_string(doc));
    for (std::size_t chunk : {std::size_t{1}, std::size_t{13}, std::size_t{63}, std::size_t{64},
                              std::size_t{65}, std::size_t{200}, std::size_t{4096}, text.size()}) {
      const std::string expected = split_log(text, chunk, /*in_blocks=*/false);
      EXPECT_EQ(split_log(text, chunk, /*in_blocks=*/true), expected) << "chunk " << chunk;
    }
  }
}

TEST(EventSplitter, RefusesADocumentThatIsNotAnObject) {
  traceprism::ingest::EventSplitter splitter;
  RecordingConsumer out;
  EXPECT_THROW(splitter.scan("  [1]", 0, out), traceprism::ingest::NotSplittable);
}

}  // namespace
