// comparison/: the name-level kernel diff, copies by direction, the side-by-side time breakdown
// and its one-sentence gap summary, which of trace 1's system findings a comparison keeps, and
// the stack-mismatch warnings. Expected values are worked out by hand from the events below.
#include <gtest/gtest.h>

#include "comparison/comparative_findings.hpp"
#include "comparison/kernel_diff.hpp"
#include "comparison/stack_mismatch.hpp"
#include "comparison/time_breakdown.hpp"
#include "ingest/trace_reader.hpp"
#include "support/temp_dir.hpp"
#include "support/trace_builder.hpp"

namespace cmp = traceprism::comparison;
using traceprism::model::LaunchLinks;

namespace {

struct Trace {
  traceprism::index::EventIndex index;
  LaunchLinks links;
  explicit Trace(const std::string& text) : index(read(text)), links(LaunchLinks::build(index)) {}
  cmp::GpuEventSet set() const { return {index, links, false}; }
  static traceprism::index::EventIndex read(const std::string& text) {
    traceprism::testing::TempDir dir;
    return traceprism::ingest::read_trace(dir.write("t.json", text)).index;
  }
};

// Trace 1: gemm 100 µs, two "add" kernels of 10 µs, one DtoD copy of 40 µs after them, and an
// unlinked kernel (no launch) that the timeline's event set leaves out.
std::string trace1_text() {
  traceprism::testing::TraceText t;
  t.launch("aten::mm", 0, 20, "gemm", 50, 100, 7, 1);
  t.launch("aten::add", 30, 10, "add", 160, 10, 7, 2);
  t.launch("aten::add", 45, 10, "add", 180, 10, 7, 3);
  t.launch("aten::copy_", 60, 10, "Memcpy DtoD (Device -> Device)", 200, 40, 7, 4, "gpu_memcpy");
  t.x("kernel", "unlinked", "300", "5", "{\"stream\":7,\"device\":0}", "0", "7");
  return t.str();
}

// Trace 2: gemm 80 µs, one "add" of 10 µs and a "mul" of 5 µs; no copy.
std::string trace2_text() {
  traceprism::testing::TraceText t;
  t.launch("aten::mm", 0, 20, "gemm", 50, 80, 7, 1);
  t.launch("aten::add", 30, 10, "add", 140, 10, 7, 2);
  t.launch("aten::mul", 45, 10, "mul", 160, 5, 7, 3);
  return t.str();
}

const cmp::KernelDiffRow* row_named(const std::vector<cmp::KernelDiffRow>& rows,
                                    const std::string& name) {
  for (const auto& r : rows)
    if (r.name == name) return &r;
  return nullptr;
}

TEST(KernelDiff, OneRowPerNameSortedByTimeDifference) {
  const Trace a(trace1_text()), b(trace2_text());
  const auto rows = cmp::kernel_diff(a.set(), b.set());
  ASSERT_EQ(rows.size(), 4u);  // gemm, add, copy, mul; the unlinked kernel is not counted
  EXPECT_EQ(rows[0].name, "Memcpy DtoD (Device -> Device)");  // +40 µs
  EXPECT_EQ(rows[1].name, "gemm");                            // +20 µs
  EXPECT_EQ(rows[2].name, "add");                             // +10 µs
  EXPECT_EQ(rows[3].name, "mul");                             // -5 µs
  const auto* add = row_named(rows, "add");
  EXPECT_EQ(add->count_trace1, 2u);
  EXPECT_EQ(add->count_trace2, 1u);
  EXPECT_EQ(add->count_diff(), 1);
  EXPECT_EQ(add->time_ns_diff(), 10'000);
  const auto* mul = row_named(rows, "mul");
  EXPECT_EQ(mul->count_trace1, 0u);
  EXPECT_EQ(mul->time_ns_trace1, 0);
  EXPECT_EQ(mul->time_ns_diff(), -5'000);
  EXPECT_EQ(row_named(rows, "unlinked"), nullptr);
}

TEST(KernelDiff, CsvHasTheDocumentedColumnsAndQuotesNames) {
  std::vector<cmp::KernelDiffRow> rows(1);
  rows[0].name = "void k<a, b>(int)";
  rows[0].count_trace1 = 3;
  rows[0].count_trace2 = 1;
  rows[0].time_ns_trace1 = 1'500'000;
  rows[0].time_ns_trace2 = 250'000;
  EXPECT_EQ(cmp::kernel_diff_csv(rows),
            "name,count_trace1,count_trace2,count_diff,time_ms_trace1,time_ms_trace2,"
            "time_ms_diff\n\"void k<a, b>(int)\",3,1,2,1.500000,0.250000,1.250000\n");
}

TEST(CopiesByDirection, ExposedTimeIsWhatNoKernelCovers) {
  // A DtoD copy [100, 140] half under a kernel [80, 120]: 20 µs exposed.
  traceprism::testing::TraceText t;
  t.launch("aten::mm", 0, 20, "gemm", 80, 40, 7, 1);
  t.launch("aten::copy_", 30, 10, "Memcpy DtoD (Device -> Device)", 100, 40, 8, 2, "gpu_memcpy");
  const Trace x(t.str());
  const auto copies = cmp::copies_by_direction(x.set());
  ASSERT_EQ(copies.size(), 1u);
  EXPECT_EQ(copies[0].direction, "DtoD");
  EXPECT_EQ(copies[0].count, 1u);
  EXPECT_DOUBLE_EQ(copies[0].time_us, 40);
  EXPECT_DOUBLE_EQ(copies[0].exposed_us, 20);
}

cmp::TraceTimeFigures figures(double total, double gemm, double idle_dataloader,
                              double dtod_exposed, std::uint64_t dtod_count) {
  cmp::TraceTimeFigures f;
  f.timeline.total_us = total;
  f.timeline.events = 10;
  f.timeline.computation_us = gemm;
  f.timeline.exposed_memcpy_us = dtod_exposed;
  f.timeline.idle_us = idle_dataloader;
  f.computation_by_category.push_back({"GEMM", gemm, gemm});
  if (idle_dataloader > 0) {
    traceprism::findings::CauseIdle c;
    c.cause = "dataloader";
    c.idle_us = idle_dataloader;
    c.gaps = 3;
    f.idle_by_cause.push_back(c);
  }
  if (dtod_count > 0) f.copies.push_back({"DtoD", dtod_count, dtod_exposed, dtod_exposed});
  return f;
}

TEST(GapSummary, NamesTheLargestDifferencesFirst) {
  // Trace 1: 140 ms = 100 GEMM + 30 dataloader idle + 10 DtoD copies (1200 of them);
  // trace 2: 100 ms, 98 of them GEMM.
  const auto one = figures(140'000, 100'000, 30'000, 10'000, 1200);
  const auto two = figures(100'000, 98'000, 0, 0, 0);
  const auto rows = cmp::time_breakdown(one, two);
  const std::string s = cmp::gap_summary(one, two, rows);
  EXPECT_EQ(s,
            "Trace 1 is 40.00 ms (40.0%) slower than trace 2 (140.00 ms vs 100.00 ms): +30.00 ms "
            "idle: dataloader (+3 gaps), +10.00 ms device-to-device copies (+1200 copies), "
            "+2.00 ms GEMM.");
  // The timeline rows come first, in their fixed order.
  ASSERT_GE(rows.size(), 5u);
  EXPECT_EQ(rows[0].key, "total");
  EXPECT_DOUBLE_EQ(rows[0].diff_us(), 40'000);
}

TEST(GapSummary, IdenticalTracesTakeTheSameTime) {
  const auto one = figures(100'000, 90'000, 10'000, 0, 0);
  const auto rows = cmp::time_breakdown(one, one);
  for (const auto& r : rows) EXPECT_EQ(r.diff_us(), 0) << r.label;
  EXPECT_TRUE(cmp::material_differences(rows, 100'000).empty());
  EXPECT_EQ(cmp::gap_summary(one, one, rows),
            "The two traces take the same time (100.00 ms vs 100.00 ms), and no part of their GPU "
            "timelines differs by 1% of the window or more.");
}

TEST(GapSummary, DifferencesBelowOnePercentAreNotNamed) {
  const auto one = figures(100'500, 100'500, 0, 0, 0);
  const auto two = figures(100'000, 100'000, 0, 0, 0);
  EXPECT_EQ(cmp::gap_summary(one, two, cmp::time_breakdown(one, two)).rfind("The two traces", 0),
            0u);
}

traceprism::findings::AnalyzerOutcome outcome(
    const std::string& analyzer, const std::string& key, const std::string& cause,
    traceprism::findings::Tier tier = traceprism::findings::Tier::kSystem) {
  traceprism::findings::AnalyzerOutcome a;
  a.name = analyzer;
  traceprism::findings::Finding f;
  f.analyzer = analyzer;
  f.key = key;
  f.title = key;
  f.cause = cause;
  f.tier = tier;
  a.findings.push_back(f);
  return a;
}

TEST(ComparativeFindings, KeepsSystemFindingsWhoseCauseGrewByTwoPercentOfTheWindow) {
  const auto one = figures(100'000, 60'000, 30'000, 10'000, 5);
  const auto two = figures(100'000, 60'000, 29'000, 2'000, 5);
  // dataloader: 30 vs 29 ms (1% of the window): in both. Copies ("memcpy"): 10 vs 2 ms: kept.
  const auto out = cmp::comparative_outcomes(
      {outcome("cpu-idle", "dataloader", "dataloader"), outcome("memcpy", "dtod", "memcpy"),
       outcome("gemm-efficiency", "g1", "roofline", traceprism::findings::Tier::kCompute)},
      {}, one, two, /*measured_against_trace2=*/false);
  ASSERT_EQ(out.analyzers.size(), 3u);
  EXPECT_TRUE(out.analyzers[0].findings.empty());
  ASSERT_EQ(out.analyzers[1].findings.size(), 1u);
  EXPECT_EQ(out.analyzers[1].findings[0].key, "dtod");
  EXPECT_TRUE(out.analyzers[2].findings.empty());  // standalone compute items are not carried
  ASSERT_EQ(out.in_both.size(), 1u);
  EXPECT_EQ(out.in_both[0].key, "dataloader");
  EXPECT_DOUBLE_EQ(*out.in_both[0].us_trace1, 30'000);
  EXPECT_DOUBLE_EQ(*out.in_both[0].us_trace2, 29'000);
}

TEST(ComparativeFindings, ComputeAndFusionItemsMeasuredAgainstTraceTwoAreKept) {
  const auto f = figures(100'000, 100'000, 0, 0, 0);
  const auto out = cmp::comparative_outcomes(
      {outcome("gemm-efficiency", "g1", "roofline", traceprism::findings::Tier::kCompute),
       outcome("matrix-precision", "p1", "precision", traceprism::findings::Tier::kCompute),
       outcome("kernel-fusion", "f1", "fusion", traceprism::findings::Tier::kFusion)},
      {}, f, f, /*measured_against_trace2=*/true);
  ASSERT_EQ(out.analyzers[0].findings.size(), 1u);
  EXPECT_EQ(out.analyzers[0].findings[0].key, "g1");
  // A standalone judgement trace 2 does not share: it explains part of the gap.
  ASSERT_EQ(out.analyzers[1].findings.size(), 1u);
  ASSERT_EQ(out.analyzers[2].findings.size(), 1u);  // a measured gap to trace 2
  EXPECT_TRUE(out.in_both.empty());
}

TEST(ComparativeFindings, APrecisionItemTraceTwoAlsoHasIsInBoth) {
  const auto f = figures(100'000, 100'000, 0, 0, 0);
  const auto out = cmp::comparative_outcomes(
      {outcome("matrix-precision", "p1", "precision", traceprism::findings::Tier::kCompute)},
      {outcome("matrix-precision", "p1", "precision", traceprism::findings::Tier::kCompute)}, f, f,
      true);
  EXPECT_TRUE(out.analyzers[0].findings.empty());
  ASSERT_EQ(out.in_both.size(), 1u);
  EXPECT_EQ(out.in_both[0].key, "p1");
}

TEST(ComparativeFindings, WithoutAMeasuredCauseTraceTwoHavingTheFindingDropsIt) {
  const auto f = figures(100'000, 100'000, 0, 0, 0);
  const auto out = cmp::comparative_outcomes(
      {outcome("host-sync", "sync-a", ""), outcome("host-sync", "sync-b", "")},
      {outcome("host-sync", "sync-a", "")}, f, f, false);
  EXPECT_TRUE(out.analyzers[0].findings.empty());
  ASSERT_EQ(out.analyzers[1].findings.size(), 1u);
  EXPECT_EQ(out.analyzers[1].findings[0].key, "sync-b");
  ASSERT_EQ(out.in_both.size(), 1u);
  EXPECT_EQ(out.in_both[0].key, "sync-a");
  EXPECT_FALSE(out.in_both[0].us_trace1.has_value());
}

TEST(StackMismatch, SameStackGivesNoWarning) {
  const Trace a(trace1_text()), b(trace2_text());
  EXPECT_TRUE(cmp::stack_mismatch_warnings({a.index, a.links}, {b.index, b.links}).empty());
}

TEST(StackMismatch, DifferentRuntimesAndOpNamesAreNamed) {
  traceprism::testing::TraceText hip;
  hip.x("cpu_op", "vllm::fused_op", "0", "20");
  hip.x("cuda_runtime", "hipLaunchKernel", "5", "1", "{\"correlation\":1}");
  hip.x("kernel", "k", "50", "10", "{\"correlation\":1,\"stream\":0,\"device\":0}", "0", "0");
  hip.flow(1, "5", "50", 0);
  const Trace a(hip.str()), b(trace2_text());
  const auto w = cmp::stack_mismatch_warnings({a.index, a.links}, {b.index, b.links});
  ASSERT_EQ(w.size(), 2u);
  EXPECT_NE(w[0].find("through HIP and trace 2 through CUDA"), std::string::npos) << w[0];
  EXPECT_NE(w[1].find("Only 0% of trace 1's 1 CPU op names"), std::string::npos) << w[1];
}

}  // namespace
