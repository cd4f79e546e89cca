#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <vector>

#include "model/collective_instance.hpp"
#include "multirank/collective_matching.hpp"
#include "multirank/rank_summary.hpp"

namespace traceprism::multirank {

// Why a rank arrives late (multi-rank.md §7.3): the part of its lateness against the
// median-arriving member that its own compute, its host (a late step start, GPU idle) or its
// other communication explains; kUnattributed when none reaches half.
enum class LatenessCause : std::uint8_t { kNone, kCompute, kHost, kCommunication, kUnattributed };
// For compute: its shared kernels run slower (clocks, thermals, hardware), or it runs more of
// them (imbalanced sharding, MoE, pipeline stage).
enum class ComputeHint : std::uint8_t { kNone, kSlowerGpu, kMoreWork };

const char* cause_name(LatenessCause cause);  // "compute", "host", ...
const char* hint_text(ComputeHint hint);      // "slower GPU (clocks, thermals, hardware)", ...

// One rank's trace as the cross-rank stages see it: its summary and the collective instances
// that matching indexed (the summary's COLL rows, in the order matching was given).
struct RankInput {
  std::int32_t rank = -1;
  const RankSummary* summary = nullptr;
  std::span<const model::CollectiveInstance> instances;
};

// x_r of §7.1: the part of an instance's duration with no computation kernel beside it, per
// mille (0 for an instance without duration).
std::int64_t exposure_permille(const model::CollectiveInstance& c);

// How far a rank's clock runs ahead by the estimated offsets (aligned time = written time − this);
// 0 for a rank without an offset.
std::int64_t clock_offset_of(const std::map<std::int32_t, std::int64_t>& offsets,
                             std::int32_t rank);

// The loaded ranks by number (the first RankInput of a number wins, as in matching): the
// instances the members of matched collectives name.
// A matched point-to-point transfer: the sending and the receiving member and their instances.
struct PeerTransfer {
  const MemberRef* send_ref;
  const MemberRef* recv_ref;
  const model::CollectiveInstance* send;
  const model::CollectiveInstance* recv;
};

class RankInstances {
 public:
  explicit RankInstances(std::span<const RankInput> ranks);
  // The instance `ref` names, or nullptr when its rank is not loaded or its index is out of range.
  const model::CollectiveInstance* instance(const MemberRef& ref) const;
  // The transfer a matched point-to-point pair stands for (its key rank is the sender); nullopt
  // for another kind, a pair without the sender, or a member that does not resolve.
  std::optional<PeerTransfer> transfer(const MatchedCollective& m) const;
  // Every member's instance in member order, or empty when one does not resolve.
  std::vector<const model::CollectiveInstance*> members(const MatchedCollective& m) const;
  std::vector<std::int32_t> numbers() const;  // the loaded ranks, ascending

 private:
  std::span<const RankInput> ranks_;
  std::map<std::int32_t, std::size_t> input_of_;
};

// §7.1 for one complete matched collective; times on the aligned clock.
struct InstanceFigures {
  std::size_t collective = 0;          // index into MatchResult::collectives
  std::int32_t last_rank = -1;         // latest start (ties: the lowest rank)
  std::int64_t arrival_skew_ns = 0;    // A = max s - min s
  std::int64_t margin_ns = 0;          // last minus second-last arrival
  std::int64_t late_median_ns = 0;     // max s - median s
  std::int64_t transfer_ns = 0;        // T = min duration
  std::int64_t exposure_permille = 0;  // x_c: median exposure of the members that were not last
  bool skewed = false;                 // A >= max(10 µs, 5% of T)
};

// The low bound of the time an instance's last arrival costs (§9.2's "low": the margin over the
// second-last arrival), never above the "mid" (lateness past the median): with two members the
// median is their midpoint, so the margin alone would exceed it.
inline std::int64_t low_late_arrival_ns(const InstanceFigures& f) {
  return f.margin_ns < f.late_median_ns ? f.margin_ns : f.late_median_ns;
}

// §7.3 for one rank, over the complete instances it joins.
struct RankFigures {
  std::int32_t rank = -1;
  std::size_t instances = 0;         // complete instances joined
  std::size_t skewed_instances = 0;  // of those, skewed
  std::size_t last_count = 0;        // skewed instances where it arrived last
  std::size_t first_count = 0;
  double last_share = 0;              // last_count / skewed_instances
  std::int64_t wait_ns = 0;           // Σ (max s - s_r)
  std::int64_t exposed_wait_ns = 0;   // Σ wait × own exposure
  std::int64_t mean_lateness_ns = 0;  // mean of s_r - median s
  std::int64_t mean_step_ns = 0;      // mean GPU span of its profiler steps; 0 without steps
  // Positive parts of the lateness against the median-arriving member, over its last arrivals.
  std::int64_t late_compute_ns = 0, late_host_ns = 0, late_comm_ns = 0, late_total_ns = 0;
  LatenessCause cause = LatenessCause::kNone;
  ComputeHint hint = ComputeHint::kNone;
};

// The `straggler` item of §9.2: the flagged ranks, their cause, and the late-arrival impact
// over the instances where one of them was last (int64 ns; low/mid/high = margin, lateness
// past the median, whole skew, each weighted by the instance's exposure).
struct Stragglers {
  std::vector<std::int32_t> ranks;
  LatenessCause cause = LatenessCause::kNone;
  ComputeHint hint = ComputeHint::kNone;
  std::int64_t impact_low_ns = 0, impact_mid_ns = 0, impact_high_ns = 0;
};

struct CrossRankOptions {
  std::map<std::int32_t, std::int64_t> clock_offset_ns;  // corrected = written - offset
  double max_required_last_share = 0.5;                  // % last >= min(this, 3 / n)
  std::int64_t min_lateness_ns = 50'000;                 // ℓ >= max(this, share of the mean step)
  double min_lateness_step_share = 0.005;
  double min_lateness_z = 3.5;  // for n >= 4
  std::int64_t lateness_z_floor_ns = 10'000;
};

struct CrossRankFigures {
  std::vector<InstanceFigures> instances;  // complete ones, in MatchResult order
  // Matched but missing an expected member whose trace was loaded (members whose file is
  // absent do not count: the figures are over the loaded ranks).
  std::size_t partial_instances = 0;
  std::vector<RankFigures> ranks;  // ascending rank
  std::optional<Stragglers> stragglers;
};

CrossRankFigures cross_rank_figures(std::span<const RankInput> ranks, const MatchResult& matches,
                                    const CrossRankOptions& options = {});

}  // namespace traceprism::multirank
