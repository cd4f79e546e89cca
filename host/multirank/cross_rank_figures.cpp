#include "multirank/cross_rank_figures.hpp"

#include <algorithm>
#include <numeric>
#include <string>
#include <unordered_map>

#include "multirank/group_membership.hpp"
#include "multirank/robust_stats.hpp"

namespace traceprism::multirank {

namespace {

// One member of a matched collective, on the aligned clock.
struct Member {
  std::int32_t rank;
  std::size_t input;  // index into the RankInput span
  const model::CollectiveInstance* instance;
  std::int64_t start, anchor;
  std::int64_t exposure_permille;
};

// Members in ascending rank, or an empty list when an expected member is missing (partial).
std::vector<Member> complete_members(const MatchedCollective& matched,
                                     std::span<const RankInput> ranks,
                                     const std::unordered_map<std::int32_t, std::size_t>& input_of,
                                     const std::vector<std::int32_t>& loaded,
                                     const CrossRankOptions& options) {
  std::vector<Member> members;
  for (const MemberRef& ref : matched.members) {
    const auto it = input_of.find(ref.rank);
    if (it == input_of.end() || ref.index >= ranks[it->second].instances.size()) return {};
    const model::CollectiveInstance& c = ranks[it->second].instances[ref.index];
    const std::int64_t shift = clock_offset_of(options.clock_offset_ns, ref.rank);
    members.push_back({ref.rank, it->second, &c, c.start_ns - shift,
                       c.anchor_ns >= 0 ? c.anchor_ns - shift : -1, exposure_permille(c)});
  }
  if (members.size() < 2) return {};
  const GroupMembership expected = expected_members(*members.front().instance, {}, loaded);
  const std::vector<std::int32_t>& want =
      expected.source == MembershipSource::kUnknown ? loaded : expected.members;
  // Complete among the loaded ranks: a rank whose file is missing cannot show up, and its
  // absence must not hide what the others show (§12: a missing rank leaves the straggler found);
  // a loaded member that lacks the instance (a dropped event) makes it partial.
  for (std::int32_t rank : want) {
    if (!std::binary_search(loaded.begin(), loaded.end(), rank)) continue;
    if (std::none_of(members.begin(), members.end(),
                     [&](const Member& m) { return m.rank == rank; }))
      return {};
  }
  return members;
}

InstanceFigures figures_of(std::size_t index, const std::vector<Member>& members) {
  InstanceFigures f;
  f.collective = index;
  std::vector<std::int64_t> starts;
  for (const Member& m : members) starts.push_back(m.start);
  std::vector<std::int64_t> sorted = starts;
  std::sort(sorted.begin(), sorted.end());
  const std::int64_t latest = sorted.back();
  f.arrival_skew_ns = latest - sorted.front();
  f.margin_ns = latest - sorted[sorted.size() - 2];
  f.late_median_ns = latest - median(starts);
  f.transfer_ns = INT64_MAX;
  for (const Member& m : members) f.transfer_ns = std::min(f.transfer_ns, m.instance->duration_ns);
  for (const Member& m : members) {  // ascending rank: the first latest is the lowest rank
    if (m.start == latest) {
      f.last_rank = m.rank;
      break;
    }
  }
  std::vector<std::int64_t> exposures;
  for (const Member& m : members)
    if (m.rank != f.last_rank) exposures.push_back(m.exposure_permille);
  f.exposure_permille = median(exposures);
  f.skewed = f.arrival_skew_ns >= std::max<std::int64_t>(10'000, f.transfer_ns / 20);
  return f;
}

// The member whose start is the median (the lower middle of an even count; ties by rank).
const Member& median_arriver(const std::vector<Member>& members) {
  std::vector<const Member*> order;
  for (const Member& m : members) order.push_back(&m);
  std::sort(order.begin(), order.end(), [](const Member* a, const Member* b) {
    return a->start != b->start ? a->start < b->start : a->rank < b->rank;
  });
  return *order[(order.size() - 1) / 2];
}

// Lateness of the last member against the median one, split as §7.3 says: from the anchor
// (the step's CPU start), s = anchor + compute + exposed comm + idle exactly.
void add_lateness(RankFigures& rank, const Member& last, const Member& median_member) {
  const std::int64_t late = last.start - median_member.start;
  rank.late_total_ns += late;
  if (last.anchor < 0 || median_member.anchor < 0) return;  // unattributed
  const model::CollectiveInstance& a = *last.instance;
  const model::CollectiveInstance& b = *median_member.instance;
  rank.late_compute_ns += std::max<std::int64_t>(0, a.pre_compute_ns - b.pre_compute_ns);
  rank.late_comm_ns += std::max<std::int64_t>(0, a.pre_comm_ns - b.pre_comm_ns);
  const std::int64_t host = (last.anchor - median_member.anchor) + (a.pre_idle_ns - b.pre_idle_ns);
  rank.late_host_ns += std::max<std::int64_t>(0, host);
}

LatenessCause cause_of(const RankFigures& r) {
  if (r.last_count == 0 || r.late_total_ns <= 0) return LatenessCause::kNone;
  const std::int64_t top = std::max({r.late_compute_ns, r.late_host_ns, r.late_comm_ns});
  if (top * 2 < r.late_total_ns) return LatenessCause::kUnattributed;
  if (top == r.late_compute_ns) return LatenessCause::kCompute;
  if (top == r.late_host_ns) return LatenessCause::kHost;
  return LatenessCause::kCommunication;
}

// Shared kernels >= 10% slower (median ratio of mean durations): a slower GPU; else >= 10%
// more kernel time: more work.
ComputeHint compute_hint(const RankSummary& rank, const RankSummary& peer) {
  std::unordered_map<std::string, const KernelTotal*> peer_kernels;
  std::int64_t peer_total = 0, rank_total = 0;
  for (const KernelTotal& k : peer.kernels) {
    peer_kernels[k.name] = &k;
    peer_total += k.total_ns;
  }
  std::vector<double> ratios;
  for (const KernelTotal& k : rank.kernels) {
    rank_total += k.total_ns;
    const auto it = peer_kernels.find(k.name);
    if (it == peer_kernels.end() || k.count == 0 || it->second->count == 0 ||
        it->second->total_ns == 0)
      continue;
    const double mean = static_cast<double>(k.total_ns) / static_cast<double>(k.count);
    const double peer_mean =
        static_cast<double>(it->second->total_ns) / static_cast<double>(it->second->count);
    ratios.push_back(mean / peer_mean);
  }
  if (!ratios.empty() && median(ratios) >= 1.10) return ComputeHint::kSlowerGpu;
  if (peer_total > 0 && rank_total * 10 >= peer_total * 11) return ComputeHint::kMoreWork;
  return ComputeHint::kNone;
}

std::int64_t mean_step_ns(const RankSummary& summary) {
  std::int64_t total = 0, count = 0;
  for (const StepSummary& s : summary.steps) {
    if (s.totals.gpu_start_ns < 0 || s.totals.gpu_end_ns <= s.totals.gpu_start_ns) continue;
    total += s.totals.gpu_end_ns - s.totals.gpu_start_ns;
    ++count;
  }
  return count ? total / count : 0;
}

// §9.2: % last >= min(50%, 3/n), lateness >= max(50 µs, 0.5% of the mean step) and, for n >= 4,
// a robust z of the lateness >= 3.5 against all ranks.
std::vector<std::int32_t> flagged_ranks(const std::vector<RankFigures>& ranks,
                                        const CrossRankOptions& o) {
  const std::size_t n = ranks.size();
  std::vector<std::int64_t> lateness;
  for (const RankFigures& r : ranks) lateness.push_back(r.mean_lateness_ns);
  const std::int64_t center = median(lateness);
  const std::int64_t mad = median_absolute_deviation(lateness);
  const double min_share = std::min(o.max_required_last_share, 3.0 / static_cast<double>(n));
  std::vector<std::int32_t> flagged;
  for (const RankFigures& r : ranks) {
    const std::int64_t min_late = std::max<std::int64_t>(
        o.min_lateness_ns,
        static_cast<std::int64_t>(static_cast<double>(r.mean_step_ns) * o.min_lateness_step_share));
    if (r.skewed_instances == 0 || r.last_share < min_share || r.mean_lateness_ns < min_late)
      continue;
    if (n >= 4 && robust_z(static_cast<double>(r.mean_lateness_ns), static_cast<double>(center),
                           static_cast<double>(mad),
                           static_cast<double>(o.lateness_z_floor_ns)) < o.min_lateness_z)
      continue;
    flagged.push_back(r.rank);
  }
  return flagged;
}

Stragglers straggler_item(const std::vector<std::int32_t>& flagged,
                          const std::vector<InstanceFigures>& instances,
                          const std::vector<RankFigures>& ranks) {
  Stragglers s;
  s.ranks = flagged;
  for (const InstanceFigures& f : instances) {
    if (!f.skewed || !std::binary_search(flagged.begin(), flagged.end(), f.last_rank)) continue;
    s.impact_low_ns += low_late_arrival_ns(f) * f.exposure_permille / 1000;
    s.impact_mid_ns += f.late_median_ns * f.exposure_permille / 1000;
    s.impact_high_ns += f.arrival_skew_ns * f.exposure_permille / 1000;
  }
  // The cause of the rank that is last most often speaks for the item.
  const RankFigures* lead = nullptr;
  for (const RankFigures& r : ranks) {
    if (!std::binary_search(flagged.begin(), flagged.end(), r.rank)) continue;
    if (!lead || r.last_count > lead->last_count) lead = &r;
  }
  if (lead) s.cause = lead->cause, s.hint = lead->hint;
  return s;
}

}  // namespace

const char* cause_name(LatenessCause cause) {
  switch (cause) {
    case LatenessCause::kCompute:
      return "compute";
    case LatenessCause::kHost:
      return "host";
    case LatenessCause::kCommunication:
      return "communication";
    case LatenessCause::kUnattributed:
      return "unattributed";
    case LatenessCause::kNone:
      break;
  }
  return "none";
}

const char* hint_text(ComputeHint hint) {
  switch (hint) {
    case ComputeHint::kSlowerGpu:
      return "slower GPU (clocks, thermals, hardware)";
    case ComputeHint::kMoreWork:
      return "more work (imbalanced sharding, MoE, pipeline stage)";
    case ComputeHint::kNone:
      break;
  }
  return "";
}

std::int64_t exposure_permille(const model::CollectiveInstance& c) {
  return c.duration_ns > 0 ? c.exposed_ns * 1000 / c.duration_ns : 0;
}

RankInstances::RankInstances(std::span<const RankInput> ranks) : ranks_(ranks) {
  for (std::size_t i = 0; i < ranks.size(); ++i) input_of_.emplace(ranks[i].rank, i);
}

const model::CollectiveInstance* RankInstances::instance(const MemberRef& ref) const {
  const auto it = input_of_.find(ref.rank);
  if (it == input_of_.end() || ref.index >= ranks_[it->second].instances.size()) return nullptr;
  return &ranks_[it->second].instances[ref.index];
}

std::vector<const model::CollectiveInstance*> RankInstances::members(
    const MatchedCollective& m) const {
  std::vector<const model::CollectiveInstance*> out;
  for (const MemberRef& ref : m.members) {
    const model::CollectiveInstance* c = instance(ref);
    if (!c) return {};
    out.push_back(c);
  }
  return out;
}

std::optional<PeerTransfer> RankInstances::transfer(const MatchedCollective& m) const {
  if (m.partition_key.kind != PartitionKind::kPointToPoint || m.members.size() != 2)
    return std::nullopt;
  const bool first_sends = m.members[0].rank == m.key_rank;
  if (!first_sends && m.members[1].rank != m.key_rank) return std::nullopt;
  const MemberRef& send_ref = m.members[first_sends ? 0 : 1];
  const MemberRef& recv_ref = m.members[first_sends ? 1 : 0];
  const model::CollectiveInstance* send = instance(send_ref);
  const model::CollectiveInstance* recv = instance(recv_ref);
  if (!send || !recv) return std::nullopt;
  return PeerTransfer{&send_ref, &recv_ref, send, recv};
}

std::int64_t clock_offset_of(const std::map<std::int32_t, std::int64_t>& offsets,
                             std::int32_t rank) {
  const auto it = offsets.find(rank);
  return it == offsets.end() ? 0 : it->second;
}

std::vector<std::int32_t> RankInstances::numbers() const {
  std::vector<std::int32_t> out;
  for (const auto& [rank, input] : input_of_) out.push_back(rank);
  return out;
}

CrossRankFigures cross_rank_figures(std::span<const RankInput> ranks, const MatchResult& matches,
                                    const CrossRankOptions& options) {
  CrossRankFigures out;
  std::unordered_map<std::int32_t, std::size_t> input_of;
  std::vector<std::int32_t> loaded;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    input_of[ranks[i].rank] = i;
    loaded.push_back(ranks[i].rank);
  }
  std::sort(loaded.begin(), loaded.end());
  std::vector<RankFigures> figures(ranks.size());
  std::vector<std::int64_t> lateness_sum(ranks.size(), 0);
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    figures[i].rank = ranks[i].rank;
    figures[i].mean_step_ns = ranks[i].summary ? mean_step_ns(*ranks[i].summary) : 0;
  }
  std::vector<std::size_t> median_peer(ranks.size(), SIZE_MAX);  // for the compute hint
  for (std::size_t c = 0; c < matches.collectives.size(); ++c) {
    const std::vector<Member> members =
        complete_members(matches.collectives[c], ranks, input_of, loaded, options);
    if (members.empty()) {
      ++out.partial_instances;
      continue;
    }
    const InstanceFigures f = figures_of(c, members);
    std::vector<std::int64_t> starts;
    for (const Member& m : members) starts.push_back(m.start);
    const std::int64_t center = median(starts);
    const std::int64_t latest = *std::max_element(starts.begin(), starts.end());
    const std::int64_t earliest = *std::min_element(starts.begin(), starts.end());
    for (const Member& m : members) {
      RankFigures& r = figures[m.input];
      ++r.instances;
      lateness_sum[m.input] += m.start - center;
      r.wait_ns += latest - m.start;
      r.exposed_wait_ns += (latest - m.start) * m.exposure_permille / 1000;
      if (!f.skewed) continue;
      ++r.skewed_instances;
      if (m.rank == f.last_rank) {
        ++r.last_count;
        const Member& peer = median_arriver(members);
        add_lateness(r, m, peer);
        if (median_peer[m.input] == SIZE_MAX) median_peer[m.input] = peer.input;
      }
      if (m.start == earliest) ++r.first_count;
    }
    out.instances.push_back(f);
  }
  for (std::size_t i = 0; i < figures.size(); ++i) {
    RankFigures& r = figures[i];
    if (r.instances) r.mean_lateness_ns = lateness_sum[i] / static_cast<std::int64_t>(r.instances);
    if (r.skewed_instances)
      r.last_share = static_cast<double>(r.last_count) / static_cast<double>(r.skewed_instances);
    r.cause = cause_of(r);
    if (r.cause == LatenessCause::kCompute && median_peer[i] != SIZE_MAX && ranks[i].summary &&
        ranks[median_peer[i]].summary)
      r.hint = compute_hint(*ranks[i].summary, *ranks[median_peer[i]].summary);
  }
  std::sort(figures.begin(), figures.end(),
            [](const RankFigures& a, const RankFigures& b) { return a.rank < b.rank; });
  const std::vector<std::int32_t> flagged = flagged_ranks(figures, options);
  if (!flagged.empty()) out.stragglers = straggler_item(flagged, out.instances, figures);
  out.ranks = std::move(figures);
  return out;
}

}  // namespace traceprism::multirank
