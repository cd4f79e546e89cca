// cpu-idle's findings per idle cause (docs/analyzers/cpu_idle/cpu-idle.md), from a hand-made
// idle attribution: the threshold, the impact bounds, and actions only where their
// precondition holds.
#include <gtest/gtest.h>

#include <traceprism/testing.hpp>

#include <string>
#include <vector>

#include "cpu_idle/cpu_idle_analyzer.hpp"
#include "cpu_idle/idle_cause_findings.hpp"

namespace {

using traceprism::Kind;
using traceprism::Row;
using traceprism::plugins::cpu_idle::CpuIdleAnalyzer;
namespace tt = traceprism::testing;

// One gap per part, back to back after a 1 ms kernel; the window is 100 ms.
class HandMadeIdle {
 public:
  void part(std::int64_t dur_ns, std::uint8_t cause, Row holder, Row next) {
    const std::int64_t start = cursor_;
    gap_start_.push_back(start);
    gap_dur_.push_back(dur_ns);
    gap_next_.push_back(next);
    gap_launch_.push_back(TRACEPRISM_NO_ROW);
    gap_part_begin_.push_back(static_cast<std::uint32_t>(part_start_.size()));
    gap_part_count_.push_back(1);
    part_start_.push_back(start);
    part_dur_.push_back(dur_ns);
    part_cause_.push_back(cause);
    part_holder_.push_back(holder);
    part_top_.push_back(TRACEPRISM_NO_ROW);
    part_frame_.push_back(TRACEPRISM_NO_ROW);
    idle_us_[cause] += static_cast<double>(dur_ns) / 1000.0;
    cursor_ += dur_ns;
  }
  const traceprism_idle_attribution_v1* table() {
    t_ = {};
    t_.struct_size = sizeof t_;
    t_.window_start_ns = 0;
    t_.window_end_ns = 100'000'000;
    for (int c = 0; c < TRACEPRISM_CAUSE_COUNT; ++c) t_.idle_us[c] = idle_us_[c];
    t_.launch_delay_median_us = t_.launch_delay_p95_us = t_.launch_call_mean_us = 5;
    t_.gap_count = gap_start_.size();
    t_.gap_start_ns = gap_start_.data();
    t_.gap_dur_ns = gap_dur_.data();
    t_.gap_next = gap_next_.data();
    t_.gap_launch = gap_launch_.data();
    t_.gap_part_begin = gap_part_begin_.data();
    t_.gap_part_count = gap_part_count_.data();
    t_.part_count = part_start_.size();
    t_.part_start_ns = part_start_.data();
    t_.part_dur_ns = part_dur_.data();
    t_.part_cause = part_cause_.data();
    t_.part_holder = part_holder_.data();
    t_.part_top = part_top_.data();
    t_.part_frame = part_frame_.data();
    return &t_;
  }

 private:
  std::int64_t cursor_ = 1'000'000;
  std::vector<std::int64_t> gap_start_, gap_dur_, part_start_, part_dur_;
  std::vector<std::uint32_t> gap_next_, gap_launch_, gap_part_begin_, gap_part_count_;
  std::vector<std::uint8_t> part_cause_;
  std::vector<std::uint32_t> part_holder_, part_top_, part_frame_;
  double idle_us_[TRACEPRISM_CAUSE_COUNT] = {};
  traceprism_idle_attribution_v1 t_{};
};

class CpuIdleCauses : public ::testing::Test {
 protected:
  CpuIdleCauses() {
    const Row call = trace_.runtime("cudaLaunchKernel", 0, 1);
    kernel_ = trace_.kernel("k", 0, 1000).launcher(call).device(0).stream(7);
    trace_.kernel("k2", 99'000, 1000).launcher(call).device(0).stream(7);
  }
  const tt::Finding* finding(const tt::RunResult& r, const std::string& cause) const {
    for (const tt::Finding& f : r.findings)
      if (f.cause == cause) return &f;
    return nullptr;
  }
  tt::FakeTrace trace_;
  Row kernel_ = 0;
  HandMadeIdle idle_;
};

TEST_F(CpuIdleCauses, SingleProcessDataLoaderNamesNumWorkers) {
  const Row loader = trace_.user_annotation(
      "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 1000, 30000);
  idle_.part(30'000'000, TRACEPRISM_CAUSE_DATALOADER, loader, kernel_);  // 30 % of the window
  trace_.set_idle_attribution(idle_.table());
  const tt::RunResult r = tt::run<CpuIdleAnalyzer>(trace_, "cpu-idle");
  const tt::Finding* f = finding(r, "dataloader");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->title.find("30.0% of the run while the host waits in the DataLoader"),
            std::string::npos)
      << f->title;
  EXPECT_NE(f->action.find("num_workers=0"), std::string::npos) << f->action;
  EXPECT_EQ(f->action.find("pin_memory"), std::string::npos) << "no pageable copy: " << f->action;
  EXPECT_NEAR(f->impact_low, 15.0, 1e-9);
  EXPECT_NEAR(f->impact_mid, 22.5, 1e-9);
  EXPECT_NEAR(f->impact_high, 28.5, 1e-9);
  EXPECT_EQ(f->severity, traceprism::Severity::kCritical);
}

TEST_F(CpuIdleCauses, PinMemoryOnlyWithPageableCopies) {
  trace_.memcpy("Memcpy HtoD (Pageable -> Device)", 500, 10)
      .copy(TRACEPRISM_COPY_HTOD, TRACEPRISM_MEMORY_PAGEABLE, TRACEPRISM_MEMORY_DEVICE);
  const Row loader = trace_.user_annotation(
      "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", 1000, 30000);
  idle_.part(10'000'000, TRACEPRISM_CAUSE_DATALOADER, loader, kernel_);
  trace_.set_idle_attribution(idle_.table());
  const tt::RunResult r = tt::run<CpuIdleAnalyzer>(trace_, "cpu-idle");
  const tt::Finding* f = finding(r, "dataloader");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->action.find("already uses worker processes"), std::string::npos) << f->action;
  EXPECT_NE(f->action.find("pin_memory=True"), std::string::npos) << f->action;
}

TEST_F(CpuIdleCauses, CausesUnderTwoPercentAreNotReported) {
  const Row call = trace_.runtime("cudaStreamSynchronize", 1000, 1900);
  idle_.part(1'900'000, TRACEPRISM_CAUSE_SYNC, call, kernel_);  // 1.9 %
  trace_.set_idle_attribution(idle_.table());
  const tt::RunResult r = tt::run<CpuIdleAnalyzer>(trace_, "cpu-idle");
  EXPECT_TRUE(r.findings.empty());
  EXPECT_DOUBLE_EQ(r.figure("idle.sync_us"), 1900.0);
}

// The "Longest gaps" table: the longest first, equal gaps in time order, at most EvidenceGaps
// (10) rows. Twelve sync gaps; the 0.5 ms one and the last of the seven 1 ms ones are left out.
TEST_F(CpuIdleCauses, LongestGapsComeFirstAndTiesKeepTimeOrder) {
  const Row sync = trace_.runtime("cudaStreamSynchronize", 1000, 16'000);
  for (double ms : {1.0, 2.0, 2.0, 0.5, 2.0, 3.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0})
    idle_.part(static_cast<std::int64_t>(ms * 1e6), TRACEPRISM_CAUSE_SYNC, sync, kernel_);
  trace_.set_idle_attribution(idle_.table());
  const tt::RunResult r = tt::run<CpuIdleAnalyzer>(trace_, "cpu-idle");
  const tt::Finding* f = finding(r, "sync");
  ASSERT_NE(f, nullptr);
  const tt::FindingTable* gaps = nullptr;
  for (const tt::FindingTable& t : f->tables)
    if (t.title == "Longest gaps") gaps = &t;
  ASSERT_NE(gaps, nullptr);
  // (start, length) in ms; gaps start back to back at 1 ms.
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"8.500", "3.000"},  {"2.000", "2.000"},  {"4.000", "2.000"},  {"6.500", "2.000"},
      {"1.000", "1.000"},  {"11.500", "1.000"}, {"12.500", "1.000"}, {"13.500", "1.000"},
      {"14.500", "1.000"}, {"15.500", "1.000"}};
  ASSERT_EQ(gaps->rows.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(gaps->rows[i][0], expected[i].first) << "row " << i;
    EXPECT_EQ(gaps->rows[i][1], expected[i].second) << "row " << i;
  }
}

// diagnosis.md §2.5 "at most one other finding": sync 1.5 %, allocator 1.0 % and dependency
// 0.5 % are each under 2 % but hold 3 % together; one finding reports them, led by the largest
// with its action; its impact adds the quantifiable causes' ranges (dependency has none):
// low 1.5*0.5 + 1.0*0.5 = 1.25, mid 1.5*0.75 + 1.0*0.75 = 1.875, high 2.5*0.95 = 2.375.
TEST_F(CpuIdleCauses, SmallerCausesTogetherGetOneFinding) {
  const Row sync = trace_.runtime("cudaStreamSynchronize", 1000, 1500);
  const Row alloc = trace_.runtime("cudaMalloc", 3000, 1000);
  idle_.part(1'500'000, TRACEPRISM_CAUSE_SYNC, sync, kernel_);
  idle_.part(1'000'000, TRACEPRISM_CAUSE_ALLOCATOR, alloc, kernel_);
  idle_.part(500'000, TRACEPRISM_CAUSE_DEPENDENCY, TRACEPRISM_NO_ROW, kernel_);
  trace_.set_idle_attribution(idle_.table());
  const tt::RunResult r = tt::run<CpuIdleAnalyzer>(trace_, "cpu-idle");
  ASSERT_EQ(r.findings.size(), 1U);
  const tt::Finding& f = r.findings[0];
  EXPECT_EQ(f.key, "idle-smaller-causes");
  EXPECT_EQ(f.cause, "");
  EXPECT_EQ(f.title,
            "GPU idle 3.0% of the run in smaller causes (sync 1.5%, allocator 1.0%, dependency "
            "0.5%)");
  EXPECT_EQ(f.action.rfind("Start with the largest, sync: ", 0), 0U) << f.action;
  EXPECT_NE(f.action.find("cudaStreamSynchronize"), std::string::npos) << f.action;
  EXPECT_NEAR(f.impact_low, 1.25, 1e-9);
  EXPECT_NEAR(f.impact_mid, 1.875, 1e-9);
  EXPECT_NEAR(f.impact_high, 2.375, 1e-9);
  EXPECT_NEAR(f.share_percent, 3.0, 1e-9);
  ASSERT_EQ(f.tables.size(), 1U);
  EXPECT_EQ(f.tables[0].rows.size(), 3U);
}

// diagnosis.md §3: time inside a warm-up annotation is paid once. Allocator idle of 10 ms
// (10 %) of which 8 ms lie in PARAM's warm-up region: the impact counts the other 2 ms
// (2 % x 50/75/95 %), the card says so and names the measured part's holder.
TEST_F(CpuIdleCauses, WarmupRegionTimeIsPaidOnce) {
  trace_.user_annotation("[param|pytorch.model.alex_net|0|0|0|warmup|forward]", 1000, 8000);
  const Row first = trace_.runtime("cudaFree", 1000, 8000);
  const Row later = trace_.runtime("cudaMalloc", 9000, 2000);
  idle_.part(8'000'000, TRACEPRISM_CAUSE_ALLOCATOR, first, kernel_);
  idle_.part(2'000'000, TRACEPRISM_CAUSE_ALLOCATOR, later, kernel_);
  trace_.set_idle_attribution(idle_.table());
  const tt::RunResult r = tt::run<CpuIdleAnalyzer>(trace_, "cpu-idle");
  const tt::Finding* f = finding(r, "allocator");
  ASSERT_NE(f, nullptr);
  EXPECT_NEAR(f->share_percent, 10.0, 1e-9);
  EXPECT_NEAR(f->impact_low, 1.0, 1e-9);
  EXPECT_NEAR(f->impact_mid, 1.5, 1e-9);
  EXPECT_NEAR(f->impact_high, 1.9, 1e-9);
  EXPECT_NE(f->insight.find("8.00 ms of it (80.0%) falls in the warm-up region"), std::string::npos)
      << f->insight;
  EXPECT_EQ(f->action.rfind("Most of this time is in the warm-up region", 0), 0U) << f->action;
  EXPECT_NE(f->action.find("For the rest: The host allocates or frees memory in cudaMalloc"),
            std::string::npos)
      << f->action;
}

// A first call 60x its later call (3 ms against 50 µs) is one-time setup: the 3 ms of host
// compute inside it (the first part, 1-4 ms) leave the impact, the 2 ms after it count
// (2 % x 20/40/60 %).
TEST_F(CpuIdleCauses, FirstCallSetupIsPaidOnce) {
  trace_.cpu_op("aten::repeat", 1000, 3000);
  trace_.cpu_op("aten::repeat", 20000, 50);
  const Row inside = trace_.cpu_op("aten::copy_", 1500, 3000);
  const Row later = trace_.cpu_op("aten::mul", 30000, 2000);
  idle_.part(3'000'000, TRACEPRISM_CAUSE_HOST_COMPUTE, inside, kernel_);
  idle_.part(2'000'000, TRACEPRISM_CAUSE_HOST_COMPUTE, later, kernel_);
  trace_.set_idle_attribution(idle_.table());
  const tt::RunResult r = tt::run<CpuIdleAnalyzer>(trace_, "cpu-idle");
  const tt::Finding* f = finding(r, "host_compute");
  ASSERT_NE(f, nullptr);
  EXPECT_NEAR(f->impact_low, 0.4, 1e-9);
  EXPECT_NEAR(f->impact_mid, 0.8, 1e-9);
  EXPECT_NEAR(f->impact_high, 1.2, 1e-9);
  EXPECT_NE(f->insight.find("3.00 ms of it is inside first calls of `aten::repeat`"),
            std::string::npos)
      << f->insight;
  EXPECT_EQ(f->action.rfind("Most of this time is one-time setup in first calls", 0), 0U)
      << f->action;
  EXPECT_NE(f->action.find("For the rest: The host runs aten::mul"), std::string::npos)
      << f->action;
}

// Host-compute time over 12 gaps, each held by another op (none above a quarter of it): the
// eager framework's per-op cost, cut for the whole step, not one computation to move. With one
// op holding most of it, the card names that op's work instead.
TEST_F(CpuIdleCauses, DiffuseHostComputeIsPerOpOverhead) {
  for (int i = 0; i < 12; ++i) {
    const Row op = trace_.cpu_op("aten::op" + std::to_string(i), 1000 + 500 * i, 400);
    idle_.part(500'000, TRACEPRISM_CAUSE_HOST_COMPUTE, op, kernel_);
  }
  trace_.set_idle_attribution(idle_.table());
  const tt::RunResult r = tt::run<CpuIdleAnalyzer>(trace_, "cpu-idle");
  const tt::Finding* f = finding(r, "host_compute");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->action.rfind("No host event holds much of this time: it is spread over 12 gaps", 0),
            0U)
      << f->action;
  EXPECT_NE(f->action.find("torch.compile or CUDA/HIP graphs"), std::string::npos) << f->action;
}

TEST_F(CpuIdleCauses, OneHostComputationIsNamed) {
  const Row step = trace_.cpu_op("aten::nonzero", 1000, 6000);
  idle_.part(6'000'000, TRACEPRISM_CAUSE_HOST_COMPUTE, step, kernel_);
  trace_.set_idle_attribution(idle_.table());
  const tt::RunResult r = tt::run<CpuIdleAnalyzer>(trace_, "cpu-idle");
  const tt::Finding* f = finding(r, "host_compute");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->action.rfind("The host runs aten::nonzero", 0), 0U) << f->action;
}

TEST(WarmupRegionNames, TokensOnly) {
  using traceprism::plugins::cpu_idle::names_warmup_region;
  EXPECT_TRUE(names_warmup_region("[param|pytorch.model.alex_net|0|0|0|warmup|forward]"));
  EXPECT_TRUE(names_warmup_region("Warm-up iteration"));
  EXPECT_TRUE(names_warmup_region("model_warm_up"));
  EXPECT_FALSE(names_warmup_region("[param|pytorch.model.alex_net|0|0|0|measure|forward]"));
  EXPECT_FALSE(names_warmup_region("prewarmupx"));
  EXPECT_FALSE(names_warmup_region("ProfilerStep#3"));
}

TEST_F(CpuIdleCauses, LaunchOverheadSaysHowManyGraphLaunchesExist) {
  trace_.runtime("cudaGraphLaunch", 200, 5);
  trace_.runtime("cudaGraphLaunch", 300, 5);
  const Row op = trace_.cpu_op("aten::add", 1000, 5000);
  idle_.part(5'000'000, TRACEPRISM_CAUSE_LAUNCH_OVERHEAD, op, kernel_);
  trace_.set_idle_attribution(idle_.table());
  const tt::RunResult r = tt::run<CpuIdleAnalyzer>(trace_, "cpu-idle");
  const tt::Finding* f = finding(r, "launch_overhead");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->action.find("already replays 2 graph launches"), std::string::npos) << f->action;
  EXPECT_NEAR(f->impact_mid, 2.5, 1e-9);  // 5 % x 50 %
}

TEST_F(CpuIdleCauses, DependencyIsNotQuantified) {
  idle_.part(20'000'000, TRACEPRISM_CAUSE_DEPENDENCY, TRACEPRISM_NO_ROW, kernel_);
  trace_.set_idle_attribution(idle_.table());
  const tt::RunResult r = tt::run<CpuIdleAnalyzer>(trace_, "cpu-idle");
  const tt::Finding* f = finding(r, "dependency");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->impact_kind, TRACEPRISM_IMPACT_NOT_QUANTIFIABLE);
  EXPECT_NEAR(f->share_percent, 20.0, 1e-9);
}

}  // namespace
