#include "multirank/multi_rank_tables.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <set>
#include <tuple>
#include <unordered_set>
#include <vector>

#include "multirank/card_text.hpp"
#include "multirank/collective_pattern_findings.hpp"
#include "multirank/group_membership.hpp"
#include "multirank/rank_discovery.hpp"
#include "multirank/rank_summary.hpp"
#include "multirank/robust_stats.hpp"
#include "text/python_format.hpp"

namespace traceprism::multirank {

namespace {

using model::CollectiveInstance;
using model::CollectiveKind;

std::string us(std::int64_t ns, int decimals) {
  return fixed(static_cast<double>(ns) / 1e3, decimals);
}

std::string known_number(std::int64_t value) {
  return value >= 0 ? std::to_string(value) : std::string();
}

// The member whose fields speak for a matched collective: the sender of a point-to-point pair,
// else the lowest rank; nullptr when no member resolves.
const CollectiveInstance* sample_of(const MatchedCollective& matched, const RankInstances& ranks) {
  if (matched.partition_key.kind == PartitionKind::kPointToPoint)
    for (const MemberRef& ref : matched.members)
      if (ref.rank == matched.key_rank)
        if (const CollectiveInstance* c = ranks.instance(ref)) return c;
  for (const MemberRef& ref : matched.members)
    if (const CollectiveInstance* c = ranks.instance(ref)) return c;
  return nullptr;
}

// Σ over members of (latest start − own start) on the aligned clock, and each member's part.
struct Waits {
  std::vector<std::pair<std::int32_t, std::int64_t>> starts;  // (rank, aligned start)
  std::int64_t latest = 0, earliest = 0;
  std::int64_t latest_end = 0, earliest_end = 0;  // aligned member ends
};

Waits waits_of(const MatchedCollective& matched, const RankInstances& ranks,
               const RankClockOffsets& offsets) {
  Waits w;
  std::vector<std::int64_t> ends;
  for (const MemberRef& ref : matched.members) {
    const CollectiveInstance* c = ranks.instance(ref);
    if (!c) continue;
    const std::int64_t shift = clock_offset_of(offsets, ref.rank);
    w.starts.emplace_back(ref.rank, c->start_ns - shift);
    ends.push_back(c->end_ns() - shift);
  }
  if (w.starts.empty()) return w;
  w.latest = w.earliest = w.starts.front().second;
  for (const auto& [rank, start] : w.starts) {
    w.latest = std::max(w.latest, start);
    w.earliest = std::min(w.earliest, start);
  }
  const auto [first_end, last_end] = std::minmax_element(ends.begin(), ends.end());
  w.earliest_end = *first_end;
  w.latest_end = *last_end;
  return w;
}

// ---- process groups --------------------------------------------------------------------------

using GroupKey = std::tuple<std::string, std::string, std::string, std::int64_t, std::int64_t,
                            std::int64_t>;  // name, description, ranks text, size, start, stride

GroupKey key_of(const ProcessGroup& g) {
  return {g.name, g.description, g.ranks_text, g.size, g.rank_start, g.rank_stride};
}

GroupKey key_of(const CollectiveInstance& c) {
  return {c.pg_name,    c.pg_description,    c.pg_ranks,
          c.group_size, c.global_rank_start, c.global_rank_stride};
}

// The identity fields of an instance, by reference (no copies).
auto key_fields(const CollectiveInstance& c) {
  return std::tie(c.pg_name, c.pg_description, c.pg_ranks, c.group_size, c.global_rank_start,
                  c.global_rank_stride);
}

// The identity of instances without process-group metadata.
GroupKey no_group() {
  return {"", "", "", -1, -1, -1};
}

bool all_digits(const std::string& text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
}

// The row order of process_groups.csv.
bool group_before(const GroupKey& a, const GroupKey& b) {
  const auto order = [](const GroupKey& k) {
    const std::string& name = std::get<0>(k);
    const bool numeric = all_digits(name);
    return std::tuple<bool, bool, std::size_t, const GroupKey&>(k == no_group(), !numeric,
                                                                numeric ? name.size() : 0, k);
  };
  return order(a) < order(b);
}

struct GroupRow {
  std::size_t ranks_loaded = 0;
  std::size_t matched = 0, complete = 0;
  bool any_tier = false;
  model::MatchTier summary_tier = model::MatchTier::kSeq;  // the worst tier the PGRPs give
  std::vector<std::int32_t> summary_members;               // a PGRP's exact member list
  bool summary_truncated = false;
};

std::string members_text(const GroupKey& key, const GroupRow& row, const RankInstances& ranks) {
  if (key == no_group()) return format_rank_set(ranks.numbers());
  CollectiveInstance sample;
  std::tie(sample.pg_name, sample.pg_description, sample.pg_ranks, sample.group_size,
           sample.global_rank_start, sample.global_rank_stride) = key;
  const GroupMembership expected = expected_members(sample, {}, {});
  if (expected.source != MembershipSource::kUnknown) return format_rank_set(expected.members);
  if (!row.summary_members.empty()) return format_rank_set(row.summary_members);
  if (expected.rank_list_truncated || row.summary_truncated) return "truncated";
  return {};
}

// ---- families --------------------------------------------------------------------------------

std::int64_t bytes_from(std::int64_t explicit_bytes, std::int64_t nelems,
                        model::CollectiveDtype dtype) {
  if (explicit_bytes >= 0) return explicit_bytes;
  const std::int64_t size = model::dtype_bytes(dtype);
  if (nelems < 0 || size <= 0 || nelems > std::numeric_limits<std::int64_t>::max() / size)
    return -1;
  return nelems * size;
}

// The description, unless PyTorch left its default; else the name.
std::string group_label(const CollectiveInstance& c) {
  if (!c.pg_description.empty() && c.pg_description != "undefined") return c.pg_description;
  return c.pg_name;
}

using FamilyKey = std::tuple<std::string, std::int64_t, std::string, std::string,
                             std::int64_t>;  // group, n, kind, dtype, bytes

struct Family {
  CollectiveKind kind = CollectiveKind::kUnknown;
  std::size_t count = 0;
  std::int64_t transfer_ns = 0;
  std::int64_t wait_ns = 0;
};

// The instances TraceLens' implicit-sync tables cover: its set (allreduce, reducescatter,
// allgather, alltoall) stands for every rendezvous kind (§10); alltoallv and point-to-point
// have tables of their own.
bool in_implicit_sync_set(const CollectiveInstance& c) {
  return !c.p2p && !model::is_point_to_point(c.kind) && c.kind != CollectiveKind::kAllToAllV;
}

}  // namespace

std::int64_t collective_message_bytes(const model::CollectiveInstance& c) {
  const std::int64_t in = bytes_from(c.in_bytes, c.in_nelems, c.dtype);
  switch (c.kind) {
    case CollectiveKind::kAllReduce:
    case CollectiveKind::kBroadcast:
    case CollectiveKind::kReduce:
    case CollectiveKind::kReduceScatter:
    case CollectiveKind::kAllToAll:
      return in;
    case CollectiveKind::kAllGather:
      return bytes_from(c.out_bytes, c.out_nelems, c.dtype);
    case CollectiveKind::kSend:
    case CollectiveKind::kRecv:
      return in >= 0 ? in : bytes_from(c.out_bytes, c.out_nelems, c.dtype);
    default:
      return -1;
  }
}

std::optional<double> bus_bandwidth_factor(model::CollectiveKind kind, std::int64_t n) {
  if (n <= 0) return std::nullopt;
  const double size = static_cast<double>(n);
  switch (kind) {
    case CollectiveKind::kAllReduce:
      return 2.0 * (size - 1) / size;
    case CollectiveKind::kAllGather:
    case CollectiveKind::kReduceScatter:
    case CollectiveKind::kAllToAll:
      return (size - 1) / size;
    case CollectiveKind::kBroadcast:
    case CollectiveKind::kReduce:
    case CollectiveKind::kSend:
    case CollectiveKind::kRecv:
      return 1.0;
    default:
      return std::nullopt;
  }
}

std::string process_groups_csv(std::span<const RankInput> ranks, const MatchResult& matches,
                               const CrossRankFigures& figures) {
  const RankInstances lookup(ranks);
  std::map<GroupKey, GroupRow> rows;
  std::set<std::int32_t> counted;  // a rank number given twice counts once
  for (const RankInput& input : ranks) {
    if (!counted.insert(input.rank).second) continue;
    std::set<GroupKey> seen;
    if (input.summary) {
      for (const ProcessGroup& g : input.summary->process_groups) {
        const GroupKey key = key_of(g);
        seen.insert(key);
        GroupRow& row = rows[key];
        row.summary_tier = std::max(row.any_tier ? row.summary_tier : g.tier, g.tier);
        row.any_tier = true;
        if (row.summary_members.empty()) row.summary_members = g.members;
        row.summary_truncated = row.summary_truncated || g.members_truncated;
      }
    }
    const CollectiveInstance* previous = nullptr;  // runs of one group are common: skip them
    for (const CollectiveInstance& c : input.instances) {
      if (previous && key_fields(*previous) == key_fields(c)) continue;
      previous = &c;
      seen.insert(has_process_group(c) ? key_of(c) : no_group());
    }
    for (const GroupKey& key : seen) ++rows[key].ranks_loaded;
  }
  std::unordered_set<std::size_t> complete;
  for (const InstanceFigures& f : figures.instances) complete.insert(f.collective);
  for (std::size_t i = 0; i < matches.collectives.size(); ++i) {
    const CollectiveInstance* sample = sample_of(matches.collectives[i], lookup);
    if (!sample) continue;
    GroupRow& row = rows[has_process_group(*sample) ? key_of(*sample) : no_group()];
    ++row.matched;
    if (complete.count(i)) ++row.complete;
  }
  std::map<std::string, model::MatchTier> tier_of_name;
  for (const GroupMatchSummary& g : matches.groups) tier_of_name.emplace(g.pg_name, g.tier);

  std::vector<std::pair<const GroupKey*, const GroupRow*>> order;
  for (const auto& [key, row] : rows) order.emplace_back(&key, &row);
  std::sort(order.begin(), order.end(),
            [](const auto& a, const auto& b) { return group_before(*a.first, *b.first); });
  std::string csv =
      "name,description,size,members,ranks_loaded,tier,instances_matched,instances_complete,"
      "instances_partial\n";
  for (const auto& [key, row] : order) {
    const auto named = tier_of_name.find(std::get<0>(*key));
    const model::MatchTier tier = named != tier_of_name.end() ? named->second
                                  : row->any_tier             ? row->summary_tier
                                                              : model::MatchTier::kTimeline;
    csv += text::csv_field(std::get<0>(*key)) + "," + text::csv_field(std::get<1>(*key)) + "," +
           known_number(std::get<3>(*key)) + "," +
           text::csv_field(members_text(*key, *row, lookup)) + "," +
           std::to_string(row->ranks_loaded) + "," + tier_name(tier) + "," +
           std::to_string(row->matched) + "," + std::to_string(row->complete) + "," +
           std::to_string(row->matched - row->complete) + "\n";
  }
  return csv;
}

std::string clock_offsets_csv(const ClockAlignment& clocks) {
  std::vector<NodeClockOffset> nodes = clocks.nodes;
  std::stable_sort(nodes.begin(), nodes.end(),
                   [](const auto& a, const auto& b) { return a.node < b.node; });
  std::string csv = "node,offset_us,mad_us,samples,applied\n";
  for (const NodeClockOffset& n : nodes)
    csv += std::to_string(n.node) + "," + us(n.offset_ns, 3) + "," + us(n.mad_ns, 3) + "," +
           std::to_string(n.samples) + "," + (n.applied ? "true" : "false") + "\n";
  return csv;
}

std::string straggler_summary_csv(std::span<const RankInput> ranks, const MatchResult& matches,
                                  const CrossRankFigures& figures,
                                  const RankClockOffsets& clock_offset_ns) {
  const RankInstances lookup(ranks);
  struct Row {
    std::int64_t wait_ns = 0;
    std::size_t joined = 0, last = 0, first = 0;
  };
  std::map<std::int32_t, Row> rows;
  std::size_t collectives = 0;
  for (const InstanceFigures& f : figures.instances) {
    if (f.collective >= matches.collectives.size()) continue;
    const MatchedCollective& matched = matches.collectives[f.collective];
    const CollectiveInstance* sample = sample_of(matched, lookup);
    if (!sample || !in_implicit_sync_set(*sample)) continue;
    const Waits w = waits_of(matched, lookup, clock_offset_ns);
    if (w.starts.empty()) continue;
    ++collectives;
    bool last_taken = false, first_taken = false;
    for (const auto& [rank, start] : w.starts) {  // ascending rank: ties go to the lowest
      Row& row = rows[rank];
      ++row.joined;
      row.wait_ns += w.latest - start;
      if (start == w.latest && !last_taken) ++row.last, last_taken = true;
      if (start == w.earliest && !first_taken) ++row.first, first_taken = true;
    }
  }
  std::map<std::int32_t, std::int64_t> duration_ns;
  std::set<std::int32_t> counted;
  for (const RankInput& input : ranks) {
    if (!counted.insert(input.rank).second) continue;
    std::int64_t total = 0;
    for (const CollectiveInstance& c : input.instances) total += c.duration_ns;
    duration_ns[input.rank] = total;
  }
  std::vector<std::pair<std::int32_t, Row>> order(rows.begin(), rows.end());
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return a.second.wait_ns < b.second.wait_ns;  // ties keep ascending rank
  });
  std::string csv =
      "rank,total_wait_time_us,mean_wait_time_us,times_arrived_last,times_arrived_first,"
      "pct_arrived_last,num_collectives,total_nccl_dur_us\n";
  for (const auto& [rank, row] : order) {
    const double mean_ns = static_cast<double>(row.wait_ns) / static_cast<double>(row.joined);
    const double pct =
        100.0 * static_cast<double>(row.last) / static_cast<double>(collectives);  // ≥ 1
    csv += std::to_string(rank) + "," + us(row.wait_ns, 1) + "," + fixed(mean_ns / 1e3, 1) + "," +
           std::to_string(row.last) + "," + std::to_string(row.first) + "," + fixed(pct, 1) + "," +
           std::to_string(collectives) + "," + us(duration_ns[rank], 1) + "\n";
  }
  return csv;
}

std::string collectives_summary_csv(std::span<const RankInput> ranks, const MatchResult& matches,
                                    const CrossRankFigures& figures,
                                    const RankClockOffsets& clock_offset_ns) {
  const RankInstances lookup(ranks);
  std::map<FamilyKey, Family> families;
  for (const InstanceFigures& f : figures.instances) {
    if (f.collective >= matches.collectives.size()) continue;
    const MatchedCollective& matched = matches.collectives[f.collective];
    const CollectiveInstance* sample = sample_of(matched, lookup);
    if (!sample) continue;
    const std::int64_t n = sample->group_size > 0
                               ? sample->group_size
                               : static_cast<std::int64_t>(matched.members.size());
    const FamilyKey key{group_label(*sample), n, model::kind_name(sample->kind),
                        model::dtype_name(sample->dtype), collective_message_bytes(*sample)};
    Family& family = families[key];
    family.kind = sample->kind;
    ++family.count;
    family.transfer_ns += f.transfer_ns;
    const Waits w = waits_of(matched, lookup, clock_offset_ns);
    for (const auto& [rank, start] : w.starts) family.wait_ns += w.latest - start;
  }
  std::vector<std::pair<const FamilyKey*, const Family*>> order;
  for (const auto& [key, family] : families) order.emplace_back(&key, &family);
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return a.second->transfer_ns > b.second->transfer_ns;  // ties keep the key order
  });
  std::string csv =
      "process_group,group_size,kind,dtype,bytes,count,transfer_total_us,transfer_mean_us,"
      "wait_total_us,algbw_gbps,busbw_gbps\n";
  for (const auto& [key, family] : order) {
    const auto& [group, n, kind, dtype, bytes] = *key;
    const double mean_ns =
        static_cast<double>(family->transfer_ns) / static_cast<double>(family->count);
    std::string algbw, busbw;
    if (bytes >= 0 && family->transfer_ns > 0) {
      // bytes per ns = GB/s
      const double gbps = static_cast<double>(bytes) * static_cast<double>(family->count) /
                          static_cast<double>(family->transfer_ns);
      algbw = fixed(gbps, 3);
      if (const std::optional<double> factor = bus_bandwidth_factor(family->kind, n))
        busbw = fixed(gbps * *factor, 3);
    }
    csv += text::csv_field(group) + "," + std::to_string(n) + "," + kind + "," +
           text::csv_field(dtype) + "," + known_number(bytes) + "," +
           std::to_string(family->count) + "," + us(family->transfer_ns, 3) + "," +
           fixed(mean_ns / 1e3, 3) + "," + us(family->wait_ns, 3) + "," + algbw + "," + busbw +
           "\n";
  }
  return csv;
}

namespace {

// The ProfilerStep of the partition key, else of the sample member; empty when none.
std::string step_text(const MatchedCollective& matched, const CollectiveInstance* sample) {
  const std::int32_t step =
      matched.partition_key.step >= 0 ? matched.partition_key.step : (sample ? sample->step : -1);
  return step >= 0 ? std::to_string(step) : std::string();
}

std::string tier_of(const MatchedCollective& matched) {
  return matched.partition_key.kind == PartitionKind::kPointToPoint ? "p2p"
                                                                    : tier_name(matched.tier);
}

// The row of one matched collective; `figures` is its complete-instance figures or null.
std::string collective_row(const MatchedCollective& matched, const RankInstances& lookup,
                           const RankClockOffsets& offsets, const InstanceFigures* figures) {
  const CollectiveInstance* sample = sample_of(matched, lookup);
  const Waits w = waits_of(matched, lookup, offsets);
  std::vector<std::int32_t> members;
  std::int64_t transfer = -1;
  std::int32_t last = -1;
  for (const auto& [rank, start] : w.starts) {
    members.push_back(rank);
    if (last < 0 && start == w.latest) last = rank;  // ascending ranks: the lowest wins ties
  }
  for (const MemberRef& ref : matched.members)
    if (const CollectiveInstance* c = lookup.instance(ref))
      transfer = transfer < 0 ? c->duration_ns : std::min(transfer, c->duration_ns);
  std::string row = text::csv_field(matched.partition_key.pg_name) + "," + tier_of(matched) + "," +
                    step_text(matched, sample) + "," + std::to_string(matched.key) + ",";
  if (sample)
    row += std::string(model::kind_name(sample->kind)) + "," +
           text::csv_field(model::dtype_name(sample->dtype)) + "," +
           known_number(collective_message_bytes(*sample));
  else
    row += ",,";
  row += "," + text::csv_field(format_rank_set(members)) + "," + (figures ? "true" : "false");
  if (w.starts.empty())
    row += ",,,";
  else
    row +=
        "," + us(w.earliest, 3) + "," + us(w.latest - w.earliest, 3) + "," + std::to_string(last);
  row += "," + (transfer >= 0 ? us(transfer, 3) : std::string()) + ",";
  if (figures) row += fixed(static_cast<double>(figures->exposure_permille) / 10.0, 1);
  return row + "," + (matched.mismatch ? "true" : "false") + "\n";
}

}  // namespace

std::string collectives_csv(std::span<const RankInput> ranks, const MatchResult& matches,
                            const CrossRankFigures& figures,
                            const RankClockOffsets& clock_offset_ns, std::size_t max_rows) {
  const RankInstances lookup(ranks);
  std::vector<const InstanceFigures*> complete(matches.collectives.size(), nullptr);
  for (const InstanceFigures& f : figures.instances)
    if (f.collective < complete.size()) complete[f.collective] = &f;
  std::string csv =
      "process_group,tier,step,key,kind,dtype,bytes,ranks,complete,start_us,arrival_skew_us,"
      "last_rank,transfer_us,exposure_pct,mismatch\n";
  const std::size_t rows = std::min(max_rows, matches.collectives.size());
  for (std::size_t i = 0; i < rows; ++i)
    csv += collective_row(matches.collectives[i], lookup, clock_offset_ns, complete[i]);
  return csv;
}

// ---- nccl_summary_implicit_sync.csv ----------------------------------------------------------

namespace {

using ImplicitSyncKey =
    std::tuple<std::string, std::string, std::int64_t>;  // collective name, dtype, in nelems

// One row's instances: TraceLens' per-instance columns, aggregated when the row is written.
struct ImplicitSyncRow {
  std::string pg_name;              // of the first instance
  std::int64_t group_size = 0;      // n of the first instance
  std::int64_t message_bytes = -1;  // S of the first instance that knows it
  std::int64_t latency_total_ns = 0;
  std::vector<double> latency_us, start_skew_us, end_skew_us, algbw_gibps, busbw_gibps;
};

constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kGiB = kMiB * 1024.0;

// TraceLens' algo bw: (MB / 1024) / (comm_latency / 1e6), its MB being MiB: GiB/s.
void add_bandwidths(ImplicitSyncRow& row, CollectiveKind kind, std::int64_t bytes,
                    std::int64_t transfer_ns) {
  if (bytes < 0 || transfer_ns <= 0) return;  // NaN in TraceLens, which its aggregates skip
  const double algbw = static_cast<double>(bytes) / kGiB / (static_cast<double>(transfer_ns) / 1e9);
  row.algbw_gibps.push_back(algbw);
  if (const std::optional<double> factor = bus_bandwidth_factor(kind, row.group_size))
    row.busbw_gibps.push_back(algbw * *factor);
}

// ",mean,median,min,max" (TraceLens' agg_metrics); empty fields without values.
std::string aggregates(const std::vector<double>& values, int decimals) {
  if (values.empty()) return ",,,,";
  double sum = 0;
  for (const double v : values) sum += v;
  const auto [low, high] = std::minmax_element(values.begin(), values.end());
  return "," + fixed(sum / static_cast<double>(values.size()), decimals) + "," +
         fixed(median(values), decimals) + "," + fixed(*low, decimals) + "," +
         fixed(*high, decimals);
}

std::string aggregate_header(const char* column) {
  const std::string name = column;
  return "," + name + "_mean," + name + "_median," + name + "_min," + name + "_max";
}

}  // namespace

std::string nccl_summary_implicit_sync_csv(std::span<const RankInput> ranks,
                                           const MatchResult& matches,
                                           const CrossRankFigures& figures,
                                           const RankClockOffsets& clock_offset_ns) {
  const RankInstances lookup(ranks);
  std::map<ImplicitSyncKey, ImplicitSyncRow> rows;
  for (const InstanceFigures& f : figures.instances) {  // MatchResult order: "first" is stable
    if (f.collective >= matches.collectives.size()) continue;
    const MatchedCollective& matched = matches.collectives[f.collective];
    const CollectiveInstance* sample = sample_of(matched, lookup);
    if (!sample || !in_implicit_sync_set(*sample)) continue;
    const Waits w = waits_of(matched, lookup, clock_offset_ns);  // the sample resolved: not empty
    const ImplicitSyncKey key{model::kind_name(sample->kind), model::dtype_name(sample->dtype),
                              std::max<std::int64_t>(-1, sample->in_nelems)};
    ImplicitSyncRow& row = rows[key];
    const std::int64_t bytes = collective_message_bytes(*sample);
    if (row.latency_us.empty()) {
      row.pg_name = sample->pg_name;
      row.group_size = sample->group_size > 0 ? sample->group_size
                                              : static_cast<std::int64_t>(matched.members.size());
    }
    if (row.message_bytes < 0) row.message_bytes = bytes;
    row.latency_total_ns += f.transfer_ns;
    row.latency_us.push_back(static_cast<double>(f.transfer_ns) / 1e3);
    row.start_skew_us.push_back(static_cast<double>(f.arrival_skew_ns) / 1e3);
    row.end_skew_us.push_back(static_cast<double>(w.latest_end - w.earliest_end) / 1e3);
    add_bandwidths(row, sample->kind, bytes, f.transfer_ns);
  }
  std::vector<std::pair<const ImplicitSyncKey*, const ImplicitSyncRow*>> order;
  for (const auto& [key, row] : rows) order.emplace_back(&key, &row);
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return a.second->latency_total_ns > b.second->latency_total_ns;  // ties keep the key order
  });
  std::string csv =
      "Collective name,dtype,In msg nelems,Process Group Name,Group size,"
      "Full msg size (MB)" +
      aggregate_header("comm_latency") + aggregate_header("skew in start time") +
      aggregate_header("skew in end time") + aggregate_header("algo bw (GB/s)") +
      aggregate_header("bus bw (GB/s)") + ",count,Total comm latency (ms)\n";
  for (const auto& [key, row] : order) {
    const auto& [name, dtype, nelems] = *key;
    csv += name + "," + text::csv_field(dtype) + "," + known_number(nelems) + "," +
           text::csv_field(row->pg_name) + "," + std::to_string(row->group_size) + "," +
           (row->message_bytes >= 0 ? fixed(static_cast<double>(row->message_bytes) / kMiB, 6)
                                    : std::string()) +
           aggregates(row->latency_us, 3) + aggregates(row->start_skew_us, 3) +
           aggregates(row->end_skew_us, 3) + aggregates(row->algbw_gibps, 3) +
           aggregates(row->busbw_gibps, 3) + "," + std::to_string(row->latency_us.size()) + "," +
           fixed(static_cast<double>(row->latency_total_ns) / 1e6, 6) + "\n";
  }
  return csv;
}

// ---- alltoallv.csv ---------------------------------------------------------------------------

namespace {

// The members' instances in ascending rank with their rank, or empty when one does not resolve
// (RankInstances::members, which the xrank-alltoall-imbalance finding reads, with the ranks).
std::vector<std::pair<std::int32_t, const CollectiveInstance*>> all_members(
    const MatchedCollective& matched, const RankInstances& ranks) {
  std::vector<std::pair<std::int32_t, const CollectiveInstance*>> out;
  for (const MemberRef& ref : matched.members) {
    const CollectiveInstance* c = ranks.instance(ref);
    if (!c) return {};
    out.emplace_back(ref.rank, c);
  }
  return out;
}

// One collective's per-rank volumes (pattern_message_bytes: the finding's in bytes).
struct Volumes {
  bool known = false;  // every member knows its in bytes
  std::int64_t total = 0, min = 0, max = 0;
  std::int32_t max_rank = -1;  // the lowest rank holding the max
};

Volumes volumes_of(const std::vector<std::pair<std::int32_t, const CollectiveInstance*>>& members) {
  Volumes v;
  for (const auto& [rank, c] : members) {
    const std::int64_t bytes = pattern_message_bytes(*c);
    if (bytes < 0) return {};
    v.min = v.max_rank < 0 ? bytes : std::min(v.min, bytes);
    if (v.max_rank < 0 || bytes > v.max) v.max = bytes, v.max_rank = rank;  // ascending: ties low
    v.total += bytes;
  }
  v.known = v.max_rank >= 0;
  return v;
}

double mean_of(const Volumes& v, std::size_t members) {
  return static_cast<double>(v.total) / static_cast<double>(members);
}

// in_bytes_total .. throughput_gbps: seven fields, empty where unknown.
std::string volume_fields(const Volumes& v, std::size_t members, std::int64_t wall_ns) {
  if (!v.known) return ",,,,,,";
  const double mean = mean_of(v, members);
  std::string row = std::to_string(v.total) + "," + fixed(mean, 1) + "," + std::to_string(v.min) +
                    "," + std::to_string(v.max) + ",";
  if (v.total <= 0) return row + ",,";
  row += std::to_string(v.max_rank) + "," + fixed(static_cast<double>(v.max) / mean, 3) + ",";
  if (wall_ns > 0) row += fixed(static_cast<double>(v.total) / static_cast<double>(wall_ns), 3);
  return row;
}

// wall × (1 − mean/max) × x_c, µs: the finding's saving, the exposed time beyond what an even
// split would take; empty when the volumes are unknown or all zero.
std::string excess_exposed_us(const Volumes& v, std::size_t members, std::int64_t wall_ns,
                              std::int64_t exposure_permille) {
  if (!v.known || v.total <= 0) return {};
  const double uneven_part = 1.0 - mean_of(v, members) / static_cast<double>(v.max);
  const double exposed_part = static_cast<double>(exposure_permille) / 1000.0;
  return fixed(static_cast<double>(wall_ns) * uneven_part * exposed_part / 1e3, 3);
}

}  // namespace

std::string alltoallv_csv(std::span<const RankInput> ranks, const MatchResult& matches,
                          const CrossRankFigures& figures,
                          const RankClockOffsets& clock_offset_ns) {
  const RankInstances lookup(ranks);
  std::string csv =
      "process_group,step,key,dtype,ranks,start_us,wall_us,transfer_us,arrival_skew_us,"
      "in_bytes_total,in_bytes_mean,in_bytes_min,in_bytes_max,max_rank,size_imbalance,"
      "throughput_gbps,exposure_pct,exposed_wall_us,excess_exposed_us\n";
  for (const InstanceFigures& f : figures.instances) {
    if (f.collective >= matches.collectives.size()) continue;
    const MatchedCollective& matched = matches.collectives[f.collective];
    const auto members = all_members(matched, lookup);
    if (members.empty() || members.front().second->kind != CollectiveKind::kAllToAllV) continue;
    const CollectiveInstance& sample = *members.front().second;
    const Waits w = waits_of(matched, lookup, clock_offset_ns);
    std::vector<std::int32_t> member_ranks;
    for (const auto& [rank, c] : members) member_ranks.push_back(rank);
    const std::int64_t wall_ns = std::max<std::int64_t>(0, w.latest_end - w.earliest);
    const Volumes volumes = volumes_of(members);
    csv += text::csv_field(matched.partition_key.pg_name) + "," + step_text(matched, &sample) +
           "," + std::to_string(matched.key) + "," +
           text::csv_field(model::dtype_name(sample.dtype)) + "," +
           text::csv_field(format_rank_set(member_ranks)) + "," + us(w.earliest, 3) + "," +
           us(wall_ns, 3) + "," + us(f.transfer_ns, 3) + "," + us(f.arrival_skew_ns, 3) + "," +
           volume_fields(volumes, members.size(), wall_ns) + "," +
           fixed(static_cast<double>(f.exposure_permille) / 10.0, 1) + "," +
           us(wall_ns * f.exposure_permille / 1000, 3) + "," +
           excess_exposed_us(volumes, members.size(), wall_ns, f.exposure_permille) + "\n";
  }
  return csv;
}

// ---- p2p.csv ---------------------------------------------------------------------------------

namespace {

using PeerPairKey = std::tuple<std::string, std::int32_t, std::int32_t>;  // pg, sender, receiver

struct PeerPair {
  std::size_t pairs = 0, late_sends = 0, late_receives = 0;
  bool bytes_known = true;
  std::int64_t bytes = 0;
  std::int64_t transfer_ns = 0;
  std::int64_t recv_wait_ns = 0, recv_exposed_wait_ns = 0, send_wait_ns = 0;
};

// How long `waiter` waits for a peer that starts at `peer_start`: the wait happens inside the
// waiter's operation, so never longer than it (the xrank-pipeline-wait rule).
std::int64_t wait_for(std::int64_t peer_start, std::int64_t own_start,
                      const CollectiveInstance& waiter) {
  return std::clamp<std::int64_t>(peer_start - own_start, 0,
                                  std::max<std::int64_t>(0, waiter.duration_ns));
}

// The message of a pair: the send's S, else the recv's (one side may lack its size).
std::int64_t pair_message_bytes(const CollectiveInstance& send, const CollectiveInstance& recv) {
  const std::int64_t sent = collective_message_bytes(send);
  return sent >= 0 ? sent : collective_message_bytes(recv);
}

void add_pair(PeerPair& p, const CollectiveInstance& send, std::int64_t send_start,
              const CollectiveInstance& recv, std::int64_t recv_start) {
  ++p.pairs;
  const std::int64_t bytes = pair_message_bytes(send, recv);
  p.bytes_known = p.bytes_known && bytes >= 0;
  if (bytes >= 0) p.bytes += bytes;
  p.transfer_ns += std::min(send.duration_ns, recv.duration_ns);
  const std::int64_t recv_wait = wait_for(send_start, recv_start, recv);  // late sender
  const std::int64_t send_wait = wait_for(recv_start, send_start, send);  // late receiver
  if (recv_wait > 0) ++p.late_sends;
  if (send_wait > 0) ++p.late_receives;
  p.recv_wait_ns += recv_wait;
  p.recv_exposed_wait_ns += recv_wait * exposure_permille(recv) / 1000;
  p.send_wait_ns += send_wait;
}

}  // namespace

std::string p2p_csv(std::span<const RankInput> ranks, const MatchResult& matches,
                    const RankClockOffsets& clock_offset_ns) {
  const RankInstances lookup(ranks);
  std::map<PeerPairKey, PeerPair> rows;
  for (const MatchedCollective& m : matches.collectives) {
    const std::optional<PeerTransfer> t = lookup.transfer(m);
    if (!t) continue;
    const std::int32_t src = t->send_ref->rank, dst = t->recv_ref->rank;
    add_pair(rows[{m.partition_key.pg_name, src, dst}], *t->send,
             t->send->start_ns - clock_offset_of(clock_offset_ns, src), *t->recv,
             t->recv->start_ns - clock_offset_of(clock_offset_ns, dst));
  }
  std::vector<std::pair<const PeerPairKey*, const PeerPair*>> order;
  for (const auto& [key, row] : rows) order.emplace_back(&key, &row);
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return a.second->recv_wait_ns > b.second->recv_wait_ns;  // ties keep the key order
  });
  std::string csv =
      "process_group,src_rank,dst_rank,pairs,bytes_total,transfer_total_us,algbw_gbps,late_sends,"
      "recv_wait_total_us,recv_exposed_wait_us,late_receives,send_wait_total_us\n";
  for (const auto& [key, p] : order) {
    const auto& [group, src, dst] = *key;
    std::string algbw;
    if (p->bytes_known && p->transfer_ns > 0)  // bytes per ns = GB/s
      algbw = fixed(static_cast<double>(p->bytes) / static_cast<double>(p->transfer_ns), 3);
    csv += text::csv_field(group) + "," + std::to_string(src) + "," + std::to_string(dst) + "," +
           std::to_string(p->pairs) + "," + (p->bytes_known ? std::to_string(p->bytes) : "") + "," +
           us(p->transfer_ns, 3) + "," + algbw + "," + std::to_string(p->late_sends) + "," +
           us(p->recv_wait_ns, 3) + "," + us(p->recv_exposed_wait_ns, 3) + "," +
           std::to_string(p->late_receives) + "," + us(p->send_wait_ns, 3) + "\n";
  }
  return csv;
}

}  // namespace traceprism::multirank
