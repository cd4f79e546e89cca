// Expected members of a process group (multi-rank.md §5.4): which global ranks must take part in
// each of its collectives, so an instance can be called complete.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "model/collective_instance.hpp"

namespace traceprism::multirank {

// How the member list was known, best first (§5.4's precedence).
enum class MembershipSource : std::uint8_t {
  kUnknown = 0,     // nothing usable: malformed or absent text, no start/stride, no config
  kRankList,        // `Process Group Ranks`, complete
  kStartStride,     // `Global rank start` + i × `Global rank stride`, i < `Group size`
  kPgConfig,        // distributedInfo.pg_config ranks of the group's name
  kTruncatedRanks,  // a truncated rank list whose visible ranks, last rank and group size form
                    // one arithmetic progression (our addition: kernels carry no start/stride)
  kLoadedRanks,     // timeline tier: every loaded rank
};

const char* membership_source_name(MembershipSource source);  // "rank_list", "start_stride", ...

// The profiler's `Process Group Ranks` text. Lists longer than 30 print the first 29 ranks,
// "...", then the last rank ("[0, 1, ..., 28, ..., 127]"); older profilers print the first 30
// and "..." ("[0, ..., 29, ...]"). Outer quotes and spaces are tolerated.
struct RankList {
  std::vector<std::int32_t> ranks;   // the visible ranks, in written order
  bool truncated = false;            // a "..." stood in for some ranks
  bool ends_with_last_rank = false;  // truncated, and the final entry is the group's last rank
};

// nullopt when the text is not a bracketed list of non-negative int32 ranks and "..." entries,
// or names a rank twice. "[]" parses to an empty list.
std::optional<RankList> parse_rank_list(std::string_view text);

struct GroupMembership {
  std::vector<std::int32_t> members;  // ascending, unique; empty when kUnknown
  MembershipSource source = MembershipSource::kUnknown;
  bool rank_list_truncated = false;  // the rank text was truncated (whatever source won)
};

// Groups larger than this are treated as malformed metadata rather than allocated.
inline constexpr std::int64_t kMaxGroupSize = 1 << 22;

// Expected members of the group `sample` belongs to, from its metadata (pg_ranks, global rank
// start/stride, group size). `pg_config_ranks`: the distributedInfo.pg_config ranks of the
// group's name, empty when the config lacks it. `loaded_ranks`: pass the loaded ranks only for
// the timeline tier (§5.4's last resort), else empty. Never throws; malformed text falls through
// to the next source.
GroupMembership expected_members(const model::CollectiveInstance& sample,
                                 std::span<const std::int32_t> pg_config_ranks,
                                 std::span<const std::int32_t> loaded_ranks);

}  // namespace traceprism::multirank
