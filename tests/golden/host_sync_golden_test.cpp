// host-sync on the HTA critical-path traces (A100, PyTorch with cuda_sync events), which call
// cudaStreamSynchronize / cudaDeviceSynchronize / cudaEventSynchronize and aten::item. No
// reference numbers exist for this analyzer (HTA only uses syncs for the critical path); the
// call counts and totals below were read from the traces with a script.
// - alexnet, simple_add: 21 waits (16 stream, 5 device) of 1.497 / 0.713 ms in 12.9 s / 16.0 s
//   GPU spans (long host pauses in between); the GPU is idle during 0.18 / 0.19 ms of them,
//   0.001% of the span: no idle finding for them.
// - cuda_event_sync: a 0.26 ms span; aten::item (which wraps a stream synchronize, counted once)
//   leaves the GPU idle for a material share of it: cpu-idle's blocking_copy finding names it.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <cmath>
#include <filesystem>
#include <string>

#include "support/findings_json.hpp"
#include "support/shared_traces.hpp"

namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

const fs::path kCriticalPath = traceprism::testing::shared_traces() / "hta" / "critical_path";

// figures["host-sync"][key]; NaN (which fails every comparison) when missing.
double figure(const json::object& report, const std::string& key) {
  return traceprism::testing::figure(report, "host-sync", key).value_or(std::nan(""));
}

struct SyncCase {
  const char* name;
  const char* trace;  // relative to hta/critical_path
  int stream_syncs;
  int device_syncs;
  int event_syncs;
  int scalar_reads;
  double total_ms;
  const char* idle_cause;  // cpu-idle's finding for these waits, or nullptr when none is due
  const char* holder;      // the call site its action names
};

void PrintTo(const SyncCase& c, std::ostream* os) {
  *os << c.trace;
}

class HostSyncCriticalPath : public ::testing::TestWithParam<SyncCase> {};

TEST_P(HostSyncCriticalPath, CountsAndIdleCause) {
  const SyncCase& c = GetParam();
  const fs::path trace = kCriticalPath / c.trace;
  if (!fs::exists(trace)) GTEST_SKIP() << "no reference traces: " << trace << " is absent";
  const json::object report = traceprism::testing::analyze_findings(trace);
  ASSERT_FALSE(report.empty());

  EXPECT_EQ(figure(report, "sync.stream_synchronize.count"), c.stream_syncs);
  EXPECT_EQ(figure(report, "sync.device_synchronize.count"), c.device_syncs);
  EXPECT_EQ(figure(report, "sync.event_synchronize.count"), c.event_syncs);
  EXPECT_EQ(figure(report, "sync.item.count"), c.scalar_reads);
  EXPECT_EQ(figure(report, "sync.count"),
            c.stream_syncs + c.device_syncs + c.event_syncs + c.scalar_reads);
  EXPECT_NEAR(figure(report, "sync.total_ms"), c.total_ms, 1e-9);
  EXPECT_EQ(figure(report, "sync.span_is_gpu_timeline"), 1.0);

  // host-sync measures only (diagnosis.md §1.5): the idle time its waits cause is cpu-idle's,
  // as the cause sync or blocking_copy, and only where that time is material.
  EXPECT_TRUE(traceprism::testing::findings_of(report, "host-sync").empty());
  std::string causes;
  for (const json::object* f : traceprism::testing::findings_of(report, "cpu-idle")) {
    const std::string cause(f->at("cause").as_string());
    if (cause != "sync" && cause != "blocking_copy") continue;
    causes += cause + " ";
    if (c.idle_cause && cause == c.idle_cause) {
      EXPECT_NE(std::string(f->at("action").as_string()).find(c.holder), std::string::npos)
          << f->at("action").as_string();
    }
  }
  if (!c.idle_cause) {
    EXPECT_TRUE(causes.empty()) << "negligible waits reported as " << causes;
  } else {
    EXPECT_NE(causes.find(c.idle_cause), std::string::npos) << causes;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Traces, HostSyncCriticalPath,
    ::testing::Values(
        SyncCase{"alexnet", "alexnet/benchmark_result_2869224_1695835535_trace.json.gz", 16, 5, 0,
                 0, 1.497, nullptr, nullptr},
        SyncCase{"simple_add", "simple_add/benchmark_result_493459_1694039959_trace.json.gz", 16, 5,
                 0, 0, 0.713, nullptr, nullptr},
        // aten::item wraps the stream synchronize: that wait counts once, as the scalar read.
        SyncCase{"cuda_event_sync", "cuda_event_sync/event_sync_trace.json.gz", 0, 1, 1, 1, 0.087,
                 "blocking_copy", "aten::item"}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
