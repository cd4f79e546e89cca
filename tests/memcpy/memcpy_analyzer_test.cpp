// The memcpy analyzer on the SDK's fake host (diagnosis.md §5): each finding fires only when its
// precondition holds (device-to-device time, exposed host<->device time, both >= 2 % of E2E),
// pin-memory advice only with pageable copies, the host link judged only when the platform gives
// it, blocking copies referred to the GPU-idle finding, impact never above the exposed time.
// Expected numbers are worked out by hand from the events each test builds.
#include "memcpy/memcpy_analyzer.hpp"

#include <gtest/gtest.h>

#include <traceprism/testing.hpp>

#include <cmath>
#include <string>
#include <vector>

namespace traceprism::plugins::memcpy {
namespace {

using traceprism::testing::EventRef;
using traceprism::testing::FakeTrace;
using traceprism::testing::Finding;
using traceprism::testing::RunResult;

// A trace of kernels and copies, each launched by a runtime call under a chain of cpu_ops.
class CopyTrace {
 public:
  // A compute kernel [ts, ts + dur) µs.
  void kernel(double ts, double dur) {
    const Row call = trace.runtime("cudaLaunchKernel", ts - 5, 2).correlation(next_);
    trace.kernel("gemm_kernel", ts, dur).launcher(call).correlation(next_++);
  }
  // A copy launched by `api` under `ops` (outermost first).
  EventRef copy(const std::string& name, double ts, double dur, std::int64_t bytes,
                std::int32_t direction, std::int32_t source, std::int32_t destination,
                const std::string& api = "cudaMemcpyAsync",
                const std::vector<std::string>& ops = {"aten::copy_"}) {
    Row parent = kNoRow;
    for (const std::string& op : ops) parent = trace.cpu_op(op, ts - 4, 3).parent(parent);
    const Row call = trace.runtime(api, ts - 3, 2).parent(parent).correlation(next_);
    return trace.memcpy(name, ts, dur)
        .launcher(call)
        .correlation(next_++)
        .bytes(bytes)
        .copy(direction, source, destination);
  }
  void h2d(double ts, double dur, std::int64_t bytes, std::int32_t host_kind,
           const std::string& api = "cudaMemcpyAsync") {
    const std::string kind = host_kind == TRACEPRISM_MEMORY_PAGEABLE ? "Pageable"
                             : host_kind == TRACEPRISM_MEMORY_PINNED ? "Pinned"
                                                                     : "Host";
    copy("Memcpy HtoD (" + kind + " -> Device)", ts, dur, bytes, TRACEPRISM_COPY_HTOD, host_kind,
         TRACEPRISM_MEMORY_DEVICE, api);
  }
  void d2d(double ts, double dur, std::int64_t bytes, const std::vector<std::string>& ops) {
    copy("Memcpy DtoD (Device -> Device)", ts, dur, bytes, TRACEPRISM_COPY_DTOD,
         TRACEPRISM_MEMORY_DEVICE, TRACEPRISM_MEMORY_DEVICE, "cudaMemcpyAsync", ops);
  }
  RunResult run() const { return traceprism::testing::run<MemcpyAnalyzer>(trace, "memcpy"); }

  FakeTrace trace;

 private:
  std::int64_t next_ = 1;
};

const Finding* find(const RunResult& r, const std::string& key) {
  for (const Finding& f : r.findings)
    if (f.key == key) return &f;
  return nullptr;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Every finding: cause memcpy, quantified impact ordered low <= mid <= high and never above the
// exposed share it is about.
void check_impact(const Finding& f) {
  EXPECT_EQ(f.cause, "memcpy") << f.key;
  EXPECT_EQ(f.impact_kind, TRACEPRISM_IMPACT_QUANTIFIED) << f.key;
  EXPECT_LE(f.impact_low, f.impact_mid) << f.key;
  EXPECT_LE(f.impact_mid, f.impact_high) << f.key;
  EXPECT_LE(f.impact_high, f.metric("exposed_percent_of_e2e") + 1e-9) << f.key;
}

// Window 0..1000 µs: a kernel [10, 970), three device-to-device copies of 10 µs after it.
TEST(MemcpyD2D, ThreePercentOfTheRunIsReportedWithTheIssuingOps) {
  CopyTrace t;
  t.kernel(0, 970);
  t.d2d(970, 10, 4'000'000, {"aten::contiguous", "aten::clone", "aten::copy_"});
  t.d2d(980, 10, 4'000'000, {"aten::contiguous", "aten::clone", "aten::copy_"});
  t.d2d(990, 10, 2'000'000, {"aten::cat"});
  t.trace.set_platform_number("hbm_bandwidth_gbps", 3350);
  const RunResult r = t.run();
  ASSERT_EQ(r.status, Status::kOk);
  ASSERT_EQ(r.findings.size(), 1u);
  const Finding* f = find(r, "d2d");
  ASSERT_NE(f, nullptr);
  check_impact(*f);
  EXPECT_EQ(f->title, "Device-to-device copies take 3.0% of the run (3 copies, 10.0 MB)");
  EXPECT_DOUBLE_EQ(f->share_percent, 3.0);
  // 30 µs exposed of 1000: 50 / 75 / 95 % of 3 %.
  EXPECT_NEAR(f->impact_low, 1.5, 1e-9);
  EXPECT_NEAR(f->impact_mid, 2.25, 1e-9);
  EXPECT_NEAR(f->impact_high, 2.85, 1e-9);
  // 10 MB in 30 µs = 333.3 GB/s copied, 666.7 GB/s of HBM traffic = 19.9 % of 3350.
  EXPECT_NEAR(f->metric("achieved_gbps"), 333.333, 1e-3);
  EXPECT_TRUE(has(f->insight, "667 GB/s of HBM traffic, 19.9% of the platform's 3350 GB/s"));
  // Two thirds of the copy time comes from .contiguous(), one third from cat; nothing else.
  EXPECT_TRUE(has(f->action, "`aten::contiguous` (66.7% of the device-to-device copy time)"));
  EXPECT_TRUE(has(f->action, "`aten::cat` / `aten::stack` (33.3%"));
  EXPECT_FALSE(has(f->action, "aten::to"));
  EXPECT_FALSE(has(f->action, "graph"));
  ASSERT_EQ(f->tables.size(), 2u);
  const auto& ops = f->tables[0];
  EXPECT_EQ(ops.title, "Ops that issue the copies");
  ASSERT_EQ(ops.rows.size(), 2u);
  EXPECT_EQ(ops.rows[0][0], "aten::contiguous \xE2\x86\x92 aten::clone \xE2\x86\x92 aten::copy_");
  EXPECT_EQ(ops.rows[0][1], "2");
  EXPECT_EQ(ops.rows[1][0], "aten::cat");
  EXPECT_EQ(f->tables[1].title, "Longest copies");
  EXPECT_EQ(f->rows.size(), 3u);
}

// One 10 µs copy in a 1000 µs window is 1 %: below the 2 % precondition, no finding; the
// traffic figures are still recorded.
TEST(MemcpyD2D, OnePercentIsNotReported) {
  CopyTrace t;
  t.kernel(0, 990);
  t.d2d(990, 10, 1'000'000, {"aten::contiguous", "aten::clone", "aten::copy_"});
  const RunResult r = t.run();
  EXPECT_TRUE(r.findings.empty());
  EXPECT_EQ(r.figure("traffic.DtoD.count"), 1);
  EXPECT_EQ(r.figure("traffic.DtoD.bytes"), 1'000'000);
  EXPECT_EQ(r.figure("traffic.DtoD.exposed_us"), 10);
  EXPECT_EQ(r.figure("traffic.DtoD.device_to_device.count"), 1);
}

// 50 µs of copies under a kernel on another stream: 5 % of the run, none of it exposed. The
// finding stands (the precondition is copy time) but claims nothing back.
TEST(MemcpyD2D, HiddenCopiesClaimNoImpact) {
  CopyTrace t;
  t.kernel(0, 1000);
  t.d2d(100, 50, 1'000'000, {"aten::copy_"});
  const RunResult r = t.run();
  const Finding* f = find(r, "d2d");
  ASSERT_NE(f, nullptr);
  check_impact(*f);
  EXPECT_EQ(f->impact_high, 0);
  EXPECT_TRUE(has(f->action, "`aten::copy_` (100.0%"));
  EXPECT_TRUE(has(f->insight, "HBM bandwidth is unknown"));
}

// Window 0..1000: a kernel [0, 950), then 50 µs of host-to-device copies (5 %, all exposed).
CopyTrace host_copies(std::int32_t host_kind) {
  CopyTrace t;
  t.kernel(0, 950);
  for (int i = 0; i < 5; ++i) t.h2d(950 + 10 * i, 10, 64'000, host_kind);
  return t;
}

TEST(MemcpyHostCopies, PageableCopiesGetThePinMemoryAdvice) {
  const RunResult r = host_copies(TRACEPRISM_MEMORY_PAGEABLE).run();
  ASSERT_EQ(r.findings.size(), 1u);
  const Finding* f = find(r, "h2d");
  ASSERT_NE(f, nullptr);
  check_impact(*f);
  EXPECT_EQ(f->title, "Exposed host-to-device copies take 5.0% of the run (5 copies, 320.0 KB)");
  EXPECT_NEAR(f->impact_low, 1.5, 1e-9);  // 30 / 50 / 70 % of 5 %
  EXPECT_NEAR(f->impact_mid, 2.5, 1e-9);
  EXPECT_NEAR(f->impact_high, 3.5, 1e-9);
  EXPECT_TRUE(has(f->action, "pin_memory=True"));
  EXPECT_TRUE(has(f->action, "all 5 copies use pageable memory"));
  EXPECT_EQ(f->metric("pageable_count"), 5);
  // Pageable async copies block the host: referred to the GPU-idle finding, not counted here.
  EXPECT_TRUE(has(f->insight, "5 of these copies block the host"));
  EXPECT_TRUE(has(f->insight, "GPU-idle finding for blocking copies"));
  EXPECT_EQ(f->tables[0].title, "Copies by memory kind");
  ASSERT_EQ(f->tables[0].rows.size(), 1u);
  EXPECT_EQ(f->tables[0].rows[0][0], "pageable \xE2\x86\x92 device");
}

TEST(MemcpyHostCopies, PinnedCopiesGetNoPinMemoryAdvice) {
  const RunResult r = host_copies(TRACEPRISM_MEMORY_PINNED).run();
  const Finding* f = find(r, "h2d");
  ASSERT_NE(f, nullptr);
  check_impact(*f);
  EXPECT_FALSE(has(f->action, "pin_memory"));
  EXPECT_FALSE(has(f->action, "Pin the host memory"));
  EXPECT_EQ(f->metric("pageable_count"), 0);
  EXPECT_FALSE(has(f->insight, "block the host"));  // pinned async copies do not block
  EXPECT_TRUE(has(f->action, "side stream"));
}

// 2 pageable and 3 pinned copies of 10 µs: the advice gives the pageable part of the exposed time.
TEST(MemcpyHostCopies, MixedKindsGiveThePageableSplit) {
  CopyTrace t;
  t.kernel(0, 950);
  for (int i = 0; i < 5; ++i)
    t.h2d(950 + 10 * i, 10, 64'000, i < 2 ? TRACEPRISM_MEMORY_PAGEABLE : TRACEPRISM_MEMORY_PINNED);
  const RunResult r = t.run();
  const Finding* f = find(r, "h2d");
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(
      has(f->action, "2 of the 5 copies use pageable memory (40.0% of their exposed time)"));
  EXPECT_TRUE(
      has(f->insight, "2 pageable \xE2\x86\x92 device (128.0 KB, 0.020 ms exposed); 3 pinned"));
  ASSERT_EQ(f->tables[0].rows.size(), 2u);
  EXPECT_EQ(f->tables[0].rows[1][0], "pinned \xE2\x86\x92 device");
  EXPECT_EQ(f->tables[0].rows[1][1], "3");
}

// ROCm names the host side "Host": pinned or not is unknown, so no pin-memory advice.
TEST(MemcpyHostCopies, UnspecifiedHostMemoryIsSaidUnknown) {
  const RunResult r = host_copies(TRACEPRISM_MEMORY_HOST).run();
  const Finding* f = find(r, "h2d");
  ASSERT_NE(f, nullptr);
  EXPECT_FALSE(has(f->action, "pin_memory"));
  EXPECT_TRUE(has(f->insight, "does not say whether that memory is pinned"));
}

// 5 copies of 64 KB in 10 µs each: 6.4 GB/s. Against a 64 GB/s link that is 10 % (< 50 %) with
// a median of 64 KB (< 1 MiB): small transfers, batch them.
TEST(MemcpyHostLink, SlowSmallCopiesAreJudgedAgainstAKnownLink) {
  CopyTrace t = host_copies(TRACEPRISM_MEMORY_PINNED);
  t.trace.set_platform_number("host_link_gbps", 64);
  const RunResult r = t.run();
  const Finding* f = find(r, "h2d");
  ASSERT_NE(f, nullptr);
  EXPECT_NEAR(f->metric("achieved_gbps"), 6.4, 1e-9);
  EXPECT_EQ(f->metric("link_gbps"), 64);
  EXPECT_NEAR(f->metric("link_percent"), 10, 1e-9);
  EXPECT_TRUE(has(f->insight, "6.4 GB/s, 10.0% of the 64 GB/s host link"));
  EXPECT_TRUE(has(f->action, "Batch the small transfers: the median copy moves 64.0 KB"));
  EXPECT_EQ(r.figure("link.host_gbps"), 64);
  EXPECT_NEAR(r.figure("traffic.HtoD.link_percent"), 10, 1e-9);
}

TEST(MemcpyHostLink, UnknownLinkIsSaidAndNotJudged) {
  const RunResult r = host_copies(TRACEPRISM_MEMORY_PINNED).run();
  const Finding* f = find(r, "h2d");
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(has(f->insight, "host-link bandwidth is unknown (no `host_link_gbps`)"));
  EXPECT_FALSE(has(f->action, "Batch"));
  EXPECT_FALSE(has(f->action, "nvidia-smi"));
  EXPECT_TRUE(std::isnan(f->metric("link_percent")));
  EXPECT_TRUE(std::isnan(r.figure("link.host_gbps")));
  EXPECT_TRUE(std::isnan(r.figure("traffic.HtoD.link_percent")));
}

// 2.5 MB in 50 µs = 50 GB/s, 78 % of 64 GB/s: as fast as the link allows, no bandwidth advice.
TEST(MemcpyHostLink, FastCopiesGetNoBandwidthAdvice) {
  CopyTrace t;
  t.kernel(0, 950);
  t.h2d(950, 50, 2'500'000, TRACEPRISM_MEMORY_PINNED);
  t.trace.set_platform_number("host_link_gbps", 64);
  const RunResult r = t.run();
  const Finding* f = find(r, "h2d");
  ASSERT_NE(f, nullptr);
  EXPECT_FALSE(has(f->action, "Batch"));
  EXPECT_FALSE(has(f->action, "nvidia-smi"));
}

// Large pinned copies at 10 % of the link: not small, not pageable, so the link is suspect.
TEST(MemcpyHostLink, SlowLargePinnedCopiesPointAtTheLink) {
  CopyTrace t;
  t.kernel(0, 950);
  t.h2d(950, 50, 3'200'000, TRACEPRISM_MEMORY_PINNED);  // 3.2 MB in 50 µs: 64 GB/s ...
  t.trace.set_platform_number("host_link_gbps", 640);   // ... of a 640 GB/s link
  const RunResult r = t.run();
  const Finding* f = find(r, "h2d");
  ASSERT_NE(f, nullptr);
  EXPECT_FALSE(has(f->action, "Batch"));
  EXPECT_TRUE(has(f->action, "check the link the GPU negotiated"));
}

// A synchronous 1 MB copy blocks the host; with the idle attribution the note gives its idle
// time. The finding's impact stays 30/50/70 % of the exposed copy time only.
TEST(MemcpyHostCopies, BlockingCopiesReferToTheIdleFinding) {
  CopyTrace t;
  t.kernel(0, 950);
  t.h2d(950, 50, 1'000'000, TRACEPRISM_MEMORY_PINNED, "cudaMemcpy");
  traceprism_idle_attribution_v1 idle{};
  idle.struct_size = sizeof(idle);
  idle.window_end_ns = 1'000'000;
  idle.idle_us[TRACEPRISM_CAUSE_BLOCKING_COPY] = 300;
  t.trace.set_idle_attribution(&idle);
  const RunResult r = t.run();
  const Finding* f = find(r, "h2d");
  ASSERT_NE(f, nullptr);
  check_impact(*f);
  EXPECT_NEAR(f->impact_high, 3.5, 1e-9);
  EXPECT_TRUE(has(f->insight, "1 of these copies blocks the host (launched by `cudaMemcpy`"));
  EXPECT_TRUE(has(f->insight, "0.30 ms (30.0%) of GPU idle time attributed to blocking copies"));
  EXPECT_EQ(r.figure("rules.sync_memcpy.count"), 1);
}

// 1.5 % exposed host-to-device time: below 2 %, no finding, whatever the memory kind.
TEST(MemcpyHostCopies, BelowTwoPercentExposedIsNotReported) {
  CopyTrace t;
  t.kernel(0, 985);
  t.h2d(985, 15, 64'000, TRACEPRISM_MEMORY_PAGEABLE);
  const RunResult r = t.run();
  EXPECT_TRUE(r.findings.empty());
  EXPECT_EQ(r.figure("traffic.HtoD.pageable_to_device.count"), 1);
  EXPECT_EQ(r.figure("rules.pageable_async.count"), 1);
}

// Host copies under compute on another stream: 10 % of the run in copies, 0 exposed.
TEST(MemcpyHostCopies, HiddenHostCopiesAreNotReported) {
  CopyTrace t;
  t.kernel(0, 1000);
  t.h2d(100, 100, 64'000, TRACEPRISM_MEMORY_PAGEABLE);
  EXPECT_TRUE(t.run().findings.empty());
}

// Device-to-host reads after the last kernel: 4 % exposed, the d2h finding with its own advice.
TEST(MemcpyHostCopies, DeviceToHostCopiesHaveTheirOwnFinding) {
  CopyTrace t;
  t.kernel(0, 960);
  for (int i = 0; i < 4; ++i)
    t.copy("Memcpy DtoH (Device -> Pageable)", 960 + 10 * i, 10, 4, TRACEPRISM_COPY_DTOH,
           TRACEPRISM_MEMORY_DEVICE, TRACEPRISM_MEMORY_PAGEABLE, "cudaMemcpyAsync",
           {"aten::item", "aten::_local_scalar_dense"});
  const RunResult r = t.run();
  ASSERT_EQ(r.findings.size(), 1u);
  const Finding* f = find(r, "d2h");
  ASSERT_NE(f, nullptr);
  check_impact(*f);
  EXPECT_EQ(f->title, "Exposed device-to-host copies take 4.0% of the run (4 copies, 16 B)");
  EXPECT_TRUE(has(f->action, "Copy into pinned host buffers"));
  EXPECT_TRUE(has(f->action, "keep values on the GPU"));
}

TEST(MemcpyAnalyzerRun, NoCopiesNoFindingAndTheReferenceFigures) {
  CopyTrace t;
  t.kernel(0, 100);
  const RunResult r = t.run();
  EXPECT_EQ(r.status, Status::kOk);
  EXPECT_TRUE(r.findings.empty());
  EXPECT_EQ(r.figure("memcpy_summary.total_count"), 0);
  EXPECT_EQ(r.figure("memcpy_assessment.flagged"), 0);
  EXPECT_EQ(r.figure("traffic.e2e_us"), 100);
  EXPECT_TRUE(std::isnan(r.figure("traffic.HtoD.count")));
}

}  // namespace
}  // namespace traceprism::plugins::memcpy
