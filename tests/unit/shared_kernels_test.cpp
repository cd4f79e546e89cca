// diagnosis.md §1.5 across analyzers: kernel time two findings claim is counted by the more
// specific one; the other keeps the rest, points to it, or is folded into it. Expected values
// by hand from the durations below.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "findings/ranker.hpp"

namespace traceprism::findings {
namespace {

// Kernel rows 0..9, row r runs (r + 1) * 100 µs: rows 0-3 are 1000 µs, rows 4-9 are 4500 µs.
std::vector<std::int64_t> durations() {
  std::vector<std::int64_t> ns;
  for (int r = 0; r < 10; ++r) ns.push_back((r + 1) * 100'000);
  return ns;
}

Finding finding(Tier tier, std::string cause, std::string key, double mid,
                std::vector<std::uint32_t> kernels) {
  Finding f;
  f.tier = tier;
  f.cause = std::move(cause);
  f.key = std::move(key);
  f.title = f.key + " title";
  f.impact_kind = ImpactKind::kQuantified;
  f.impact_low = mid / 2;
  f.impact_mid = mid;
  f.impact_high = mid * 2;
  f.share_percent = mid * 4;
  f.kernels = std::move(kernels);
  return f;
}

AnalyzerOutcome outcome(std::string name, std::vector<Finding> findings) {
  AnalyzerOutcome o;
  o.name = name;
  for (Finding& f : findings) f.analyzer = name;
  o.findings = std::move(findings);
  return o;
}

const Finding* find(const std::vector<Finding>& tier, const std::string& key) {
  for (const Finding& f : tier)
    if (f.key == key) return &f;
  return nullptr;
}

TEST(SharedKernels, TheMoreSpecificFindingKeepsSharedTimeTheOtherKeepsTheRest) {
  // The roofline item covers rows 0-9 (5500 µs); the layout finding rows 0-3 (1000 µs). The
  // roofline item ranks higher by impact but is less specific: it keeps 4500 / 5500.
  const auto ns = durations();
  const RankedFindings r = rank_findings(
      {outcome("elementwise",
               {finding(Tier::kCompute, "roofline", "copy", 11, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9})}),
       outcome("layout", {finding(Tier::kCompute, "layout", "nhwc", 2, {0, 1, 2, 3})})},
      ns);
  ASSERT_EQ(r.compute.size(), 2U);
  const Finding* roofline = find(r.compute, "copy");
  const Finding* layout = find(r.compute, "nhwc");
  ASSERT_TRUE(roofline && layout);
  EXPECT_DOUBLE_EQ(layout->impact_mid, 2);
  EXPECT_NEAR(roofline->impact_mid, 11 * 4500.0 / 5500.0, 1e-9);
  EXPECT_NEAR(roofline->impact_low, 5.5 * 4500.0 / 5500.0, 1e-9);
  EXPECT_NEAR(roofline->share_percent, 44 * 4500.0 / 5500.0, 1e-9);
  EXPECT_NE(roofline->insight.find("compute P" + std::to_string(layout->rank)), std::string::npos)
      << roofline->insight;
  EXPECT_NE(roofline->insight.find("1.00 ms under"), std::string::npos) << roofline->insight;
  EXPECT_EQ(layout->insight, "");
  EXPECT_TRUE(r.folded.empty());
}

TEST(SharedKernels, AFindingThatOnlyRepeatsAnotherIsFoldedIntoIt) {
  // gemm-efficiency's item covers rows 4 and 5 only; the precision finding rows 4-9. The
  // folded item is critical: its owner, a warning, takes that severity (--fail-on).
  const auto ns = durations();
  Finding repeated = finding(Tier::kCompute, "roofline", "fp32-gemm", 9, {4, 5});
  repeated.severity = Severity::kCritical;
  const RankedFindings r = rank_findings(
      {outcome("gemm", {repeated}),
       outcome("precision", {finding(Tier::kCompute, "precision", "fp32", 3, {4, 5, 6, 7, 8, 9})})},
      ns);
  ASSERT_EQ(r.compute.size(), 1U);
  EXPECT_EQ(r.compute[0].key, "fp32");
  EXPECT_EQ(r.compute[0].rank, 1);
  ASSERT_EQ(r.folded.size(), 1U);
  EXPECT_EQ(r.folded[0].folded_into_id, "compute-p1");
  EXPECT_EQ(r.compute[0].severity, Severity::kCritical);
  EXPECT_NE(r.compute[0].insight.find("folded into it, not listed on their own: gemm's "
                                      "\"fp32-gemm title\"."),
            std::string::npos)
      << r.compute[0].insight;
}

TEST(SharedKernels, AcrossTiersFusionOwnsTheAttentionKernelsBeforeTheComputeItem) {
  // bmm + softmax (rows 6, 7: 1500 µs) are inside the fusion candidate (rows 6-9); the compute
  // item also has rows 0, 1 (300 µs) of its own: it keeps 300 / 1800.
  const auto ns = durations();
  const RankedFindings r = rank_findings(
      {outcome("gemm", {finding(Tier::kCompute, "roofline", "bmm", 6, {0, 1, 6, 7})}),
       outcome("fusion", {finding(Tier::kFusion, "fusion", "attn", 5, {6, 7, 8, 9})})},
      ns);
  ASSERT_EQ(r.compute.size(), 1U);
  ASSERT_EQ(r.fusion.size(), 1U);
  EXPECT_NEAR(r.compute[0].impact_mid, 6 * 300.0 / 1800.0, 1e-9);
  EXPECT_DOUBLE_EQ(r.fusion[0].impact_mid, 5);
  EXPECT_NE(r.compute[0].insight.find("fusion P1"), std::string::npos) << r.compute[0].insight;
}

TEST(SharedKernels, FindingsWithoutKernelsOrWithoutDurationsAreUntouched) {
  const auto ns = durations();
  const RankedFindings with =
      rank_findings({outcome("idle", {finding(Tier::kSystem, "sync", "sync", 7, {})}),
                     outcome("gemm", {finding(Tier::kCompute, "roofline", "a", 4, {1, 2})}),
                     outcome("conv", {finding(Tier::kCompute, "roofline", "b", 3, {5})})},
                    ns);
  EXPECT_DOUBLE_EQ(with.system[0].impact_mid, 7);
  EXPECT_DOUBLE_EQ(find(with.compute, "a")->impact_mid, 4);
  EXPECT_DOUBLE_EQ(find(with.compute, "b")->impact_mid, 3);
  // No duration column (a caller without an index): no sharing at all.
  const RankedFindings without = rank_findings(
      {outcome("gemm", {finding(Tier::kCompute, "roofline", "fp32-gemm", 9, {4, 5})}),
       outcome("precision", {finding(Tier::kCompute, "precision", "fp32", 3, {4, 5})})});
  EXPECT_EQ(without.compute.size(), 2U);
  EXPECT_TRUE(without.folded.empty());
}

TEST(SharedKernels, SameSpecificityTheLargerImpactClaimsFirst) {
  // Two roofline items from two analyzers that both hold row 9 (1000 µs): the larger keeps it.
  const auto ns = durations();
  const RankedFindings r =
      rank_findings({outcome("a", {finding(Tier::kCompute, "roofline", "small", 1, {8, 9})}),
                     outcome("b", {finding(Tier::kCompute, "roofline", "large", 8, {9, 0})})},
                    ns);
  EXPECT_DOUBLE_EQ(find(r.compute, "large")->impact_mid, 8);
  EXPECT_NEAR(find(r.compute, "small")->impact_mid, 900.0 / 1900.0, 1e-9);
}

}  // namespace
}  // namespace traceprism::findings
