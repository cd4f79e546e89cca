// --per-rank-reports' "Seen on K of N ranks" (multi-rank.md §9.1) on hand-made findings.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/per_rank_reports.hpp"

namespace {

using traceprism::cli::add_seen_on_ranks;
using traceprism::cli::rank_report_folder;
using traceprism::cli::seen_findings;
using traceprism::cli::SeenFindings;
using traceprism::findings::Finding;
using traceprism::findings::RankedFindings;

Finding finding(const std::string& analyzer, const std::string& key, double mid) {
  Finding f;
  f.analyzer = analyzer;
  f.key = key;
  f.impact_mid = mid;
  f.insight = "Insight.";
  return f;
}

double metric(const Finding& f, const std::string& name) {
  for (const auto& [key, value] : f.metrics)
    if (key == name) return value;
  return -1;
}

TEST(PerRankReports, SeenFindingsKeepTheLargestImpactPerKey) {
  RankedFindings ranked;
  ranked.compute = {finding("gemm-efficiency", "bf16", 10), finding("gemm-efficiency", "bf16", 12),
                    finding("norm-efficiency", "fwd", 1)};
  ranked.fusion = {finding("kernel-fusion", "chain", 3)};
  ranked.system = {finding("comm", "exposed", 9)};  // system items are not compared
  const SeenFindings seen = seen_findings(ranked);
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen.at({"gemm-efficiency", "bf16"}), 12);
  EXPECT_EQ(seen.at({"kernel-fusion", "chain"}), 3);
  EXPECT_FALSE(seen.count({"comm", "exposed"}));
}

// Three ranks: the GEMM card on all three (impact 9.5, 24.3 and 10), the norm card on one, the
// fusion card on two with one impact; a card none of the lists holds gets nothing.
TEST(PerRankReports, FocusCardsSayOnHowManyRanksTheyRecur) {
  const std::vector<SeenFindings> ranks = {
      {{{"gemm-efficiency", "bf16"}, 9.5}, {{"kernel-fusion", "chain"}, 2}},
      {{{"gemm-efficiency", "bf16"}, 24.3}, {{"norm-efficiency", "fwd"}, 1}},
      {{{"gemm-efficiency", "bf16"}, 10}, {{"kernel-fusion", "chain"}, 2}},
  };
  RankedFindings focus;
  focus.compute = {finding("gemm-efficiency", "bf16", 24.3), finding("norm-efficiency", "fwd", 1),
                   finding("sdpa-efficiency", "bwd", 1)};
  focus.fusion = {finding("kernel-fusion", "chain", 2)};
  add_seen_on_ranks(focus, ranks);
  EXPECT_EQ(focus.compute[0].insight,
            "Insight. Seen on 3 of 3 ranks (impact 9.50\u201324.30% of each rank's end-to-end "
            "time).");
  EXPECT_EQ(metric(focus.compute[0], "seen_on_ranks"), 3);
  EXPECT_EQ(metric(focus.compute[0], "ranks_compared"), 3);
  EXPECT_EQ(focus.compute[1].insight,
            "Insight. Seen on 1 of 3 ranks (impact 1.00% of each rank's end-to-end time).");
  EXPECT_EQ(focus.compute[2].insight, "Insight.");
  EXPECT_TRUE(focus.compute[2].metrics.empty());
  EXPECT_EQ(focus.fusion[0].insight,
            "Insight. Seen on 2 of 3 ranks (impact 2.00% of each rank's end-to-end time).");
}

TEST(PerRankReports, EachRankHasItsFolder) {
  EXPECT_EQ(rank_report_folder(3), "ranks/rank-00003");
  EXPECT_EQ(rank_report_folder(12345), "ranks/rank-12345");
}

}  // namespace
