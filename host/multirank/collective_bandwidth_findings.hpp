// The `collective-bandwidth` cross-rank item (multi-rank.md §7.2, §7.5, §8, §9.2): a family of
// large collectives whose bus bandwidth stays far below what the link between its ranks allows.
// The peak comes from the platform file's `interconnect` (docs/platforms.md): the scale-up link
// (NVLink, Infinity Fabric) inside a node, PCIe where the GPU has none, and for a group spread
// over nodes the lesser of that and the NIC bandwidth times the group's members per node.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>

#include "findings/finding.hpp"
#include "multirank/collective_matching.hpp"
#include "multirank/cross_rank_figures.hpp"
#include "multirank/cross_rank_findings.hpp"
#include "platform/platform_file.hpp"

namespace traceprism::multirank {

// Thresholds of §9.2 (defaults are the spec's).
struct CollectiveBandwidthOptions {
  std::int64_t min_message_bytes = std::int64_t{32} << 20;  // S ≥ 32 MiB: the bandwidth regime
  double max_efficiency = 0.40;                             // fires below this median busbw / peak
  double min_exposed_percent = 1.0;  // Σ T × x_c ≥ this % of the focus rank's E2E
  // Impact targets: the exposed time saved were the family to reach these shares of the peak.
  double target_low = 0.60, target_mid = 0.70, target_high = 0.80;
  std::size_t max_table_rows = 8;  // the card's family table
};

// The modelled peak bus bandwidth of a group (§8, ring bound), GB/s per GPU and direction, and
// the link it comes from ("NVLink 4", "PCIe Gen5", "NIC 50 GB/s × 4").
struct ModelledPeak {
  double gbps = 0;
  std::string link;
};

// Inside one node (`inter_node` false): the scale-up link's rate; PCIe when the GPU has no
// scale-up link or the group has more members than the scale-up domain (`domain_gpus`); unknown
// when that rate is not in the file (MI250X's per-GCD Infinity Fabric, B200's PCIe). Over several
// nodes: min(the in-node peak for m members, NIC × m), m = the group's members per node (the
// fewest on any of its nodes), one NIC per GPU assumed; just the NIC × 1 when m is 1; unknown
// without `nic_gbps`.
std::optional<ModelledPeak> modelled_peak(const platform::Interconnect& interconnect,
                                          bool inter_node, std::int64_t members_per_node,
                                          std::optional<double> nic_gbps);

// The `xrank-collective-bandwidth` analyzer's outcome (§9.2 `collective-bandwidth`). Families
// (§7.5) gather the complete instances of CrossRankFigures by process group (description, else
// name), group size n, kind, dtype, S (collective_message_bytes), span (intra-node when every
// member sits on one node of `node_of_rank`) and members per node; an instance's fields are its
// lowest-rank member's. Per instance, busbw = S × f(n) / T (bus_bandwidth_factor, T = the
// shortest member duration) and efficiency = busbw / the modelled peak. One System card per
// family with S ≥ 32 MiB, a median efficiency below 40% and Σ T × x_c ≥ 1% of context.e2e_ns;
// impact low/mid/high = Σ max(0, T − S·f/(η·peak)) × x_c for η = 60/70/80%, as % of
// context.e2e_ns; cards by mid impact, descending. Families with in-network reduction (an NVLS
// or COLLNET member, busbw may exceed the link) and families whose peak is unknown (inter-node
// without `nic_gbps`, a member without a node, a rate the platform file lacks) never fire.
// Skipped, with the reason, without `interconnect` and, as every cross-rank item, below 50% rank
// coverage unless context.allow_partial.
findings::AnalyzerOutcome collective_bandwidth_outcome(
    std::span<const RankInput> ranks, const MatchResult& matches, const CrossRankFigures& figures,
    const std::map<std::int32_t, std::int32_t>& node_of_rank,
    const std::optional<platform::Interconnect>& interconnect, std::optional<double> nic_gbps,
    const CrossRankContext& context, const CollectiveBandwidthOptions& options = {});

}  // namespace traceprism::multirank
