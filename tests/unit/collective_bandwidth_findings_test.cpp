// The `collective-bandwidth` cross-rank item (multi-rank.md §8, §9.2) on hand-made jobs: every
// expected number below is worked out by hand from the instances' sizes and times (the comments
// show the arithmetic). The chain is the real one: match_collectives, cross_rank_figures, then
// the analyzer.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "multirank/collective_bandwidth_findings.hpp"
#include "multirank/collective_matching.hpp"
#include "multirank/cross_rank_figures.hpp"

namespace traceprism::multirank {
namespace {

using model::CollectiveDtype;
using model::CollectiveInstance;
using model::CollectiveKind;

constexpr std::int64_t kMs = 1'000'000;
constexpr std::int64_t kMiB = 1 << 20;

// H100-SXM's interconnect as platforms/h100_sxm.json gives it.
platform::Interconnect h100_sxm() {
  platform::Interconnect ic;
  ic.scale_up = platform::ScaleUpLink{"NVLink 4", 450.0, 8};
  ic.pcie = platform::PcieLink{5, 63.0};
  return ic;
}

// An 8-rank all-reduce job: `steps` BFloat16 all-reduces of `bytes` in group "0"
// (description "default_pg", all 8 ranks), one per step 10 ms apart. Every rank starts together
// and runs for `duration_ns`, half of it exposed (no computation kernel running), so T =
// duration and x_c = 500‰.
struct Job {
  std::vector<RankSummary> summaries;
  std::vector<std::vector<CollectiveInstance>> instances;
  std::vector<RankInput> inputs;
  MatchResult matches;
  CrossRankFigures figures;
  CrossRankContext context;
  std::map<std::int32_t, std::int32_t> nodes;

  Job(std::int64_t bytes, std::int64_t duration_ns, int ranks = 8, int steps = 3,
      int ranks_per_node = 8) {
    summaries.resize(static_cast<std::size_t>(ranks));
    instances.resize(static_cast<std::size_t>(ranks));
    std::string list;
    for (int r = 0; r < ranks; ++r) list += (r ? ", " : "[") + std::to_string(r);
    list += "]";
    for (int r = 0; r < ranks; ++r) {
      for (int k = 0; k < steps; ++k) {
        CollectiveInstance c;
        c.kind = CollectiveKind::kAllReduce;
        c.dtype = CollectiveDtype::kBFloat16;
        c.pg_name = "0";
        c.pg_description = "default_pg";
        c.pg_ranks = list;
        c.group_size = ranks;
        c.seq = k + 1;
        c.in_nelems = c.out_nelems = bytes / 2;
        c.start_ns = k * 10 * kMs;
        c.duration_ns = duration_ns;
        c.exposed_ns = duration_ns / 2;
        instances[static_cast<std::size_t>(r)].push_back(c);
      }
      nodes[r] = r / ranks_per_node;
    }
    context.e2e_ns = 20 * kMs;
    context.loaded_ranks = static_cast<std::size_t>(ranks);
    context.world_size = ranks;
  }

  Job& analyze() {
    std::vector<RankCollectives> for_matching;
    for (std::size_t r = 0; r < instances.size(); ++r) {
      inputs.push_back({static_cast<std::int32_t>(r), &summaries[r], instances[r]});
      for_matching.push_back({static_cast<std::int32_t>(r), instances[r]});
    }
    matches = match_collectives(for_matching);
    figures = cross_rank_figures(inputs, matches);
    return *this;
  }

  findings::AnalyzerOutcome outcome(std::optional<platform::Interconnect> ic = h100_sxm(),
                                    std::optional<double> nic = std::nullopt) const {
    return collective_bandwidth_outcome(inputs, matches, figures, nodes, ic, nic, context);
  }
};

// 64 MiB = 67 108 864 B; f(8) = 2 × 7 / 8 = 1.75, so S·f = 117 440 512 B.
constexpr std::int64_t kSixtyFourMiB = 64 * kMiB;
constexpr double kBytesTimesFactor = 117'440'512.0;

// 20% of 450 GB/s is 90 GB/s: T = 117 440 512 / 90 ≈ 1 304 894 ns; take T = 1 305 000 ns.
//   busbw = 117 440 512 / 1 305 000 = 89.99273 GB/s → efficiency 19.9984% → "20%"
//   Σ T × x_c = 3 × 1 305 000 × 0.5 = 1 957 500 ns = 9.7875% of 20 ms (≥ 1%)
//   η = 60%: ideal = 117 440 512 / 270 = 434 964.86 ns; saved = 3 × (1 305 000 − 434 964.86)
//            × 0.5 = 1 305 052.71 ns = 6.52526% of 20 ms
//   η = 70%: ideal = 117 440 512 / 315 = 372 827.02 ns; saved = 1 398 259.47 ns = 6.99130%
//   η = 80%: ideal = 117 440 512 / 360 = 326 223.64 ns; saved = 1 468 164.53 ns = 7.34082%
constexpr std::int64_t kSlowT = 1'305'000;

double saved_percent(double target, double peak, std::int64_t t, int count = 3) {
  const double ideal = kBytesTimesFactor / (target * peak);
  return 100.0 * count * (static_cast<double>(t) - ideal) * 0.5 / (20.0 * kMs);
}

TEST(CollectiveBandwidth, AnIntraNodeAllReduceAtTwentyPercentGetsACard) {
  Job job(kSixtyFourMiB, kSlowT);
  job.analyze();
  ASSERT_EQ(job.figures.instances.size(), 3u);
  const findings::AnalyzerOutcome out = job.outcome();
  EXPECT_EQ(out.name, "xrank-collective-bandwidth");
  EXPECT_EQ(out.plugin, "host");
  EXPECT_EQ(out.status, findings::AnalyzerStatus::kOk);
  ASSERT_EQ(out.findings.size(), 1u);
  const findings::Finding& f = out.findings[0];
  EXPECT_EQ(f.analyzer, "xrank-collective-bandwidth");
  EXPECT_EQ(f.key, "collective-bandwidth");
  EXPECT_EQ(f.category, "multi_rank");
  EXPECT_EQ(f.tier, findings::Tier::kSystem);
  EXPECT_EQ(f.impact_kind, findings::ImpactKind::kQuantified);
  EXPECT_EQ(f.title, "All-reduce on default_pg (intra-node) reaches 20% of 450 GB/s");
  EXPECT_NEAR(f.impact_low, 6.525263556, 1e-6);
  EXPECT_NEAR(f.impact_mid, 6.991297333, 1e-6);
  EXPECT_NEAR(f.impact_high, 7.340822667, 1e-6);
  EXPECT_NEAR(f.impact_low, saved_percent(0.6, 450, kSlowT), 1e-9);
  EXPECT_NEAR(f.impact_mid, saved_percent(0.7, 450, kSlowT), 1e-9);
  EXPECT_NEAR(f.impact_high, saved_percent(0.8, 450, kSlowT), 1e-9);
  EXPECT_DOUBLE_EQ(f.share_percent, f.impact_mid);
  EXPECT_EQ(f.severity, findings::Severity::kWarning);  // mid ≥ 2, < 10
  std::map<std::string, double> metrics(f.metrics.begin(), f.metrics.end());
  EXPECT_NEAR(metrics.at("efficiency_percent"), 100.0 * kBytesTimesFactor / 1'305'000 / 450, 1e-9);
  EXPECT_NEAR(metrics.at("busbw_gbps"), 89.99272950, 1e-6);
  EXPECT_EQ(metrics.at("peak_gbps"), 450);
  EXPECT_EQ(metrics.at("message_bytes"), 67'108'864);
  EXPECT_NEAR(metrics.at("exposed_transfer_percent"), 9.7875, 1e-9);
  EXPECT_NE(f.insight.find("3 allreduce collectives of 64 MiB (BFloat16) over 8 ranks"),
            std::string::npos)
      << f.insight;
  EXPECT_NE(f.insight.find("that NVLink 4 allows"), std::string::npos) << f.insight;
  EXPECT_NE(f.action.find("NCCL/RCCL algorithm"), std::string::npos);
  EXPECT_NE(f.action.find("bucket"), std::string::npos);
  ASSERT_EQ(f.tables.size(), 1u);
  ASSERT_EQ(f.tables[0].rows.size(), 1u);
  EXPECT_EQ(f.tables[0].rows[0],
            (std::vector<std::string>{"default_pg", "intra-node", "allreduce", "BFloat16", "64",
                                      "8", "3", "1305.0", "90.0", "450", "20.0%", "1.958"}));
}

TEST(CollectiveBandwidth, SeventyPercentOfThePeakIsNoFinding) {
  // 70% of 450 = 315 GB/s: T = 117 440 512 / 315 = 372 827 ns → efficiency 70.00%.
  Job job(kSixtyFourMiB, 372'827);
  job.analyze();
  const findings::AnalyzerOutcome out = job.outcome();
  EXPECT_EQ(out.status, findings::AnalyzerStatus::kOk);
  EXPECT_TRUE(out.findings.empty());
  EXPECT_EQ(out.summary, "no large collective family below 40% of the link peak");
}

TEST(CollectiveBandwidth, SmallMessagesAreNoFinding) {
  // 16 MiB at the same 20% of the peak (T scaled by 1/4): below the 32 MiB regime.
  Job job(16 * kMiB, kSlowT / 4);
  job.analyze();
  EXPECT_TRUE(job.outcome().findings.empty());
}

TEST(CollectiveBandwidth, HiddenTransfersAreNoFinding) {
  // Fully overlapped with computation: x_c = 0, Σ T × x_c = 0 < 1% of E2E.
  Job job(kSixtyFourMiB, kSlowT);
  for (auto& rank : job.instances)
    for (CollectiveInstance& c : rank) c.exposed_ns = 0;
  job.analyze();
  EXPECT_TRUE(job.outcome().findings.empty());
}

TEST(CollectiveBandwidth, InterNodeWithoutANicFigureIsNotJudged) {
  // Two nodes of 4: inter-node, so the peak needs the NIC; none given.
  Job job(kSixtyFourMiB, kSlowT, 8, 3, 4);
  job.analyze();
  const findings::AnalyzerOutcome out = job.outcome();
  EXPECT_EQ(out.status, findings::AnalyzerStatus::kOk);
  EXPECT_TRUE(out.findings.empty());
  EXPECT_EQ(out.summary,
            "no large collective family below 40% of the link peak; 1 inter-node family not "
            "judged (NIC bandwidth unknown)");
}

TEST(CollectiveBandwidth, InterNodeWithANicIsBoundByNicTimesMembersPerNode) {
  // NIC 25 GB/s × 4 per node = 100 GB/s < 450: peak 100. 20% of it is 20 GB/s:
  // T = 117 440 512 / 20 = 5 872 025.6 → 5 872 026 ns, efficiency 19.99999864%.
  const std::int64_t t = 5'872'026;
  Job job(kSixtyFourMiB, t, 8, 3, 4);
  job.analyze();
  const findings::AnalyzerOutcome out = job.outcome(h100_sxm(), 25.0);
  ASSERT_EQ(out.findings.size(), 1u);
  const findings::Finding& f = out.findings[0];
  EXPECT_EQ(f.title, "All-reduce on default_pg (inter-node) reaches 20% of 100 GB/s");
  EXPECT_NEAR(f.impact_low, saved_percent(0.6, 100, t), 1e-9);
  EXPECT_NEAR(f.impact_mid, saved_percent(0.7, 100, t), 1e-9);
  EXPECT_NEAR(f.impact_high, saved_percent(0.8, 100, t), 1e-9);
  EXPECT_EQ(f.severity, findings::Severity::kCritical);  // mid = 31.46% of E2E
  EXPECT_EQ(f.tables[0].rows[0][1], "inter-node (4 per node)");
  EXPECT_NE(f.insight.find("that NIC 25 GB/s × 4 allows"), std::string::npos) << f.insight;
}

TEST(CollectiveBandwidth, InNetworkReductionIsNeverFlagged) {
  Job job(kSixtyFourMiB, kSlowT);
  job.instances[3][1].nvls = true;  // one NVLS member of one instance marks the family
  job.analyze();
  EXPECT_TRUE(job.outcome().findings.empty());
}

TEST(CollectiveBandwidth, WithoutInterconnectPeaksItIsSkipped) {
  Job job(kSixtyFourMiB, kSlowT);
  job.analyze();
  const findings::AnalyzerOutcome out = job.outcome(std::nullopt);
  EXPECT_EQ(out.status, findings::AnalyzerStatus::kSkipped);
  EXPECT_EQ(out.error,
            "the platform file has no interconnect peaks; collective bandwidth is judged against "
            "them (docs/platforms.md, `interconnect`).");
  EXPECT_TRUE(out.findings.empty());
}

TEST(CollectiveBandwidth, BelowHalfTheRanksItIsSkipped) {
  Job job(kSixtyFourMiB, kSlowT);
  job.analyze();
  job.context.world_size = 32;
  const findings::AnalyzerOutcome out = job.outcome();
  EXPECT_EQ(out.status, findings::AnalyzerStatus::kSkipped);
  EXPECT_TRUE(out.findings.empty());
}

TEST(CollectiveBandwidth, WithoutScaleUpTheGroupIsJudgedAgainstPcie) {
  // L40S: no scale-up link, PCIe Gen4 31.5 GB/s. T = 1 305 000 ns gives 89.99 GB/s, 286% of
  // 31.5: no card. At T = 18 642 938 ns, busbw = 6.29947 GB/s = 19.998% of 31.5.
  platform::Interconnect l40s;
  l40s.pcie = platform::PcieLink{4, 31.5};
  Job fast(kSixtyFourMiB, kSlowT);
  fast.analyze();
  EXPECT_TRUE(fast.outcome(l40s).findings.empty());
  Job slow(kSixtyFourMiB, 18'642'938);
  slow.context.e2e_ns = 200 * kMs;
  slow.analyze();
  const findings::AnalyzerOutcome out = slow.outcome(l40s);
  ASSERT_EQ(out.findings.size(), 1u);
  EXPECT_EQ(out.findings[0].title,
            "All-reduce on default_pg (intra-node) reaches 20% of 31.5 GB/s");
  EXPECT_NE(out.findings[0].insight.find("that PCIe Gen4 allows"), std::string::npos);
}

TEST(ModelledPeak, FollowsTheSpecsRules) {
  const platform::Interconnect h100 = h100_sxm();
  // Intra-node: the scale-up link, PCIe past the domain.
  EXPECT_EQ(modelled_peak(h100, false, 8, std::nullopt)->gbps, 450);
  EXPECT_EQ(modelled_peak(h100, false, 8, std::nullopt)->link, "NVLink 4");
  EXPECT_EQ(modelled_peak(h100, false, 16, std::nullopt)->gbps, 63);
  EXPECT_EQ(modelled_peak(h100, false, 16, std::nullopt)->link, "PCIe Gen5");
  // H100 PCIe: NVLink bridge pairs, so groups over 2 run over PCIe.
  platform::Interconnect pcie_card;
  pcie_card.scale_up = platform::ScaleUpLink{"NVLink 4 bridge", 300.0, 2};
  pcie_card.pcie = platform::PcieLink{5, 63.0};
  EXPECT_EQ(modelled_peak(pcie_card, false, 2, std::nullopt)->gbps, 300);
  EXPECT_EQ(modelled_peak(pcie_card, false, 4, std::nullopt)->gbps, 63);
  // Inter-node: min(scale-up, NIC × m); the NIC alone for one member per node; unknown NIC.
  EXPECT_EQ(modelled_peak(h100, true, 8, 50.0)->gbps, 400);
  EXPECT_EQ(modelled_peak(h100, true, 8, 50.0)->link, "NIC 50 GB/s × 8");
  EXPECT_EQ(modelled_peak(h100, true, 8, 100.0)->gbps, 450);
  EXPECT_EQ(modelled_peak(h100, true, 1, 50.0)->gbps, 50);
  EXPECT_FALSE(modelled_peak(h100, true, 8, std::nullopt).has_value());
  // A scale-up link of unknown rate (MI250X per GCD): unknown, not PCIe.
  platform::Interconnect mi250x;
  mi250x.scale_up = platform::ScaleUpLink{"Infinity Fabric", std::nullopt, std::nullopt};
  mi250x.pcie = platform::PcieLink{4, 31.5};
  EXPECT_FALSE(modelled_peak(mi250x, false, 8, std::nullopt).has_value());
  EXPECT_FALSE(modelled_peak(mi250x, true, 4, 50.0).has_value());
  EXPECT_EQ(modelled_peak(mi250x, true, 1, 50.0)->gbps, 50);
  // B200 without PCIe: a group past the domain is unknown.
  platform::Interconnect b200;
  b200.scale_up = platform::ScaleUpLink{"NVLink 5", 900.0, 8};
  EXPECT_EQ(modelled_peak(b200, false, 8, std::nullopt)->gbps, 900);
  EXPECT_FALSE(modelled_peak(b200, false, 16, std::nullopt).has_value());
  EXPECT_FALSE(modelled_peak(h100, false, 0, std::nullopt).has_value());
}

}  // namespace
}  // namespace traceprism::multirank
