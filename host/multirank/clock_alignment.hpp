// Per-node clock offsets from matched collectives (multi-rank.md §6). Ranks on one host share a
// clock; hosts differ by NTP/PTP error. Rendezvous collectives end at nearly the same true time
// on every member, so the end times of complete instances measure how far each node's clock
// runs ahead of the reference node (the node of the lowest rank).
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

namespace traceprism::multirank {

struct MemberTimes {
  std::int32_t rank = -1;
  std::int64_t start_ns = 0;  // written (uncorrected) times
  std::int64_t end_ns = 0;
};

// One complete rendezvous instance (every expected member present).
struct CompleteInstance {
  // Any hash of the instance's identity (e.g. fnv1a64 of partition text and key): instances
  // whose hash mod M = 0 give the δ samples, M chosen for ≤ max_samples_per_pair per node pair.
  std::uint64_t key_hash = 0;
  std::vector<MemberTimes> members;
};

struct ClockOptions {
  std::size_t max_samples_per_pair = 10'000;
  std::size_t min_samples = 10;              // step 4: fewer samples → not applied
  std::int64_t min_offset_ns = 20'000;       // step 4: |offset| must exceed this
  std::int64_t mad_factor = 3;               // ... and this × MAD
  std::int64_t large_offset_ns = 1'000'000;  // warn above
  std::int64_t bound_slack_ns = 5'000;       // a violation must exceed this
  double max_violation_share = 0.01;         // warn when more instances violate the bound
  double max_end_skew_share = 0.20;          // warn when more have end skew > start skew
  std::int64_t node_mapping_ns = 50'000;     // step 5: ranks of one node further apart
};

struct NodeClockOffset {
  std::int32_t node = -1;
  // The node the estimate was measured against: the reference node for a direct estimate, a
  // node already estimated when chained (§6 step 2); -1 for the reference node itself and for
  // nodes that share no instance with any estimated node.
  std::int32_t via_node = -1;
  bool reachable = false;      // the reference node, or estimated through via_node
  std::int64_t offset_ns = 0;  // clock ahead of the reference node (corrected = written − offset)
  std::int64_t mad_ns = 0;     // MAD of the δ samples against via_node
  std::size_t samples = 0;
  std::size_t shared_instances = 0;  // with via_node; the rendezvous bound uses all of them
  bool bound_consistent = true;      // the bound's lower end ≤ its upper end
  bool clamped = false;              // the median δ lay outside the bound
  bool applied = false;              // step 4's significance test passed

  std::int64_t applied_offset_ns() const { return applied ? offset_ns : 0; }
};

enum class ClockWarningKind : std::uint8_t {
  kLargeOffset = 0,  // |offset| > 1 ms
  kBoundViolations,  // after correction > 1% of instances end before their last start
  kEndSkew,          // after correction > 20% have end skew > start skew
  kNodeMapping,      // two ranks of one node end > 50 µs apart (step 5: "node mapping wrong?")
  kUnknownClock,     // a node shares no instance with the estimated nodes
};

struct ClockWarning {
  ClockWarningKind kind = ClockWarningKind::kLargeOffset;
  std::int32_t node = -1;  // -1 for warnings about all instances
  std::string detail;      // one sentence
};

struct ClockAlignment {
  std::int32_t reference_node = -1;
  std::vector<NodeClockOffset> nodes;  // every node of the rank map, ascending
  std::size_t checked_instances = 0;   // instances with two or more mapped members
  std::size_t bound_violations = 0;    // after correction, by more than bound_slack_ns
  std::size_t end_skew_exceeds_start_skew = 0;
  std::vector<ClockWarning> warnings;  // by (kind, node)
};

// §6 steps 1–5. Medians are int64: the mean of the two middle values rounded toward negative
// infinity for even counts (robust_stats.hpp). Members whose rank is not in `node_of_rank` are
// ignored. A node that shares no instance with the reference node is chained through the node
// sharing most instances with an already estimated node (ties: lower node numbers); its offset
// is that node's applied offset plus its own median δ against it.
ClockAlignment estimate_clock_offsets(std::span<const CompleteInstance> instances,
                                      const std::map<std::int32_t, std::int32_t>& node_of_rank,
                                      const ClockOptions& options = {});

// Per rank: its node's applied offset (MatchOptions::clock_offset_ns for the timeline tier).
std::map<std::int32_t, std::int64_t> rank_clock_offsets(
    const ClockAlignment& alignment, const std::map<std::int32_t, std::int32_t>& node_of_rank);

}  // namespace traceprism::multirank
