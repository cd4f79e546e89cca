#include "multirank/rank_summary.hpp"

#include <algorithm>
#include <tuple>

namespace traceprism::multirank {

namespace {

using model::MatchTier;

// (partition, tier, p2p, pg name, key part 1, key part 2, order, start): the partition key of
// §5.2 spelled as two integers after the pg name, so one tuple order serves every tier.
using RowSortKey = std::tuple<std::uint32_t, int, bool, std::string_view, std::int64_t,
                              std::int64_t, std::uint32_t, std::int64_t>;

RowSortKey row_sort_key(const CollectiveRow& row) {
  const model::CollectiveInstance& c = row.instance;
  const int tier = static_cast<int>(row.tier);
  // One file holds one rank, so the peer alone stands for the unordered pair {rank, peer}.
  if (c.p2p)
    return {row.partition, tier, true, c.pg_name, c.peer_rank, c.step, c.order, c.start_ns};
  switch (row.tier) {
    case MatchTier::kSeq:  // `order` holds Seq in this tier
      return {row.partition, tier, false, c.pg_name, c.order / 1024, 0, c.order, c.start_ns};
    case MatchTier::kOrdinal:
      return {row.partition, tier, false, c.pg_name, c.step, 0, c.order, c.start_ns};
    case MatchTier::kTimeline:
      break;
  }
  return {row.partition, tier, false, std::string_view(), c.channel, c.step, c.order, c.start_ns};
}

}  // namespace

bool collective_row_less(const CollectiveRow& a, const CollectiveRow& b) {
  return row_sort_key(a) < row_sort_key(b);
}

void sort_collective_rows(std::vector<CollectiveRow>& rows) {
  std::stable_sort(rows.begin(), rows.end(), collective_row_less);
}

std::vector<PartitionExtent> partition_extents(const std::vector<CollectiveRow>& sorted_rows) {
  std::vector<PartitionExtent> extents;
  for (std::size_t i = 0; i < sorted_rows.size(); ++i) {
    const std::uint32_t partition = sorted_rows[i].partition;
    if (extents.empty() || extents.back().partition != partition)
      extents.push_back({partition, static_cast<std::uint32_t>(i), 0});
    ++extents.back().row_count;
  }
  return extents;
}

bool has_process_group(const model::CollectiveInstance& instance) {
  return !instance.pg_name.empty() || !instance.pg_description.empty() ||
         !instance.pg_ranks.empty() || instance.group_size != -1 ||
         instance.global_rank_start != -1 || instance.global_rank_stride != -1;
}

bool is_process_group_of(const ProcessGroup& group, const model::CollectiveInstance& instance) {
  return group.name == instance.pg_name && group.description == instance.pg_description &&
         group.ranks_text == instance.pg_ranks && group.size == instance.group_size &&
         group.rank_start == instance.global_rank_start &&
         group.rank_stride == instance.global_rank_stride;
}

ProcessGroup process_group_from(const model::CollectiveInstance& instance, MatchTier tier) {
  ProcessGroup group;
  group.name = instance.pg_name;
  group.description = instance.pg_description;
  group.ranks_text = instance.pg_ranks;
  group.size = instance.group_size;
  group.rank_start = instance.global_rank_start;
  group.rank_stride = instance.global_rank_stride;
  group.tier = tier;
  return group;
}

std::string truncate_utf8(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  std::size_t cut = max_bytes;
  // A continuation byte (10xxxxxx) at the cut means the cut splits a character.
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return std::string(text.substr(0, cut));
}

const char* tier_name(MatchTier tier) {
  switch (tier) {
    case MatchTier::kSeq:
      return "seq";
    case MatchTier::kOrdinal:
      return "ordinal";
    case MatchTier::kTimeline:
      break;
  }
  return "timeline";
}

double gpu_idle_percent(const RankSummary& summary) {
  std::int64_t idle = summary.profile.totals.idle_ns;
  std::int64_t span = summary.profile.totals.gpu_end_ns - summary.profile.totals.gpu_start_ns;
  if (!summary.steps.empty()) {
    idle = span = 0;
    for (const StepSummary& step : summary.steps) {
      idle += step.totals.idle_ns;
      span += std::max<std::int64_t>(0, step.totals.gpu_end_ns - step.totals.gpu_start_ns);
    }
  }
  return span > 0 ? 100.0 * static_cast<double>(idle) / static_cast<double>(span) : 0;
}

std::int64_t mean_step_compute_ns(const RankSummary& summary) {
  if (summary.steps.empty()) return summary.profile.totals.compute_ns;
  std::int64_t compute = 0;
  for (const StepSummary& step : summary.steps) compute += step.totals.compute_ns;
  return compute / static_cast<std::int64_t>(summary.steps.size());
}

}  // namespace traceprism::multirank
