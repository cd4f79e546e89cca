#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "io/byte_source.hpp"
#include "io/output_file.hpp"
#include "synth/synthetic_trace.hpp"

namespace traceprism::synth {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;

// A fresh directory per test, removed with everything in it at the end of the test.
class ScratchDir {
 public:
  ScratchDir() {
    static int counter = 0;
    path_ = fs::temp_directory_path() / ("traceprism_synth_test_" + std::to_string(::getpid()) +
                                         "_" + std::to_string(counter++));
    fs::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  fs::path operator/(const std::string& name) const { return path_ / name; }

 private:
  fs::path path_;
};

SynthSummary write_trace(const SynthOptions& options, const fs::path& path,
                         io::Compression compression = io::Compression::kNone) {
  io::OutputFile out(path.string(), compression);
  SynthSummary summary = write_synthetic_trace(options, out);
  out.commit();
  return summary;
}

// Decompressed contents, through the same format detection the reader uses.
std::string read_all(const fs::path& path, io::Compression* detected = nullptr) {
  auto source = io::open_byte_source(path.string());
  if (detected) *detected = source->compression();
  std::string text;
  char buf[1 << 16];
  while (std::size_t n = source->read(buf, sizeof buf)) text.append(buf, n);
  return text;
}

std::string generate(const SynthOptions& options) {
  ScratchDir dir;
  fs::path path = dir / "trace.json";
  write_trace(options, path);
  return read_all(path);
}

// Microsecond timestamps as integer ns: the doubles hold them to well under 0.5 ns.
std::int64_t ns(const json::value& v) {
  return std::llround(v.to_number<double>() * 1000.0);
}

struct Span {
  std::int64_t start, end;
  std::string name;
};

// A small trace with every feature on, generated and parsed once for the structural tests.
class SynthTraceTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    SynthOptions options;
    options.layers = 3;
    options.steps = 2;
    options.nccl = true;
    text_ = new std::string(generate(options));
    doc_ = new json::value(json::parse(*text_));
  }
  static void TearDownTestSuite() {
    delete doc_;
    delete text_;
  }
  static const json::array& events() { return doc_->at("traceEvents").as_array(); }
  static std::string cat(const json::object& e) {
    return e.contains("cat") ? std::string(e.at("cat").as_string()) : std::string();
  }
  static std::string text(const json::object& e, const char* key) {
    return std::string(e.at(key).as_string());
  }

  static std::string* text_;
  static json::value* doc_;
};
std::string* SynthTraceTest::text_ = nullptr;
json::value* SynthTraceTest::doc_ = nullptr;

TEST(SynthTest, SameSeedGivesIdenticalBytes) {
  SynthOptions options;
  options.layers = 2;
  options.nccl = true;
  EXPECT_EQ(generate(options), generate(options));
  options.vendor = Vendor::kAmd;
  options.training = false;
  EXPECT_EQ(generate(options), generate(options));
}

TEST(SynthTest, DifferentSeedGivesDifferentBytes) {
  SynthOptions options;
  options.layers = 2;
  std::string first = generate(options);
  options.seed = 43;
  std::string second = generate(options);
  EXPECT_NE(first, second);
  // Only the timing changes: the same events, in the same order.
  EXPECT_EQ(json::parse(first).at("traceEvents").as_array().size(),
            json::parse(second).at("traceEvents").as_array().size());
}

TEST_F(SynthTraceTest, HasTheKinetoTopLevelKeys) {
  const json::object& top = doc_->as_object();
  EXPECT_EQ(top.at("schemaVersion").as_int64(), 1);
  const json::object& device = top.at("deviceProperties").as_array().at(0).as_object();
  EXPECT_EQ(text(device, "name"), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(device.at("numSms").as_int64(), 132);
  EXPECT_EQ(top.at("cuda_runtime_version").as_int64(), 12040);
  EXPECT_EQ(top.at("baseTimeNanoseconds").as_int64(), 1700000000000000000);
  EXPECT_EQ(top.at("distributedInfo").at("world_size").as_int64(), 8);
}

TEST_F(SynthTraceTest, HasEveryEventKind) {
  std::map<std::string, int> by_cat;
  std::set<std::string> metadata;
  for (const json::value& v : events()) {
    const json::object& e = v.as_object();
    ++by_cat[cat(e)];
    if (text(e, "ph") == "M") metadata.insert(text(e, "name"));
  }
  for (const char* c :
       {"kernel", "cpu_op", "cuda_runtime", "python_function", "user_annotation",
        "gpu_user_annotation", "gpu_memcpy", "gpu_memset", "cpu_instant_event", "ac2g"}) {
    EXPECT_GT(by_cat[c], 0) << c;
  }
  EXPECT_EQ(metadata, (std::set<std::string>{"process_name", "process_labels", "process_sort_index",
                                             "thread_name", "thread_sort_index"}));
}

TEST_F(SynthTraceTest, TimestampsHaveExactlyThreeDecimals) {
  int checked = 0;
  for (const std::string key : {"\"ts\":", "\"dur\":"}) {
    for (std::size_t at = text_->find(key); at != std::string::npos;
         at = text_->find(key, at + 1)) {
      std::size_t begin = at + key.size();
      std::size_t end = text_->find_first_of(",}", begin);
      std::string number = text_->substr(begin, end - begin);
      std::size_t dot = number.find('.');
      ASSERT_NE(dot, std::string::npos) << number;
      EXPECT_EQ(number.size() - dot - 1, 3u) << number;
      EXPECT_TRUE(std::all_of(number.begin(), number.end(), [](char c) {
        return c == '.' || (c >= '0' && c <= '9');
      })) << number;
      ++checked;
    }
  }
  EXPECT_GT(checked, 1000);
}

TEST_F(SynthTraceTest, EveryGpuActivityHasItsLaunchAndFlows) {
  std::map<std::int64_t, const json::object*> runtime, starts, ends;
  std::vector<const json::object*> activities;
  for (const json::value& v : events()) {
    const json::object& e = v.as_object();
    const std::string ph = text(e, "ph"), c = cat(e);
    if (c == "cuda_runtime") {
      EXPECT_TRUE(runtime.emplace(e.at("args").at("correlation").as_int64(), &e).second)
          << "correlation ids are unique";
    }
    if (ph == "s") {
      EXPECT_TRUE(starts.emplace(e.at("id").as_int64(), &e).second);
    }
    if (ph == "f") {
      EXPECT_TRUE(ends.emplace(e.at("id").as_int64(), &e).second);
    }
    if (c == "kernel" || c == "gpu_memcpy" || c == "gpu_memset") activities.push_back(&e);
  }
  ASSERT_GT(activities.size(), 50u);
  for (const json::object* a : activities) {
    const std::int64_t correlation = a->at("args").at("correlation").as_int64();
    ASSERT_TRUE(runtime.count(correlation) && starts.count(correlation) && ends.count(correlation))
        << correlation;
    const json::object& launch = *runtime[correlation];
    const json::object& end = *ends[correlation];
    EXPECT_EQ(ns(starts[correlation]->at("ts")), ns(launch.at("ts")));
    EXPECT_EQ(ns(end.at("ts")), ns(a->at("ts")));
    EXPECT_EQ(end.at("tid"), a->at("tid"));
    EXPECT_EQ(end.at("pid"), a->at("pid"));
    EXPECT_GT(ns(a->at("ts")), ns(launch.at("ts"))) << "a kernel starts after its launch";
    EXPECT_EQ(a->at("args").at("External id"), launch.at("args").at("External id"));
  }
  // Flow ends exist only for GPU activities; the flow starts left over are those of the calls
  // that launch nothing (the collectives' event record and wait).
  EXPECT_EQ(ends.size(), activities.size());
  for (const auto& [id, start] : starts) {
    if (ends.count(id)) continue;
    const std::string name = text(*runtime[id], "name");
    EXPECT_TRUE(name == "cudaEventRecord" || name == "cudaStreamWaitEvent") << name;
  }
}

TEST_F(SynthTraceTest, HostEventsNestPerThread) {
  std::map<std::int64_t, std::vector<Span>> threads;
  for (const json::value& v : events()) {
    const json::object& e = v.as_object();
    const std::string c = cat(e);
    if (text(e, "ph") != "X" || (c != "cpu_op" && c != "python_function" &&
                                 c != "user_annotation" && c != "cuda_runtime")) {
      continue;
    }
    std::int64_t start = ns(e.at("ts"));
    threads[e.at("tid").as_int64()].push_back({start, start + ns(e.at("dur")), text(e, "name")});
  }
  EXPECT_EQ(threads.size(), 2u) << "the main thread and the autograd thread";
  for (auto& [tid, spans] : threads) {
    std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) {
      return std::tie(a.start, b.end) < std::tie(b.start, a.end);
    });
    std::vector<Span> stack;
    int nested = 0;
    for (const Span& s : spans) {
      while (!stack.empty() && stack.back().end <= s.start) stack.pop_back();
      if (!stack.empty()) {
        EXPECT_GT(s.start, stack.back().start) << s.name << " in " << stack.back().name;
        EXPECT_LT(s.end, stack.back().end) << s.name << " in " << stack.back().name;
        ++nested;
      }
      stack.push_back(s);
    }
    EXPECT_GT(nested, 100) << tid;
  }
}

TEST_F(SynthTraceTest, GpuActivitiesNeverOverlapOnAStream) {
  std::map<std::int64_t, std::vector<Span>> streams;
  for (const json::value& v : events()) {
    const json::object& e = v.as_object();
    const std::string c = cat(e);
    if (c != "kernel" && c != "gpu_memcpy" && c != "gpu_memset") continue;
    EXPECT_EQ(e.at("args").at("stream"), e.at("tid"));
    std::int64_t start = ns(e.at("ts"));
    streams[e.at("tid").as_int64()].push_back({start, start + ns(e.at("dur")), text(e, "name")});
  }
  ASSERT_EQ(streams.size(), 2u) << "compute stream 7 and NCCL stream 20";
  for (auto& [stream, spans] : streams) {
    std::sort(spans.begin(), spans.end(),
              [](const Span& a, const Span& b) { return a.start < b.start; });
    for (std::size_t i = 1; i < spans.size(); ++i) {
      EXPECT_GE(spans[i].start, spans[i - 1].end)
          << spans[i].name << " after " << spans[i - 1].name;
    }
  }
  // Communication runs alongside compute for part of its time, and on its own for the rest.
  std::int64_t overlapped = 0, total = 0;
  for (const Span& comm : streams.at(20)) {
    EXPECT_NE(comm.name.find("ncclDevKernel_AllReduce"), std::string::npos);
    total += comm.end - comm.start;
    for (const Span& k : streams.at(7)) {
      overlapped +=
          std::max<std::int64_t>(0, std::min(comm.end, k.end) - std::max(comm.start, k.start));
    }
  }
  EXPECT_GT(overlapped, 0);
  EXPECT_LT(overlapped, total);
}

TEST_F(SynthTraceTest, BackwardNodesCarryTheirForwardSequenceNumbers) {
  std::set<std::int64_t> forward, backward;
  for (const json::value& v : events()) {
    const json::object& e = v.as_object();
    if (cat(e) != "cpu_op" || !e.at("args").as_object().contains("Sequence number")) continue;
    const std::int64_t seq = e.at("args").at("Sequence number").as_int64();
    if (text(e, "name").starts_with("autograd::engine::evaluate_function: ")) {
      backward.insert(seq);
    } else if (text(e, "name").starts_with("aten::")) {
      forward.insert(seq);
    }
  }
  EXPECT_GT(backward.size(), 20u);
  EXPECT_EQ(forward, backward);
}

TEST(SynthTest, InferenceHasNoBackwardPass) {
  SynthOptions options;
  options.layers = 2;
  options.training = false;
  std::string text = generate(options);
  EXPECT_EQ(text.find("autograd::engine"), std::string::npos);
  EXPECT_EQ(text.find("Optimizer.step"), std::string::npos);
  EXPECT_NE(text.find("\"cat\":\"kernel\""), std::string::npos);
  EXPECT_NE(text.find("aten::_softmax"), std::string::npos);
}

TEST(SynthTest, AmdUsesHipNamesAndItsGpuRow) {
  SynthOptions options;
  options.layers = 2;
  options.vendor = Vendor::kAmd;
  json::value doc = json::parse(generate(options));
  EXPECT_TRUE(doc.as_object().contains("hip_runtime_version"));
  EXPECT_EQ(doc.at("deviceProperties").at(0).at("warpSize").as_int64(), 64);
  std::set<std::string> launches;
  int kernels = 0;
  for (const json::value& v : doc.at("traceEvents").as_array()) {
    const json::object& e = v.as_object();
    if (!e.contains("cat")) continue;
    if (e.at("cat") == "cuda_runtime") launches.insert(std::string(e.at("name").as_string()));
    if (e.at("cat") == "kernel") {
      EXPECT_EQ(e.at("pid").as_int64(), 2);
      EXPECT_EQ(e.at("tid").as_int64(), 0);
      ++kernels;
    }
  }
  EXPECT_GT(kernels, 20);
  EXPECT_TRUE(launches.count("hipLaunchKernel") && launches.count("hipExtModuleLaunchKernel"));
  EXPECT_FALSE(launches.count("cudaLaunchKernel"));
}

TEST(SynthTest, TargetSizeAddsStepsUntilReached) {
  ScratchDir dir;
  fs::path path = dir / "target.json";
  SynthOptions options;
  options.layers = 2;
  options.steps = 1;
  options.target_mb = 1.5;
  SynthSummary summary = write_trace(options, path);
  EXPECT_GE(summary.json_bytes, 1'500'000u);
  EXPECT_EQ(fs::file_size(path), summary.json_bytes);
  EXPECT_GT(summary.steps, 1);
  json::value doc = json::parse(read_all(path));
  EXPECT_EQ(doc.at("traceEvents").as_array().size(), summary.events);
}

TEST(SynthTest, CompressedOutputsHoldTheSameJson) {
  SynthOptions options;
  options.layers = 2;
  const std::string plain = generate(options);
  ScratchDir dir;
  for (io::Compression c : {io::Compression::kGzip, io::Compression::kZstd}) {
    fs::path path = dir / (std::string("trace.json.") + io::compression_name(c));
    write_trace(options, path, c);
    EXPECT_LT(fs::file_size(path), plain.size() / 4);
    io::Compression detected = io::Compression::kNone;
    EXPECT_EQ(read_all(path, &detected), plain);
    EXPECT_EQ(detected, c);
  }
}

TEST(SynthTest, RejectsEmptyWorkloads) {
  ScratchDir dir;
  io::OutputFile out((dir / "invalid.json").string());
  SynthOptions options;
  options.layers = 0;
  EXPECT_THROW(write_synthetic_trace(options, out), std::invalid_argument);
}

}  // namespace
}  // namespace traceprism::synth
