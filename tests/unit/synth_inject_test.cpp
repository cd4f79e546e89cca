// The problems `synth --inject` writes into each step (diagnosis spec §9): the AMOUNT syntax,
// each kind's event shapes as a real PyTorch trace has them, the GPU idle (or GPU time) each
// adds per step, a clean trace without idle, and byte-identical output for the same options.
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "io/output_file.hpp"
#include "pipeline/trace_load.hpp"
#include "support/temp_dir.hpp"
#include "synth/injected_problems.hpp"
#include "synth/synthetic_trace.hpp"

namespace traceprism::synth {
namespace {

namespace json = boost::json;
using i64 = std::int64_t;
constexpr i64 kUs = 1000, kMs = 1000 * kUs;
constexpr int kSteps = 3;

struct Generated {
  std::string text;
  model::GpuTimeline timeline;  // as `analyze` measures it: linked GPU events, E2E window
};

Generated generate(const SynthOptions& options) {
  traceprism::testing::TempDir dir;
  const std::string path = dir.file("trace.json");
  {
    io::OutputFile out(path);
    write_synthetic_trace(options, out);
    out.commit();
  }
  pipeline::LoadOptions load;
  load.quiet = true;
  return {traceprism::testing::read_file(path), pipeline::load_trace(path, load).timeline};
}

SynthOptions with(std::initializer_list<std::string_view> injections, int steps = kSteps) {
  SynthOptions options;
  options.steps = steps;
  for (std::string_view text : injections) options.inject.push_back(parse_injection(text));
  return options;
}

// ---- the trace as events with their enclosing host event, times in integer ns

struct Event {
  std::string cat, name;
  i64 tid = 0, start = 0, end = 0;
  const json::object* args = nullptr;
  int parent = -1;  // innermost enclosing host event on the same thread
  i64 dur() const { return end - start; }
};

bool is_host(const std::string& cat) {
  return cat == "cpu_op" || cat == "python_function" || cat == "user_annotation" ||
         cat == "cuda_runtime";
}
bool is_gpu(const std::string& cat) {
  return cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset";
}
i64 ns(const json::value& v) {
  return std::llround(v.to_number<double>() * 1000.0);
}

class Trace {
 public:
  explicit Trace(const std::string& text) : doc_(json::parse(text)) {
    for (const json::value& v : doc_.at("traceEvents").as_array()) {
      const json::object& e = v.as_object();
      if (e.at("ph") != "X" || !e.contains("cat")) continue;
      Event ev;
      ev.cat = std::string(e.at("cat").as_string());
      ev.name = std::string(e.at("name").as_string());
      ev.tid = e.at("tid").as_int64();
      ev.start = ns(e.at("ts"));
      ev.end = ev.start + ns(e.at("dur"));
      ev.args = &e.at("args").as_object();
      events_.push_back(ev);
    }
    link_parents();
    for (std::size_t i = 0; i < events_.size(); ++i) {
      if (events_[i].cat == "cuda_runtime") runtime_[correlation(events_[i])] = static_cast<int>(i);
    }
  }

  const json::object& top() const { return doc_.as_object(); }
  const std::vector<Event>& events() const { return events_; }
  std::vector<const Event*> named(std::string_view name) const {
    return select([&](const Event& e) { return e.name == name; });
  }
  std::vector<const Event*> gpu() const {
    return select([](const Event& e) { return is_gpu(e.cat); });
  }
  template <class Pred>
  std::vector<const Event*> select(Pred pred) const {
    std::vector<const Event*> out;
    for (const Event& e : events_) {
      if (pred(e)) out.push_back(&e);
    }
    return out;
  }
  const Event* parent(const Event& e) const {
    return e.parent < 0 ? nullptr : &events_[static_cast<std::size_t>(e.parent)];
  }
  // The runtime call that launched a GPU event.
  const Event& launch(const Event& gpu_event) const {
    return events_.at(static_cast<std::size_t>(runtime_.at(correlation(gpu_event))));
  }
  // `e` itself or one of its enclosing host events is named `name` (prefix when `prefix`).
  bool within(const Event& e, std::string_view name, bool prefix = false) const {
    for (const Event* p = &e; p; p = parent(*p)) {
      if (prefix ? p->name.starts_with(name) : p->name == name) return true;
    }
    return false;
  }
  bool within(const Event& e, const Event& ancestor) const {
    for (const Event* p = &e; p; p = parent(*p)) {
      if (p == &ancestor) return true;
    }
    return false;
  }
  // GPU activity time (any stream) overlapping [a, b].
  i64 gpu_busy(i64 a, i64 b) const {
    i64 busy = 0;
    for (const Event* g : gpu())
      busy += std::max<i64>(0, std::min(b, g->end) - std::max(a, g->start));
    return busy;
  }
  i64 gpu_time(const std::vector<const Event*>& of) const {
    i64 total = 0;
    for (const Event* e : of) total += e->dur();
    return total;
  }
  static i64 correlation(const Event& e) { return e.args->at("correlation").as_int64(); }

 private:
  // Per thread, sorted by start (outer first on ties), a stack of open spans gives each event
  // its innermost strictly enclosing one.
  void link_parents() {
    std::map<i64, std::vector<int>> threads;
    for (std::size_t i = 0; i < events_.size(); ++i) {
      if (is_host(events_[i].cat)) threads[events_[i].tid].push_back(static_cast<int>(i));
    }
    for (auto& [tid, order] : threads) {
      std::sort(order.begin(), order.end(), [&](int a, int b) {
        const Event& x = events_[static_cast<std::size_t>(a)];
        const Event& y = events_[static_cast<std::size_t>(b)];
        return x.start != y.start ? x.start < y.start : x.end > y.end;
      });
      std::vector<int> stack;
      for (int i : order) {
        Event& e = events_[static_cast<std::size_t>(i)];
        while (!stack.empty() && events_[static_cast<std::size_t>(stack.back())].end <= e.start) {
          stack.pop_back();
        }
        if (!stack.empty()) {
          const Event& p = events_[static_cast<std::size_t>(stack.back())];
          EXPECT_TRUE(e.start > p.start && e.end < p.end) << e.name << " overlaps " << p.name;
          e.parent = stack.back();
        }
        stack.push_back(i);
      }
    }
  }

  json::value doc_;
  std::vector<Event> events_;
  std::map<i64, int> runtime_;
};

std::string text_arg(const Event& e, const char* key) {
  return std::string(e.args->at(key).as_string());
}

// Every launched GPU event has its runtime call (same correlation and External id), both ac2g
// flow ends, and starts after the call did; activities on one stream never overlap.
void expect_consistent(const Trace& t) {
  std::map<i64, int> flow_starts, flow_ends;
  for (const json::value& v : t.top().at("traceEvents").as_array()) {
    const json::object& e = v.as_object();
    if (e.at("ph") == "s") ++flow_starts[e.at("id").as_int64()];
    if (e.at("ph") == "f") ++flow_ends[e.at("id").as_int64()];
  }
  std::map<i64, std::vector<const Event*>> streams;
  for (const Event* g : t.gpu()) {
    const Event& call = t.launch(*g);
    EXPECT_EQ(flow_starts[Trace::correlation(*g)], 1) << g->name;
    EXPECT_EQ(flow_ends[Trace::correlation(*g)], 1) << g->name;
    EXPECT_GT(g->start, call.start) << g->name;
    EXPECT_EQ(g->args->at("External id"), call.args->at("External id")) << g->name;
    streams[g->tid].push_back(g);
  }
  for (auto& [stream, list] : streams) {
    std::sort(list.begin(), list.end(),
              [](const Event* a, const Event* b) { return a->start < b->start; });
    for (std::size_t i = 1; i < list.size(); ++i) {
      EXPECT_GE(list[i]->start, list[i - 1]->end) << list[i]->name << " on stream " << stream;
    }
  }
}

double idle_percent(const model::GpuTimeline& t) {
  return 100.0 * t.idle_us / t.total_us;
}

// ---- AMOUNT and KIND

TEST(SynthInjectParse, DurationsWithUnits) {
  EXPECT_EQ(parse_duration_ns("30ms"), 30 * kMs);
  EXPECT_EQ(parse_duration_ns("500us"), 500 * kUs);
  EXPECT_EQ(parse_duration_ns("500\xC2\xB5s"), 500 * kUs);
  EXPECT_EQ(parse_duration_ns("2.5ms"), 2500 * kUs);
  EXPECT_EQ(parse_duration_ns("1s"), 1000 * kMs);
  EXPECT_EQ(parse_duration_ns("800ns"), 800);
  EXPECT_EQ(parse_duration_ns(".5ms"), 500 * kUs);
}

TEST(SynthInjectParse, BadDurationsNameTheTextAndTheForm) {
  for (const char* bad : {"abc", "30", "ms", "-3ms", "1.2.3ms", "3 ms", "3msx", "1e3us"}) {
    try {
      parse_duration_ns(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const std::invalid_argument& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find(std::string("'") + bad + "'"), std::string::npos) << message;
      EXPECT_NE(message.find("30ms"), std::string::npos) << message;
      EXPECT_EQ(message.back(), '.') << message;
    }
  }
  EXPECT_THROW(parse_duration_ns("0ms"), std::invalid_argument);
  EXPECT_THROW(parse_duration_ns("0.1ns"), std::invalid_argument);
  EXPECT_THROW(parse_duration_ns("11s"), std::invalid_argument);
}

TEST(SynthInjectParse, KindsAreTheSpecCauseKeysAndTheComputeKinds) {
  // diagnosis spec §9: the §2.2 causes but `untraced`, with '-' for '_', then the others.
  const std::vector<std::string> spec{"dataloader",        "blocking-copy",   "sync",
                                      "allocator",         "launch-overhead", "host-compute",
                                      "fp32-gemm",         "recompute",       "d2d-copy",
                                      "exposed-allreduce", "small-allreduce", "layout-transpose"};
  std::vector<std::string> names;
  for (const ProblemInfo& info : problem_catalog()) {
    names.emplace_back(info.name);
    EXPECT_EQ(parse_injection(info.name).problem, info.problem);
    EXPECT_EQ(&problem_info(info.problem), &info);
    EXPECT_FALSE(info.meaning.empty());
    EXPECT_EQ(info.adds_idle, names.size() <= 6) << info.name;
  }
  EXPECT_EQ(names, spec);
}

TEST(SynthInjectParse, AmountOrTheKindsDefault) {
  const Injection given = parse_injection("blocking-copy=2ms");
  EXPECT_EQ(given.problem, Problem::kBlockingCopy);
  EXPECT_EQ(given.amount_ns, 2 * kMs);
  // The defaults the issue asks for.
  EXPECT_EQ(parse_injection("dataloader").amount_ns, 30 * kMs);
  EXPECT_EQ(parse_injection("blocking-copy").amount_ns, 5 * kMs);
  EXPECT_EQ(parse_injection("sync").amount_ns, 5 * kMs);
  EXPECT_EQ(parse_injection("allocator").amount_ns, 3 * kMs);
  EXPECT_EQ(parse_injection("launch-overhead").amount_ns, 5 * kMs);
  EXPECT_EQ(parse_injection("host-compute").amount_ns, 10 * kMs);
}

TEST(SynthInjectParse, UnknownKindNamesTheValueAndTheKinds) {
  try {
    parse_injection("dataloder=3ms");
    ADD_FAILURE() << "accepted";
  } catch (const std::invalid_argument& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("'dataloder'"), std::string::npos) << message;
    EXPECT_NE(message.find("dataloader, blocking-copy"), std::string::npos) << message;
    EXPECT_NE(message.find("layout-transpose."), std::string::npos) << message;
  }
  try {
    parse_injection("sync=fast");
    ADD_FAILURE() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("sync=fast"), std::string::npos) << e.what();
  }
}

TEST(SynthInjectParse, OptionsThatCannotHoldAnInjection) {
  SynthOptions twice = with({"sync=1ms", "sync=2ms"});
  EXPECT_THROW(check_injections(twice), std::invalid_argument);
  SynthOptions inference = with({"recompute"});
  inference.training = false;
  EXPECT_THROW(check_injections(inference), std::invalid_argument);
  traceprism::testing::TempDir dir;
  io::OutputFile out(dir.file("t.json"));
  EXPECT_THROW(write_synthetic_trace(inference, out), std::invalid_argument);
  SynthOptions zero;
  zero.inject.push_back({Problem::kSync, 0});
  EXPECT_THROW(check_injections(zero), std::invalid_argument);
}

// ---- the clean trace and determinism

// The host runs ahead of the GPU, so a trace without injections leaves the GPU idle for less
// than 2 % of the E2E window (only the gaps between kernels queued back to back).
TEST(SynthInjectClean, GpuIdleBelowTwoPercent) {
  SynthOptions nvidia;
  SynthOptions nccl;
  nccl.nccl = true;
  SynthOptions amd;
  amd.vendor = Vendor::kAmd;
  SynthOptions inference;
  inference.training = false;
  SynthOptions big;
  big.layers = 12;
  big.steps = 4;
  for (const SynthOptions* o : {&nvidia, &nccl, &amd, &inference, &big}) {
    const Generated g = generate(*o);
    EXPECT_GT(g.timeline.busy_us, 0.0);
    EXPECT_LT(idle_percent(g.timeline), 2.0)
        << "nccl " << o->nccl << " amd " << (o->vendor == Vendor::kAmd) << " training "
        << o->training << " layers " << o->layers;
  }
}

TEST(SynthInjectClean, HealthyShapes) {
  const Trace t(generate(SynthOptions{}).text);
  EXPECT_EQ(t.named("enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__").size(), 2u);
  for (const char* absent : {"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaMalloc",
                             "aten::item", "Memcpy DtoH (Device -> Pageable)"}) {
    EXPECT_TRUE(t.named(absent).empty()) << absent;
  }
  // The host is ahead: most kernels start well after their launch call ended.
  int queued = 0, kernels = 0;
  for (const Event* g : t.gpu()) {
    ++kernels;
    if (g->start - t.launch(*g).end > 200 * kUs) ++queued;
  }
  EXPECT_GT(queued, kernels * 8 / 10);
}

SynthOptions every_kind() {
  return with({"dataloader=2ms", "blocking-copy=1ms", "sync=1ms", "allocator=1ms",
               "launch-overhead=500us", "host-compute=1ms", "fp32-gemm", "recompute", "d2d-copy",
               "exposed-allreduce=1ms", "small-allreduce", "layout-transpose"},
              2);
}

TEST(SynthInjectDeterminism, SameOptionsGiveIdenticalBytes) {
  SynthOptions options = every_kind();
  options.nccl = true;
  EXPECT_EQ(generate(options).text, generate(options).text);
  options.vendor = Vendor::kAmd;
  const std::string amd = generate(options).text;
  EXPECT_EQ(amd, generate(options).text);
  options.seed = 7;
  EXPECT_NE(amd, generate(options).text);
}

TEST(SynthInjectConsistency, EveryKindTogetherOnEveryVendor) {
  for (Vendor vendor : {Vendor::kNvidia, Vendor::kAmd}) {
    SynthOptions options = every_kind();
    options.vendor = vendor;
    options.nccl = true;
    const Trace t(generate(options).text);
    expect_consistent(t);
  }
  SynthOptions inference = every_kind();
  inference.inject.erase(
      std::remove_if(inference.inject.begin(), inference.inject.end(),
                     [](const Injection& i) { return i.problem == Problem::kRecompute; }),
      inference.inject.end());
  inference.training = false;
  expect_consistent(Trace(generate(inference).text));
}

// ---- idle kinds: each adds AMOUNT of GPU idle per step

struct IdleCase {
  const char* injection;
  i64 amount;
  int occurrences;  // stalls inside the E2E window
};

// The measured growth is the stall's AMOUNT plus the host's dispatch between the stall's end
// and the next launch (under 0.25 ms per step), within 2 % of AMOUNT. The first step's fetch
// happens before the GPU's first event, outside the E2E window, so the dataloader counts once
// fewer than the steps.
void expect_idle_growth(SynthOptions base, const std::vector<IdleCase>& cases) {
  const double clean_us = generate(base).timeline.idle_us;
  for (const IdleCase& c : cases) {
    SynthOptions options = base;
    options.inject = {parse_injection(c.injection)};
    const double added_us = generate(options).timeline.idle_us - clean_us;
    const double expected_us = static_cast<double>(c.amount * c.occurrences) / 1000.0;
    EXPECT_GE(added_us, 0.98 * expected_us) << c.injection;
    EXPECT_LE(added_us, 1.02 * expected_us + 250.0 * c.occurrences) << c.injection;
  }
}

TEST(SynthInjectIdle, EachIdleKindAddsItsAmountPerStep) {
  expect_idle_growth(with({}), {{"dataloader=8ms", 8 * kMs, kSteps - 1},
                                {"blocking-copy=2ms", 2 * kMs, kSteps},
                                {"sync=2ms", 2 * kMs, kSteps},
                                {"allocator=2ms", 2 * kMs, kSteps},
                                {"launch-overhead=2ms", 2 * kMs, kSteps},
                                {"host-compute=2ms", 2 * kMs, kSteps}});
}

TEST(SynthInjectIdle, AlsoOnAmdAndInInference) {
  SynthOptions amd = with({});
  amd.vendor = Vendor::kAmd;
  amd.nccl = true;
  expect_idle_growth(amd, {{"dataloader=5ms", 5 * kMs, kSteps - 1},
                           {"blocking-copy=2ms", 2 * kMs, kSteps},
                           {"launch-overhead=1ms", 1 * kMs, kSteps}});
  SynthOptions inference = with({});
  inference.training = false;
  expect_idle_growth(inference, {{"sync=1ms", 1 * kMs, kSteps},
                                 {"allocator=1ms", 1 * kMs, kSteps},
                                 {"host-compute=1ms", 1 * kMs, kSteps},
                                 {"launch-overhead=1ms", 1 * kMs, kSteps}});
}

// ---- each kind's event shapes

TEST(SynthInjectShapes, DataloaderHoldsTheStepStartWhileTheGpuIdles) {
  const i64 amount = 4 * kMs;
  const Trace t(generate(with({"dataloader=4ms"})).text);
  const auto fetches = t.named("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__");
  ASSERT_EQ(fetches.size(), static_cast<std::size_t>(kSteps));
  EXPECT_TRUE(t.named("enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__").empty());
  for (const Event* fetch : fetches) {
    EXPECT_EQ(fetch->cat, "user_annotation");
    EXPECT_GE(fetch->dur(), amount);
    ASSERT_NE(t.parent(*fetch), nullptr);
    EXPECT_TRUE(t.parent(*fetch)->name.starts_with("ProfilerStep#"));
    std::set<std::string> frames;
    for (const Event* e : t.select([&](const Event& e) { return t.within(e, *fetch); })) {
      if (e->cat == "python_function") frames.insert(e->name);
      EXPECT_NE(e->cat, "cuda_runtime") << "the fetch launches nothing";
    }
    EXPECT_TRUE(frames.count("torch/utils/data/dataloader.py(631): __next__"));
    EXPECT_TRUE(frames.count("torch/utils/data/_utils/fetch.py(51): fetch"));
    EXPECT_EQ(t.gpu_busy(fetch->end - amount, fetch->end), 0) << "no GPU work during the fetch";
  }
}

TEST(SynthInjectShapes, BlockingCopyIsAnItemWhoseCopyEndsTheCall) {
  const i64 amount = 3 * kMs;
  const Trace t(generate(with({"blocking-copy=3ms"})).text);
  const auto copies = t.named("Memcpy DtoH (Device -> Pageable)");
  ASSERT_EQ(copies.size(), static_cast<std::size_t>(kSteps));
  for (const Event* copy : copies) {
    EXPECT_EQ(copy->cat, "gpu_memcpy");
    EXPECT_LE(copy->args->at("bytes").as_int64(), 8);
    EXPECT_TRUE(copy->args->contains("memory bandwidth (GB/s)"));
    const Event& call = t.launch(*copy);
    EXPECT_EQ(call.name, "cudaMemcpyAsync");
    ASSERT_NE(t.parent(call), nullptr);
    EXPECT_EQ(t.parent(call)->name, "aten::_local_scalar_dense");
    EXPECT_EQ(t.parent(*t.parent(call))->name, "aten::item");
    EXPECT_GE(call.dur(), amount);
    EXPECT_GE(copy->start, call.end - amount / 20) << "the copy runs at the end of the call";
    EXPECT_LT(copy->end, call.end);
    EXPECT_EQ(t.gpu_busy(call.end - amount, copy->start), 0) << "the GPU idles during the call";
    for (const Event* later :
         t.select([&](const Event& e) { return is_gpu(e.cat) && e.start > copy->end; })) {
      EXPECT_GT(t.launch(*later).start, call.end) << later->name << " launched during the call";
    }
  }
}

TEST(SynthInjectShapes, SyncHoldsTheHostWhileTheGpuIdles) {
  const i64 amount = 3 * kMs;
  const Trace t(generate(with({"sync=3ms"})).text);
  const auto syncs = t.named("cudaDeviceSynchronize");
  ASSERT_EQ(syncs.size(), static_cast<std::size_t>(kSteps));
  for (const Event* sync : syncs) {
    EXPECT_EQ(sync->cat, "cuda_runtime");
    ASSERT_NE(t.parent(*sync), nullptr);
    EXPECT_TRUE(t.parent(*sync)->name.starts_with("torch/cuda/__init__.py("));
    EXPECT_TRUE(t.parent(*sync)->name.ends_with(": synchronize"));
    EXPECT_GE(sync->dur(), amount);
    EXPECT_EQ(t.gpu_busy(sync->end - amount, sync->end), 0);
  }
}

TEST(SynthInjectShapes, AllocatorFreesAndMallocsUnderAnEmpty) {
  const i64 amount = 2 * kMs;
  const Trace t(generate(with({"allocator=2ms"})).text);
  const auto mallocs = t.named("cudaMalloc");
  const auto frees = t.named("cudaFree");
  ASSERT_EQ(mallocs.size(), static_cast<std::size_t>(kSteps));
  ASSERT_EQ(frees.size(), static_cast<std::size_t>(kSteps));
  for (std::size_t i = 0; i < mallocs.size(); ++i) {
    EXPECT_EQ(t.parent(*mallocs[i])->name, "aten::empty_strided");
    EXPECT_EQ(t.parent(*frees[i]), t.parent(*mallocs[i]));
    EXPECT_GE(mallocs[i]->end - frees[i]->start, amount);
    EXPECT_EQ(t.gpu_busy(mallocs[i]->end - amount, mallocs[i]->end), 0);
  }
}

TEST(SynthInjectShapes, LaunchOverheadIsALoopOfTinyKernels) {
  const Trace t(generate(with({"launch-overhead=2ms"})).text);
  const auto tiny = t.select([&](const Event& e) {
    return e.cat == "kernel" && t.within(t.launch(e), "torch/nn/utils/clip_grad.py(", true);
  });
  ASSERT_GT(tiny.size(), 100u * kSteps);
  // The loop starts behind a full launch queue; once that drains, the GPU waits for the host:
  // at each launch at most one kernel of the loop is still unfinished (queue length <= 1).
  int short_queue = 0;
  const Event* before_previous = nullptr;
  const Event* previous = nullptr;
  for (const Event* k : tiny) {
    EXPECT_LE(k->dur(), 3200) << k->name;
    const Event& call = t.launch(*k);
    EXPECT_EQ(call.name, "cudaLaunchKernel");
    const std::string op = t.parent(call)->name;
    EXPECT_TRUE(op == "aten::linalg_vector_norm" || op == "aten::mul_") << op;
    if (before_previous && before_previous->end <= call.start) {
      ++short_queue;
      EXPECT_LT(call.dur(), 10 * kUs) << "a launch that does not wait for a queue slot";
    }
    before_previous = previous;
    previous = k;
  }
  EXPECT_GT(short_queue, static_cast<int>(tiny.size()) * 7 / 10);
}

TEST(SynthInjectShapes, HostComputeLaunchesNothing) {
  const i64 amount = 3 * kMs;
  const Trace t(generate(with({"host-compute=3ms"})).text);
  const auto regions = t.named("train.py(47): log_metrics");
  ASSERT_EQ(regions.size(), static_cast<std::size_t>(kSteps));
  for (const Event* region : regions) {
    EXPECT_GE(region->dur(), amount);
    int ops = 0;
    for (const Event* e : t.select([&](const Event& e) { return t.within(e, *region); })) {
      EXPECT_NE(e->cat, "cuda_runtime");
      if (e->cat == "cpu_op") ++ops;
    }
    EXPECT_GE(ops, 3);
    EXPECT_EQ(t.gpu_busy(region->end - amount, region->end), 0);
  }
}

// `Input type` of a cpu_op, e.g. ["float", "float", ...].
std::vector<std::string> input_types(const Event& op) {
  std::vector<std::string> types;
  for (const json::value& v : op.args->at("Input type").as_array()) {
    types.emplace_back(v.as_string());
  }
  return types;
}

TEST(SynthInjectShapes, Fp32GemmKernelsUnderFloatMatmuls) {
  const i64 amount = 2 * kMs;
  const Trace t(generate(with({"fp32-gemm=2ms"})).text);
  const auto sgemm = t.select([](const Event& e) {
    return e.cat == "kernel" && e.name.find("sgemm") != std::string::npos;
  });
  ASSERT_FALSE(sgemm.empty());
  EXPECT_NEAR(t.gpu_time(sgemm), amount * kSteps, amount * kSteps / 20);
  std::set<std::string> ops;
  for (const Event* k : sgemm) {
    const Event* op = t.parent(t.launch(*k));
    ops.insert(op->name);
    const std::vector<std::string> types = input_types(*op);
    ASSERT_GE(types.size(), 2u);
    EXPECT_EQ(types[0], "float");
    EXPECT_EQ(types[1], "float");
  }
  EXPECT_EQ(ops, (std::set<std::string>{"aten::addmm", "aten::mm"}));  // forward and backward
}

TEST(SynthInjectShapes, RecomputeRerunsForwardOpsInTheBackwardPass) {
  const i64 amount = 600 * kUs;
  const Trace t(generate(with({"recompute=600us"})).text);
  const auto nodes = t.named("CheckpointFunctionBackward");
  ASSERT_FALSE(nodes.empty());
  EXPECT_EQ(nodes.size() % kSteps, 0u);
  const i64 main_thread = t.named("ProfilerStep#2").front()->tid;
  std::vector<const Event*> recomputed;
  std::set<std::string> ops;
  for (const Event* k : t.select([](const Event& e) { return e.cat == "kernel"; })) {
    const Event& call = t.launch(*k);
    if (!t.within(call, "CheckpointFunctionBackward") ||
        !t.within(call, "torch/utils/checkpoint.py(303): backward")) {
      continue;
    }
    EXPECT_NE(call.tid, main_thread) << "the rerun runs on the autograd thread";
    recomputed.push_back(k);
    for (const Event* p = t.parent(call); p; p = t.parent(*p)) ops.insert(p->name);
  }
  EXPECT_NEAR(t.gpu_time(recomputed), amount * kSteps, amount * kSteps / 20);
  for (const char* forward_op : {"aten::linear", "aten::gelu", "aten::layer_norm",
                                 "aten::_scaled_dot_product_flash_attention"}) {
    EXPECT_TRUE(ops.count(forward_op)) << forward_op;
  }
  // The checkpointed blocks' forward runs under torch.utils.checkpoint on the main thread.
  const auto frames = t.named("torch/utils/checkpoint.py(489): checkpoint");
  EXPECT_EQ(frames.size(), nodes.size());
  for (const Event* f : frames) EXPECT_EQ(f->tid, main_thread);
}

TEST(SynthInjectShapes, DeviceCopiesUnderCloneAndContiguous) {
  const i64 amount = 2 * kMs;
  const Trace t(generate(with({"d2d-copy=2ms"})).text);
  const auto copies = t.named("Memcpy DtoD (Device -> Device)");
  ASSERT_FALSE(copies.empty());
  EXPECT_NEAR(t.gpu_time(copies), amount * kSteps, amount * kSteps / 20);
  const i64 compute_stream = t.named("ProfilerStep#2").back()->tid;  // its GPU annotation
  bool contiguous = false;
  for (const Event* c : copies) {
    EXPECT_EQ(c->tid, compute_stream) << "serialized with compute";
    EXPECT_GT(c->args->at("bytes").as_int64(), 0);
    const Event& call = t.launch(*c);
    EXPECT_EQ(call.name, "cudaMemcpyAsync");
    EXPECT_EQ(t.parent(call)->name, "aten::copy_");
    EXPECT_TRUE(t.within(call, "aten::clone"));
    contiguous = contiguous || t.within(call, "aten::contiguous");
  }
  EXPECT_TRUE(contiguous);
}

TEST(SynthInjectShapes, LayoutTransposesUnderContiguous) {
  const i64 amount = 2 * kMs;
  const Trace t(generate(with({"layout-transpose=2ms"})).text);
  const auto transposes = t.select([](const Event& e) {
    return e.cat == "kernel" && (e.name.find("nchw2nhwc") != std::string::npos ||
                                 e.name.find("nhwc2nchw") != std::string::npos);
  });
  ASSERT_FALSE(transposes.empty());
  EXPECT_NEAR(t.gpu_time(transposes), amount * kSteps, amount * kSteps / 20);
  for (const Event* k : transposes) {
    const Event& call = t.launch(*k);
    EXPECT_EQ(t.parent(call)->name, "aten::copy_");
    EXPECT_TRUE(t.within(call, "aten::contiguous"));
  }
}

// The record_param_comms above a collective's launch, checked against its kernel's args.
void expect_collective(const Trace& t, const Event& kernel, std::string_view dtype) {
  const Event& call = t.launch(kernel);
  EXPECT_EQ(call.name, "cudaLaunchKernelExC");
  const Event* annotation = t.parent(call);
  ASSERT_NE(annotation, nullptr);
  EXPECT_EQ(annotation->name, "nccl:all_reduce");
  EXPECT_EQ(annotation->cat, "user_annotation");
  const Event* comms = t.parent(*annotation);
  ASSERT_NE(comms, nullptr);
  EXPECT_EQ(comms->name, "record_param_comms");
  EXPECT_EQ(t.parent(*comms)->name, "c10d::allreduce_");
  for (const Event* e : {comms, &kernel}) {
    EXPECT_EQ(text_arg(*e, "Collective name"), "allreduce");
    EXPECT_EQ(text_arg(*e, "dtype"), dtype);
    EXPECT_EQ(e->args->at("Group size").as_int64(), 8);
    EXPECT_GT(e->args->at("In msg nelems").as_int64(), 0);
    EXPECT_EQ(e->args->at("In msg nelems"), e->args->at("Out msg nelems"));
  }
  EXPECT_EQ(comms->args->at("In msg nelems"), kernel.args->at("In msg nelems"));
  // The kernel reports the op that launched it, as the runtime call does.
  EXPECT_EQ(kernel.args->at("External id"), comms->args->at("External id"));
}

i64 overlap_with_compute(const Trace& t, const Event& comm) {
  i64 overlap = 0;
  for (const Event* g : t.gpu()) {
    if (g->tid == comm.tid) continue;
    overlap += std::max<i64>(0, std::min(comm.end, g->end) - std::max(comm.start, g->start));
  }
  return overlap;
}

TEST(SynthInjectShapes, ExposedAllReduceIsOneLargeCollectiveComputeWaitsFor) {
  const i64 amount = 3 * kMs;
  const Trace t(generate(with({"exposed-allreduce=3ms"})).text);
  EXPECT_TRUE(t.top().contains("distributedInfo"));
  const auto reduces = t.named(
      "ncclDevKernel_AllReduce_Sum_bf16_RING_LL128(ncclDevComm*, unsigned long, ncclWork*)");
  ASSERT_EQ(reduces.size(), static_cast<std::size_t>(kSteps));
  for (const Event* r : reduces) {
    EXPECT_NEAR(r->dur(), amount, amount / 20);
    EXPECT_EQ(overlap_with_compute(t, *r), 0) << "not overlapped";
    EXPECT_GT(r->args->at("In msg nelems").as_int64(), 100'000'000);
    expect_collective(t, *r, "BFloat16");
  }
}

TEST(SynthInjectShapes, SmallAllReducesAreManyShortMostlyExposedOnes) {
  const i64 amount = 1500 * kUs;  // the default
  const Trace t(generate(with({"small-allreduce"})).text);
  const auto reduces =
      t.named("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)");
  const std::size_t per_step = reduces.size() / kSteps;
  EXPECT_EQ(reduces.size() % kSteps, 0u);
  EXPECT_GE(per_step, 40u);
  EXPECT_LE(per_step, 100u);
  i64 overlapped = 0;
  for (const Event* r : reduces) {
    EXPECT_GE(r->dur(), 10 * kUs);
    EXPECT_LE(r->dur(), 30 * kUs);
    overlapped += overlap_with_compute(t, *r);
    expect_collective(t, *r, "Float");
  }
  EXPECT_NEAR(t.gpu_time(reduces), amount * kSteps, amount * kSteps / 20);
  EXPECT_LT(overlapped, t.gpu_time(reduces) / 10) << "mostly exposed";
}

TEST(SynthInjectShapes, AmdUsesHipNames) {
  SynthOptions options = with({"blocking-copy=1ms", "sync=1ms", "allocator=1ms",
                               "launch-overhead=300us", "exposed-allreduce=1ms"},
                              2);
  options.vendor = Vendor::kAmd;
  const Trace t(generate(options).text);
  std::set<std::string> runtime;
  for (const Event* e : t.select([](const Event& e) { return e.cat == "cuda_runtime"; })) {
    runtime.insert(e->name);
    EXPECT_FALSE(e->name.starts_with("cuda")) << e->name;
  }
  for (const char* api : {"hipMemcpyAsync", "hipDeviceSynchronize", "hipStreamSynchronize",
                          "hipMalloc", "hipFree", "hipLaunchKernel", "hipExtLaunchKernel"}) {
    EXPECT_TRUE(runtime.count(api)) << api;
  }
  const auto copies = t.named("Memcpy DtoH (Device -> Pageable)");
  ASSERT_EQ(copies.size(), 2u);
  EXPECT_EQ(t.launch(*copies[0]).name, "hipMemcpyAsync");
  // RCCL's generic kernel: the collective is known from the args only.
  const auto reduces = t.named("ncclDevKernel_Generic(ncclDevComm*, unsigned long, ncclWork*)");
  ASSERT_EQ(reduces.size(), 2u);
  EXPECT_EQ(text_arg(*reduces[0], "Collective name"), "allreduce");
}

TEST(SynthInjectShapes, InferenceSamplesWithTinyKernels) {
  SynthOptions options = with({"launch-overhead=1ms", "small-allreduce=500us"}, 2);
  options.training = false;
  const Trace t(generate(options).text);
  EXPECT_TRUE(t.named("torch/nn/utils/clip_grad.py(76): clip_grad_norm_").empty());
  ASSERT_EQ(t.named("generate.py(96): sample_next_token").size(), 2u);
  EXPECT_FALSE(
      t.named("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)")
          .empty());
}

}  // namespace
}  // namespace traceprism::synth
