#include "multirank/group_membership.hpp"

#include <algorithm>
#include <charconv>
#include <limits>

namespace traceprism::multirank {

namespace {

constexpr std::int64_t kMaxRank = std::numeric_limits<std::int32_t>::max();

std::string_view trim(std::string_view text) {
  const auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return text;
}

bool is_ellipsis(std::string_view token) {
  return token == "..." || token == "\xE2\x80\xA6";  // also the single-character "…"
}

std::optional<std::int32_t> parse_rank(std::string_view token) {
  std::int64_t value = -1;
  const char* end = token.data() + token.size();
  const auto [stop, error] = std::from_chars(token.data(), end, value);
  if (error != std::errc() || stop != end || value < 0 || value > kMaxRank) return std::nullopt;
  return static_cast<std::int32_t>(value);
}

// The list between the brackets, or nullopt when the text is not bracketed.
std::optional<std::string_view> bracket_body(std::string_view text) {
  text = trim(text);
  if (text.size() >= 2 && text.front() == '"' && text.back() == '"')
    text = trim(text.substr(1, text.size() - 2));
  if (text.size() < 2 || text.front() != '[' || text.back() != ']') return std::nullopt;
  return trim(text.substr(1, text.size() - 2));
}

bool has_duplicates(std::vector<std::int32_t> ranks) {
  std::sort(ranks.begin(), ranks.end());
  return std::adjacent_find(ranks.begin(), ranks.end()) != ranks.end();
}

std::vector<std::int32_t> sorted_unique(std::span<const std::int32_t> ranks) {
  std::vector<std::int32_t> out(ranks.begin(), ranks.end());
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// start + i × stride for i < size, or empty when the numbers are absent or out of range.
std::vector<std::int32_t> progression(std::int64_t start, std::int64_t stride, std::int64_t size) {
  if (start < 0 || stride < 1 || size < 1 || size > kMaxGroupSize) return {};
  if (start > kMaxRank || (size - 1) > (kMaxRank - start) / stride) return {};
  std::vector<std::int32_t> out;
  out.reserve(static_cast<std::size_t>(size));
  for (std::int64_t i = 0; i < size; ++i)
    out.push_back(static_cast<std::int32_t>(start + i * stride));
  return out;
}

// A truncated list "[r0, r1, ..., r28, ..., last]" pins the whole group when the visible ranks
// step evenly and the last rank is where that step lands after `size` − 1 steps.
std::vector<std::int32_t> progression_from_truncated(const RankList& list, std::int64_t size) {
  if (!list.truncated || !list.ends_with_last_rank || list.ranks.size() < 3) return {};
  const std::size_t visible = list.ranks.size() - 1;  // the final entry is the last rank
  const std::int64_t start = list.ranks[0];
  const std::int64_t stride = std::int64_t{list.ranks[1]} - start;
  for (std::size_t i = 1; i < visible; ++i)
    if (std::int64_t{list.ranks[i]} - list.ranks[i - 1] != stride) return {};
  if (static_cast<std::int64_t>(visible) >= size) return {};
  std::vector<std::int32_t> out = progression(start, stride, size);
  if (out.empty() || out.back() != list.ranks.back()) return {};
  return out;
}

}  // namespace

const char* membership_source_name(MembershipSource source) {
  switch (source) {
    case MembershipSource::kRankList:
      return "rank_list";
    case MembershipSource::kStartStride:
      return "start_stride";
    case MembershipSource::kPgConfig:
      return "pg_config";
    case MembershipSource::kTruncatedRanks:
      return "truncated_rank_list";
    case MembershipSource::kLoadedRanks:
      return "loaded_ranks";
    case MembershipSource::kUnknown:
      break;
  }
  return "unknown";
}

std::optional<RankList> parse_rank_list(std::string_view text) {
  const std::optional<std::string_view> body = bracket_body(text);
  if (!body) return std::nullopt;
  RankList list;
  if (body->empty()) return list;
  bool last_was_rank = false;
  std::string_view rest = *body;
  while (true) {
    const std::size_t comma = rest.find(',');
    const std::string_view token = trim(rest.substr(0, comma));
    if (is_ellipsis(token)) {
      list.truncated = true;
      last_was_rank = false;
    } else if (const std::optional<std::int32_t> rank = parse_rank(token)) {
      list.ranks.push_back(*rank);
      last_was_rank = true;
    } else {
      return std::nullopt;
    }
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  if (has_duplicates(list.ranks)) return std::nullopt;
  list.ends_with_last_rank = list.truncated && last_was_rank;
  return list;
}

GroupMembership expected_members(const model::CollectiveInstance& sample,
                                 std::span<const std::int32_t> pg_config_ranks,
                                 std::span<const std::int32_t> loaded_ranks) {
  GroupMembership out;
  const std::optional<RankList> list = parse_rank_list(sample.pg_ranks);
  out.rank_list_truncated = list && list->truncated;
  const auto take = [&out](std::vector<std::int32_t> members, MembershipSource source) {
    std::sort(members.begin(), members.end());
    out.members = std::move(members);
    out.source = source;
    return out;
  };
  if (list && !list->truncated && !list->ranks.empty())
    return take(list->ranks, MembershipSource::kRankList);
  std::vector<std::int32_t> members =
      progression(sample.global_rank_start, sample.global_rank_stride, sample.group_size);
  if (!members.empty()) return take(std::move(members), MembershipSource::kStartStride);
  if (!pg_config_ranks.empty())
    return take(sorted_unique(pg_config_ranks), MembershipSource::kPgConfig);
  if (list) members = progression_from_truncated(*list, sample.group_size);
  if (!members.empty()) return take(std::move(members), MembershipSource::kTruncatedRanks);
  if (!loaded_ranks.empty())
    return take(sorted_unique(loaded_ranks), MembershipSource::kLoadedRanks);
  return out;
}

}  // namespace traceprism::multirank
