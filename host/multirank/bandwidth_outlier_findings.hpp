// The `bandwidth-outlier-group` cross-rank item (multi-rank.md §7.2, §7.5, §9.2): a process group
// whose collectives run far slower than the same collectives on its sibling groups (the other
// tensor-parallel pairs, the other data-parallel replicas). No peak is needed: the siblings are
// the yardstick, so a degraded link, NIC or switch port, or a group placed across nodes when its
// siblings are not, shows even where the platform file has no interconnect figures.
//
// One mechanism, one card (§9.2): stragglers whose lateness comes from communication and whose
// ranks all sit in the slow groups arrive late because of them; this card reports them, and the
// caller drops the separate `straggler` card (absorbs_straggler, drop_absorbed_straggler).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "findings/finding.hpp"
#include "multirank/collective_matching.hpp"
#include "multirank/cross_rank_figures.hpp"
#include "multirank/cross_rank_findings.hpp"

namespace traceprism::multirank {

// Thresholds of §9.2 (defaults are the spec's).
struct BandwidthOutlierOptions {
  std::size_t min_groups = 3;  // sibling groups that share a collective family, the outlier too
  double max_ratio = 0.7;      // outlier: median busbw < this × the siblings' median
  // Impact: the exposed time saved at the siblings' median bandwidth, scaled.
  double scale_low = 0.5, scale_mid = 0.75, scale_high = 1.0;
  std::size_t max_table_rows = 16;  // the card's group table
};

// The product of the outcome (AnalyzerOutcome::products, never rendered) that lists, one rank a
// row in its single column "rank", the straggler ranks (CrossRankFigures::stragglers) whose
// late arrivals a card of the outcome reports. Absent when it absorbed none.
inline constexpr const char* kAbsorbedStragglersProduct = "absorbed_stragglers";

// The `xrank-bandwidth-outlier-group` analyzer's outcome (§9.2 `bandwidth-outlier-group`).
//
// Groups: the complete instances of `figures` (CrossRankFigures::instances) by process group, a
// group being the identity of ProcessGroup (name, description, ranks text, size, rank start,
// stride: process_group_from of its lowest-rank member); instances without process-group
// metadata and point-to-point instances are left out. Its ranks: the expected members (§5.4),
// else the ranks its matched instances span.
// Siblings: groups with the same `Process Group Description` (unless empty or PyTorch's
// "undefined"), else groups without one; in both cases the same group size n. A family is
// (kind, dtype, S = collective_message_bytes); a group's busbw in a family is the median over
// its instances of S × f(n) / T (bus_bandwidth_factor; T = transfer_ns, the shortest member
// duration; GB/s). Within a family shared by at least `min_groups` sibling groups, a group is an
// outlier when its busbw < max_ratio × the median of its siblings' busbws (the other groups').
//
// Cards: slow groups that share a rank are one card (connected components), by mid impact
// descending. Title "Group <ranks> runs collectives at Q× its siblings' bandwidth": the ranks in
// the most slow groups of the card (all of its ranks for one group; "2, 3", "0-3, 8": runs of
// three or more as ranges), Q (2 decimals) of the slow (group, family) that saves the most time
// (ties: the lower Q). Impact (quantified, % of context.e2e_ns): Σ over the slow groups' instances
// of max(0, T − S·f / siblings' median busbw) × x_c (exposure_permille / 1000), × scale_low /
// scale_mid / scale_high. Severity critical ≥ 10, warning ≥ 2, else info (mid).
//
// Absorbed stragglers: when figures.stragglers has cause kCommunication and all its ranks are
// ranks of one card's slow groups, that card's insight reports them ("their late arrivals are
// this card's") and the outcome lists them in the kAbsorbedStragglersProduct product.
//
// Skipped, with the reason, below 50% rank coverage unless context.allow_partial.
findings::AnalyzerOutcome bandwidth_outlier_outcome(std::span<const RankInput> ranks,
                                                    const MatchResult& matches,
                                                    const CrossRankFigures& figures,
                                                    const CrossRankContext& context,
                                                    const BandwidthOutlierOptions& options = {});

// The straggler ranks a card of `bandwidth_outcome` reports (its kAbsorbedStragglersProduct),
// ascending; empty when none.
std::vector<std::int32_t> absorbed_straggler_ranks(
    const findings::AnalyzerOutcome& bandwidth_outcome);

// Whether `bandwidth_outcome` (of bandwidth_outlier_outcome) reports the stragglers `s` in one
// of its cards: it has a card, and it absorbed exactly s.ranks.
bool absorbs_straggler(const findings::AnalyzerOutcome& bandwidth_outcome, const Stragglers& s);

// One mechanism, one card: when `bandwidth_outcome` absorbs figures.stragglers, removes the
// `straggler` card from `straggler` (the outcome of straggler_outcome) and says in its summary
// where the ranks are reported; otherwise leaves it as it is. Returns whether it removed it.
// One mechanism, one card: with a slow group, ranks that use it arrive late at every collective
// that follows its transfers, so the waiting `arrival-jitter` would report is that group's.
// Removes the `arrival-jitter` card from `jitter` when `bandwidth_outcome` has a card (a slow
// group and independent jitter in one job then show as the group's card alone: a known
// limit, docs/analyzers/xrank/bandwidth-outlier-group.md). Returns whether it removed it.
bool drop_jitter_of_slow_groups(findings::AnalyzerOutcome& jitter,
                                const findings::AnalyzerOutcome& bandwidth_outcome);

bool drop_absorbed_straggler(findings::AnalyzerOutcome& straggler,
                             const findings::AnalyzerOutcome& bandwidth_outcome,
                             const CrossRankFigures& figures);

}  // namespace traceprism::multirank
