// The memcpy analyzer's Nsight-style rules (pageable-async, sync-memcpy, sync-memset) and its
// per-direction findings, through the CLI on real traces (HTA and TraceLens test data) and on
// small synthetic traces (the comm analyzer's: comm_golden_test.cpp). Expected counts were read off
// the traces themselves (copy event names, the launching runtime call, args.bytes) with a separate
// script, not taken from the analyzers' output.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>
#include <vector>

#include "support/findings_json.hpp"
#include "support/shared_traces.hpp"
#include "support/temp_dir.hpp"
#include "support/trace_builder.hpp"

namespace fs = std::filesystem;
namespace json = boost::json;
using traceprism::testing::analyze_findings;

namespace {

const fs::path kTraces = traceprism::testing::shared_traces();

// The analyzer's finding with this key, or nullptr.
const json::object* finding(const json::object& findings, const std::string& key,
                            const char* analyzer = "memcpy") {
  return traceprism::testing::finding(findings, analyzer, key);
}

// figures[analyzer][key], or -1 when missing.
double figure(const json::object& findings, const std::string& key,
              const char* analyzer = "memcpy") {
  return traceprism::testing::figure(findings, analyzer, key).value_or(-1);
}

std::size_t memcpy_findings(const json::object& findings) {
  return traceprism::testing::findings_of(findings, "memcpy").size();
}

// Checks the common shape of a rule finding: category, tier, evidence count, table columns,
// rows longest first.
void check_shape(const json::object& f, std::size_t evidence) {
  EXPECT_EQ(f.at("category").as_string(), "memcpy");
  EXPECT_EQ(f.at("tier").as_string(), "system");
  const auto& rows = f.at("evidence").as_array();
  EXPECT_EQ(rows.size(), evidence);
  for (std::size_t i = 1; i < rows.size(); ++i) {
    EXPECT_GE(rows[i - 1].as_object().at("dur_us").to_number<double>(),
              rows[i].as_object().at("dur_us").to_number<double>());
  }
  ASSERT_FALSE(f.at("tables").as_array().empty());
  const auto& table = f.at("tables").as_array()[0].as_object();
  const json::array columns = {"Name", "Direction", "Bytes", "Duration (µs)", "Launched by", "Op"};
  EXPECT_EQ(table.at("columns").as_array(), columns);
  EXPECT_EQ(table.at("rows").as_array().size(), std::min<std::size_t>(evidence, 10));
  EXPECT_FALSE(f.at("share_percent").is_null());
}

// What the per-direction check (spec 8.1) gives for D2H or H2D.
constexpr int kNotFlagged = 0;
constexpr int kOwnFinding = 1;  // flagged, with its own "d2h" / "h2d" finding
constexpr int kMerged = 2;      // flagged, but its copies are exactly a rule's: one finding

struct RuleCase {
  std::string name;
  std::string trace;  // relative to shared/traces
  std::size_t pageable_async, sync_memcpy, sync_memset;
  int h2d, d2h;  // per-direction check: kNotFlagged, kOwnFinding or kMerged
};

void PrintTo(const RuleCase& c, std::ostream* os) {
  *os << c.trace;
}

class MemcpyRules : public ::testing::TestWithParam<RuleCase> {};

TEST_P(MemcpyRules, FireOnRealTraces) {
  const RuleCase& c = GetParam();
  const fs::path trace = kTraces / c.trace;
  if (!fs::exists(trace)) GTEST_SKIP() << trace << " is absent";
  const json::object out = analyze_findings(trace);
  if (out.empty()) return;

  const std::pair<const char*, std::size_t> rules[] = {{"pageable-async", c.pageable_async},
                                                       {"sync-memcpy", c.sync_memcpy},
                                                       {"sync-memset", c.sync_memset}};
  for (const auto& [key, expected] : rules) {
    const json::object* f = finding(out, key);
    if (expected == 0) {
      EXPECT_EQ(f, nullptr) << key;
      continue;
    }
    ASSERT_NE(f, nullptr) << key;
    check_shape(*f, expected);
  }
  EXPECT_EQ(figure(out, "rules.pageable_async.count"), static_cast<double>(c.pageable_async));
  EXPECT_EQ(figure(out, "rules.sync_memcpy.count"), static_cast<double>(c.sync_memcpy));
  EXPECT_EQ(figure(out, "rules.sync_memset.count"), static_cast<double>(c.sync_memset));
  const std::pair<const char*, int> directions[] = {{"H2D", c.h2d}, {"D2H", c.d2h}};
  for (const auto& [dir, expected] : directions) {
    std::string key = dir;
    std::transform(key.begin(), key.end(), key.begin(), [](char ch) {
      return static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    });
    EXPECT_EQ(finding(out, key) != nullptr, expected == kOwnFinding) << dir;
    const double flagged =
        figure(out, "memcpy_assessment.by_direction." + std::string(dir) + ".flagged");
    if (expected != kNotFlagged)
      EXPECT_EQ(flagged, 1.0) << dir;
    else
      EXPECT_NE(flagged, 1.0) << dir;
    if (expected == kMerged) {
      // The rule's finding says the direction check flags the same copies.
      bool mentioned = false;
      for (const char* rule : {"pageable-async", "sync-memcpy"}) {
        const json::object* f = finding(out, rule);
        if (f && f->at("identification").as_string().find("per-direction check flags too") !=
                     json::string::npos)
          mentioned = true;
      }
      EXPECT_TRUE(mentioned) << dir;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Traces, MemcpyRules,
    ::testing::Values(
        // 16 "Memcpy HtoD (Pageable -> Device)" from cudaMemcpyAsync, 0.43% of E2E; 16 H2D
        // copies > 10 flag H2D, and they are the same 16 copies: one finding.
        RuleCase{"alexnet",
                 "hta/critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz", 16,
                 0, 0, kMerged, kNotFlagged},
        RuleCase{"simple_add",
                 "hta/critical_path/simple_add/benchmark_result_493459_1694039959_trace.json.gz",
                 16, 0, 0, kMerged, kNotFlagged},
        // 16 pageable + 8 pinned HtoD, 8 pageable DtoH, 8 DtoD, all cudaMemcpyAsync: the rule
        // takes 24 copies, H2D (24 > 10) keeps its own finding.
        RuleCase{"timeline_analysis", "hta/timeline_analysis/sampled_rank-0.json.gz", 24, 0, 0,
                 kOwnFinding, kNotFlagged},
        // One "Memcpy DtoH (Device -> Pageable)" from cudaMemcpyAsync: 2 µs of a 263 µs span.
        RuleCase{"cuda_event_sync", "hta/critical_path/cuda_event_sync/event_sync_trace.json.gz", 1,
                 0, 0, 0, 0},
        RuleCase{"cuda_event_sync_multi_stream",
                 "hta/critical_path/cuda_event_sync_multi_stream/event_sync_trace.json.gz", 0, 0, 0,
                 0, 0},
        // Two HtoD copies from hipMemcpyWithStream; their size is not in the GPU event.
        RuleCase{"amd_minitoy", "hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz", 0, 2, 0,
                 0, 0},
        // hipMemcpyWithStream: a 38.5 MB HtoD and an 800-byte DtoH.
        RuleCase{"mi300_timesformer",
                 "tracelens/mi300/facebook_timesformer-base-finetuned-k400__1016002.json.gz", 0, 2,
                 0, 0, 0},
        // Two hipMemset calls (device memory) next to three hipMemsetAsync; the trace's ac2g
        // flows lack their start halves, so the calls are found by correlation id.
        RuleCase{"normalization",
                 "tracelens/perf_model/normalization/normalization_layer_test.json.gz", 0, 0, 2, 0,
                 0}),
    [](const auto& info) { return info.param.name; });

TEST(MemcpyRulesSynthetic, NoCopiesNoFinding) {
  traceprism::testing::TempDir dir;
  traceprism::testing::TraceText t;
  t.launch("aten::mm", 10, 50, "gemm_kernel", 20, 100, 7, 1);
  t.launch("aten::add", 70, 20, "add_kernel", 130, 10, 7, 2);
  const json::object out = analyze_findings(dir.write("trace.json", t.str()));
  if (out.empty()) return;
  EXPECT_EQ(memcpy_findings(out), 0u);
  EXPECT_EQ(figure(out, "memcpy_summary.total_count"), 0.0);
  EXPECT_EQ(figure(out, "memcpy_summary.total_time_us"), 0.0);
  EXPECT_EQ(figure(out, "memcpy_assessment.flagged"), 0.0);
  EXPECT_EQ(figure(out, "rules.pageable_async.count"), 0.0);
}

// One copy launched by `api` under a cpu_op, with flows (times in µs).
void copy(traceprism::testing::TraceText& t, const std::string& api, const std::string& name,
          long bytes, int ts, int dur, int correlation) {
  const std::string corr = std::to_string(correlation);
  t.x("cpu_op", "aten::copy_", std::to_string(ts), "40");
  t.x("cuda_runtime", api, std::to_string(ts + 1), "30", "{\"correlation\":" + corr + "}");
  t.x("gpu_memcpy", name, std::to_string(ts + 5), std::to_string(dur),
      "{\"correlation\":" + corr + ",\"stream\":7,\"device\":0,\"bytes\":" + std::to_string(bytes) +
          "}",
      "0", "7");
  t.flow(correlation, std::to_string(ts + 1), std::to_string(ts + 5), 7);
}

TEST(MemcpyRulesSynthetic, SyncCopiesAndTheSmallH2DExclusion) {
  traceprism::testing::TempDir dir;
  traceprism::testing::TraceText t;
  t.launch("aten::mm", 0, 50, "gemm_kernel", 5, 100, 7, 1);
  copy(t, "cudaMemcpy", "Memcpy HtoD (Pageable -> Device)", 4096, 200, 3, 2);      // excluded
  copy(t, "cudaMemcpy", "Memcpy HtoD (Pageable -> Device)", 1 << 20, 300, 90, 3);  // flagged
  copy(t, "cudaMemcpy", "Memcpy DtoH (Device -> Pageable)", 512, 400, 2, 4);       // flagged
  copy(t, "cudaMemcpyAsync", "Memcpy HtoD (Pinned -> Device)", 1 << 20, 500, 20, 5);
  copy(t, "cudaMemcpyAsync", "Memcpy DtoH (Device -> Pageable)", 1 << 20, 600, 40, 6);
  const json::object out = analyze_findings(dir.write("trace.json", t.str()));
  if (out.empty()) return;

  const json::object* sync = finding(out, "sync-memcpy");
  ASSERT_NE(sync, nullptr);
  check_shape(*sync, 2);
  const auto& rows = sync->at("tables").as_array()[0].as_object().at("rows").as_array();
  EXPECT_EQ(rows[0].as_array()[1].as_string(), "HtoD");
  EXPECT_EQ(rows[0].as_array()[2].as_string(), "1048576");
  EXPECT_EQ(rows[0].as_array()[4].as_string(), "cudaMemcpy");
  EXPECT_EQ(rows[0].as_array()[5].as_string(), "aten::copy_");

  const json::object* pageable = finding(out, "pageable-async");
  ASSERT_NE(pageable, nullptr);
  check_shape(*pageable, 1);
  EXPECT_EQ(finding(out, "sync-memset"), nullptr);

  // Span 5..645 µs. 3 H2D copies take 113 µs (17.7% > 5%); 2 D2H copies take 42 µs (6.6%).
  EXPECT_EQ(figure(out, "memcpy_summary.by_direction.H2D.count"), 3.0);
  EXPECT_EQ(figure(out, "memcpy_summary.by_direction.H2D.total_time_us"), 113.0);
  EXPECT_EQ(figure(out, "memcpy_summary.by_direction.D2H.total_bytes"), 512.0 + (1 << 20));
  EXPECT_EQ(figure(out, "memcpy_assessment.by_direction.H2D.flagged"), 1.0);
  EXPECT_EQ(figure(out, "memcpy_assessment.by_direction.D2H.flagged"), 1.0);
  EXPECT_NE(finding(out, "h2d"), nullptr);
  EXPECT_NE(finding(out, "d2h"), nullptr);
}

}  // namespace
