// host-sync on the HTA critical-path traces (A100, PyTorch with cuda_sync events), which call
// cudaStreamSynchronize / cudaDeviceSynchronize / cudaEventSynchronize and aten::item. No
// reference numbers exist for this analyzer (HTA only uses syncs for the critical path); the
// call counts and totals below were read from the traces with a script.
// - alexnet, simple_add: 21 waits (16 stream, 5 device) of 1.497 / 0.713 ms in 12.9 s / 16.0 s
//   GPU spans (long host pauses in between); the GPU is idle during 0.18 / 0.19 ms of them,
//   0.001% of the span, but 21 waits reach RepeatedSyncCount (10): an info finding.
// - cuda_event_sync: a 0.26 ms span; aten::item (which wraps a stream synchronize, counted once)
//   leaves the GPU idle for 16% of it: a critical finding.
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
  const char* severity;  // of the finding, or nullptr when none is expected
};

void PrintTo(const SyncCase& c, std::ostream* os) {
  *os << c.trace;
}

class HostSyncCriticalPath : public ::testing::TestWithParam<SyncCase> {};

TEST_P(HostSyncCriticalPath, CountsAndFinding) {
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

  const auto findings = traceprism::testing::findings_of(report, "host-sync");
  if (!c.severity) {
    EXPECT_TRUE(findings.empty());
    return;
  }
  ASSERT_EQ(findings.size(), 1u);
  const json::object* f = findings.front();
  EXPECT_EQ(f->at("severity").as_string(), c.severity);
  EXPECT_EQ(f->at("category").as_string(), "host_sync");
  EXPECT_EQ(f->at("key").as_string(), "device-sync");
  EXPECT_EQ(f->at("tier").as_string(), "system");
  EXPECT_NEAR(f->at("share_percent").to_number<double>(),
              figure(report, "sync.stall_percent_of_span"), 1e-9);
  EXPECT_FALSE(f->at("evidence").as_array().empty());
  const json::array& tables = f->at("tables").as_array();
  ASSERT_FALSE(tables.empty());
  EXPECT_EQ(tables[0].at("title").as_string(), "Blocking synchronization by call site");
  const json::array& rows = tables[0].at("rows").as_array();
  ASSERT_FALSE(rows.empty());
  // Groups are sorted by total time, largest first; the call counts add up to sync.count.
  double previous = 1e300, calls = 0;
  for (const json::value& row : rows) {
    const json::array& cells = row.as_array();
    const double total = std::stod(std::string(cells[3].as_string()));
    EXPECT_LE(total, previous);
    previous = total;
    calls += std::stod(std::string(cells[2].as_string()));
  }
  EXPECT_EQ(calls, figure(report, "sync.count"));
}

INSTANTIATE_TEST_SUITE_P(
    Traces, HostSyncCriticalPath,
    ::testing::Values(
        SyncCase{"alexnet", "alexnet/benchmark_result_2869224_1695835535_trace.json.gz", 16, 5, 0,
                 0, 1.497, "info"},
        SyncCase{"simple_add", "simple_add/benchmark_result_493459_1694039959_trace.json.gz", 16, 5,
                 0, 0, 0.713, "info"},
        // aten::item wraps the stream synchronize: that wait counts once, as the scalar read.
        SyncCase{"cuda_event_sync", "cuda_event_sync/event_sync_trace.json.gz", 0, 1, 1, 1, 0.087,
                 "critical"}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
