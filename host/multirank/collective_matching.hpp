// Cross-rank matching of collective instances (multi-rank.md §5.2, §5.3, §7.4): which instance
// on each rank is the same collective. Pure: per-rank instance lists in, index clusters out. The
// result depends only on the ranks' contents, never on their input order, hash-map order or
// thread count.
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/collective_instance.hpp"

namespace traceprism::multirank {

// One loaded rank: its global rank number and its instances (any order).
struct RankCollectives {
  std::int32_t rank = -1;
  std::span<const model::CollectiveInstance> instances;
};

struct MatchOptions {
  // T of §5.3: the largest end-time difference of a timeline pair. Clamped to [0, 10^12] ns.
  std::int64_t tolerance_ns = 1'000'000;
  std::uint32_t partition_count = 1;  // 0 reads as 1
  // Per rank: how far its clock runs ahead (corrected = written − offset; §6). Used by the
  // timeline tier only; ranks not listed have 0.
  std::map<std::int32_t, std::int64_t> clock_offset_ns;
  // Timeline pairs considered per reference instance, nearest end times first: bounds the work
  // when many same-kind collectives end within T of each other. 0 = no limit.
  std::size_t max_candidates_per_instance = 64;
  // §5.2 order: match seq/ordinal first (false here: timeline partitions and drifted ordinal
  // partitions stay unmatched), estimate clock offsets from them (§6), then match again with
  // the offsets and true here.
  bool align_timeline = true;
};

enum class PartitionKind : std::uint8_t {
  kSeq = 0,
  kOrdinal = 1,
  kTimeline = 2,
  kPointToPoint = 3
};

// §5.2's partition key. Fields a kind does not use stay -1 (pg_name empty for kTimeline).
struct PartitionKey {
  std::string pg_name;
  PartitionKind kind = PartitionKind::kTimeline;
  std::int64_t seq_block = -1;  // kSeq: Seq div 1024
  std::int32_t step = -1;       // kOrdinal, kTimeline, kPointToPoint
  std::int32_t channel = -1;    // kTimeline
  std::int32_t peer_low = -1;   // kPointToPoint: the lower global rank of the pair
  std::int32_t peer_high = -1;

  // The text hashed for the partition number: '|'-joined, numbers in decimal, the pg name last
  // so a '|' inside it cannot make two keys collide:
  //   seq|<Seq div 1024>|<pg>   ordinal|<step>|<pg>   timeline|<step>|<channel>
  //   p2p|<step>|<low rank>|<high rank>|<pg>
  std::string canonical_text() const;

  friend auto operator<=>(const PartitionKey&, const PartitionKey&) = default;
};

// FNV-1a 64-bit (offset basis 14695981039346656037, prime 1099511628211).
std::uint64_t fnv1a64(std::string_view text);

// FNV-1a-64 of the key's canonical text mod the partition count (0 reads as 1).
std::uint32_t partition_of(const PartitionKey& key, std::uint32_t partition_count);

// One instance: a rank and the position in that rank's instance list.
struct MemberRef {
  std::int32_t rank = -1;
  std::uint32_t index = 0;
  friend auto operator<=>(const MemberRef&, const MemberRef&) = default;
};

// One collective seen on two or more ranks.
struct MatchedCollective {
  model::MatchTier tier = model::MatchTier::kTimeline;
  PartitionKey partition_key;
  std::uint32_t partition = 0;
  // seq: Seq; ordinal: k (0-based, per (pg, step) by launch time); timeline: the reference
  // instance's position in the reference rank's partition sequence (by end time);
  // point-to-point: k of the k-th send from key_rank to its peer.
  std::int64_t key = -1;
  std::int32_t key_rank = -1;  // timeline: the reference rank; point-to-point: the sender
  bool mismatch = false;       // seq tier: members disagree (reported in MatchResult::mismatches)
  std::vector<MemberRef> members;  // ascending rank, one per rank
};

// Per process group. pg_name "" gathers instances without a `Process Group Name`.
struct GroupMatchSummary {
  std::string pg_name;
  model::MatchTier tier = model::MatchTier::kTimeline;
  std::size_t instances = 0;            // on all ranks
  std::size_t matched_instances = 0;    // members of a MatchedCollective
  std::size_t unmatched_instances = 0;  // instances - matched_instances
  std::size_t collectives = 0;          // MatchedCollectives of this group
  std::size_t timeline_fallbacks = 0;   // ordinal partitions that were aligned by time instead
  std::size_t p2p_without_peer = 0;     // send/recv without a usable peer rank: counted only
};

// Seq-tier members that disagree (§5.2: kept, and warned about), or a Seq seen twice on a rank.
struct MismatchWarning {
  PartitionKey partition_key;
  std::int64_t key = -1;
  std::string detail;  // one sentence naming the field and the ranks
};

struct MatchResult {
  std::vector<MatchedCollective> collectives;    // by (partition_key, key, key_rank)
  std::vector<GroupMatchSummary> groups;         // by pg name
  std::vector<MismatchWarning> mismatches;       // by (partition_key, key, detail)
  std::vector<PartitionKey> timeline_fallbacks;  // ordinal partitions that drifted, ascending
  std::vector<MemberRef> unmatched;              // ascending
};

// §5.2 tiers per process group (seq when every instance on every rank has a pg name and Seq,
// ordinal when it has a pg name, else timeline), §5.3 alignment for the timeline tier and for
// drifted ordinal partitions, §7.4 FIFO pairing of sends and recvs. Ranks are identified by
// their number; a rank number given twice keeps only its first entry.
MatchResult match_collectives(std::span<const RankCollectives> ranks,
                              const MatchOptions& options = {});

// May two instances be one collective? Kinds equal; group sizes, and for symmetric kinds dtype,
// element counts and byte counts, equal where both ranks know them (§5.2 validation).
bool signatures_agree(const model::CollectiveInstance& a, const model::CollectiveInstance& b);

// §5.3's order-preserving alignment of one rank's sequence to the reference rank's (both in
// end-time order). A pair is allowed when signatures_agree and |(end_r − offset_r) −
// (end_o − offset_o)| ≤ tolerance; it costs that difference, an unpaired instance costs the
// tolerance; the cheapest alignment wins (ties: the one with more pairs, then the one found
// first). At most max_candidates_per_instance partners (nearest first, 0 = all) are considered
// per reference instance. Returns (reference position, other position) pairs, both ascending.
std::vector<std::pair<std::size_t, std::size_t>> align_to_reference(
    std::span<const model::CollectiveInstance* const> reference, std::int64_t reference_offset_ns,
    std::span<const model::CollectiveInstance* const> other, std::int64_t other_offset_ns,
    std::int64_t tolerance_ns, std::size_t max_candidates_per_instance = 64);

}  // namespace traceprism::multirank
