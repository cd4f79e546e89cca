#include "multirank/collective_pattern_findings.hpp"

#include <algorithm>
#include <cstdio>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "multirank/card_text.hpp"
#include "multirank/multi_rank_tables.hpp"
#include "multirank/robust_stats.hpp"

namespace traceprism::multirank {

namespace {

using model::CollectiveInstance;
using model::CollectiveKind;

double ms(std::int64_t ns) {
  return static_cast<double>(ns) / 1e6;
}

double percent_of(double ns, std::int64_t e2e_ns) {
  return e2e_ns > 0 ? 100.0 * ns / static_cast<double>(e2e_ns) : 0;
}

// Ascending unique ranks as text: runs of three or more as "a-b", joined "x, y and z".
std::string rank_text(const std::vector<std::int32_t>& ranks) {
  std::vector<std::string> items;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (j >= i + 2) {
      items.push_back(std::to_string(ranks[i]) + "-" + std::to_string(ranks[j]));
    } else {
      for (std::size_t k = i; k <= j; ++k) items.push_back(std::to_string(ranks[k]));
    }
    i = j + 1;
  }
  std::string text;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) text += i + 1 == items.size() ? " and " : ", ";
    text += items[i];
  }
  return text;
}

std::string ranks_phrase(const std::vector<std::int32_t>& ranks) {
  return (ranks.size() == 1 ? "rank " : "ranks ") + rank_text(ranks);
}

// The straggler card's rule (cross_rank_findings.cpp): critical ≥ 10, warning ≥ 2, else info.
bool is_p2p(const CollectiveInstance& c) {
  return c.p2p || model::is_point_to_point(c.kind);
}

std::string plural_kind(CollectiveKind kind) {
  return std::string(model::kind_name(kind)) + "s";
}

// ---- small-collectives ----------------------------------------------------------------------

struct SmallKind {
  std::size_t collectives = 0;  // complete ones
  std::int64_t exposed_ns = 0;  // Σ T × x_c
  std::vector<std::int64_t> sizes, transfers;
  std::vector<double> rates;  // per rank: small instances of this kind per step
};

}  // namespace

std::int64_t pattern_message_bytes(const CollectiveInstance& c) {
  if (c.kind != CollectiveKind::kAllToAllV) return collective_message_bytes(c);
  if (c.in_bytes >= 0) return c.in_bytes;
  const int width = model::dtype_bytes(c.dtype);
  if (c.in_nelems >= 0 && width > 0) return c.in_nelems * width;
  return -1;
}

findings::AnalyzerOutcome small_collectives_outcome(std::span<const RankInput> ranks,
                                                    const MatchResult& matches,
                                                    const CrossRankFigures& figures,
                                                    const CrossRankContext& context,
                                                    const CollectivePatternOptions& options) {
  findings::AnalyzerOutcome out = cross_rank_outcome("xrank-small-collectives", context);
  if (out.status == findings::AnalyzerStatus::kSkipped) return out;
  const auto is_small = [&](std::int64_t bytes) {
    return bytes >= 0 && bytes < options.small_message_bytes;
  };
  const RankInstances lookup(ranks);
  std::map<CollectiveKind, SmallKind> kinds;
  std::int64_t exposed_ns = 0;
  std::size_t complete_small = 0;
  for (const InstanceFigures& f : figures.instances) {
    if (f.collective >= matches.collectives.size()) continue;
    const MatchedCollective& m = matches.collectives[f.collective];
    if (m.partition_key.kind == PartitionKind::kPointToPoint) continue;
    const std::vector<const CollectiveInstance*> members = lookup.members(m);
    if (members.empty() || is_p2p(*members.front())) continue;
    std::int64_t bytes = -1;
    for (const CollectiveInstance* c : members) bytes = std::max(bytes, pattern_message_bytes(*c));
    if (!is_small(bytes)) continue;
    const std::int64_t exposed = f.transfer_ns * f.exposure_permille / 1000;
    SmallKind& k = kinds[members.front()->kind];
    ++k.collectives;
    k.exposed_ns += exposed;
    k.sizes.push_back(bytes);
    k.transfers.push_back(f.transfer_ns);
    exposed_ns += exposed;
    ++complete_small;
  }
  // Per rank: small instances in its profiler steps per step (the whole trace as one step for a
  // rank without steps).
  std::vector<std::map<CollectiveKind, std::size_t>> counts;
  std::vector<double> steps_of;
  for (const RankInput& r : ranks) {
    const bool has_steps = r.summary && !r.summary->steps.empty();
    std::map<CollectiveKind, std::size_t> count;
    for (const CollectiveInstance& c : r.instances) {
      if (is_p2p(c) || (has_steps && c.step < 0) || !is_small(pattern_message_bytes(c))) continue;
      ++count[c.kind];
      kinds[c.kind];  // every kind that is small somewhere gets a row
    }
    counts.push_back(std::move(count));
    steps_of.push_back(has_steps ? static_cast<double>(r.summary->steps.size()) : 1.0);
  }
  std::vector<double> rates;
  std::vector<CollectiveKind> counted_kinds;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    std::size_t total = 0;
    for (auto& [kind, k] : kinds) {
      const auto it = counts[i].find(kind);
      const std::size_t n = it == counts[i].end() ? 0 : it->second;
      k.rates.push_back(static_cast<double>(n) / steps_of[i]);
      total += n;
    }
    rates.push_back(static_cast<double>(total) / steps_of[i]);
  }
  for (const auto& [kind, k] : kinds)
    if (median(k.rates) > 0 || k.collectives > 0) counted_kinds.push_back(kind);
  const double per_step = median(rates);
  const double share = percent_of(static_cast<double>(exposed_ns), context.e2e_ns);
  if (per_step < options.min_small_per_step || share < options.min_small_exposed_percent ||
      context.e2e_ns <= 0) {
    out.summary = fixed(per_step, 1) + " small collectives per step, " + fixed(share, 2) +
                  "% of the step exposed";
    return out;
  }
  const std::string what =
      counted_kinds.size() == 1 ? plural_kind(counted_kinds.front()) : "collectives";
  findings::Finding f =
      cross_rank_finding(out, "small-collectives", findings::ImpactKind::kHeuristic);
  f.impact_low = share * 0.25;
  f.impact_mid = share * 0.5;
  f.impact_high = share * 0.75;
  f.share_percent = std::min(100.0, share);
  f.severity = severity_of(f.impact_mid);
  f.title = fixed(per_step, 0) + " small " + what + " per step spend " + fixed(share, 1) +
            "% of the step in latency";
  std::vector<std::int64_t> all_transfers;
  for (const auto& [kind, k] : kinds)
    all_transfers.insert(all_transfers.end(), k.transfers.begin(), k.transfers.end());
  f.insight = "Each rank issues " + fixed(per_step, 1) + " collectives under " +
              fixed(static_cast<double>(options.small_message_bytes) / 1048576.0, 0) +
              " MiB per profiler step (median over the ranks); " + std::to_string(complete_small) +
              " complete ones take " + fixed(static_cast<double>(median(all_transfers)) / 1e3, 1) +
              " µs each (median) and leave " + fixed(ms(exposed_ns), 3) +
              " ms of transfer time with no computation to hide it (" + fixed(share, 2) +
              "% of the focus rank's end-to-end time).";
  f.identification =
      "Collectives whose message (S of §7.2: in bytes, out bytes for all-gather) is under 1 MiB, "
      "counted per profiler step on every rank; their transfer time (the shortest member's "
      "duration) times the median exposure of the members that did not arrive last, once per "
      "matched collective.";
  f.reasoning =
      "Under 1 MiB a collective's time is its fixed latency (launch, protocol handshakes, one "
      "hop per ring or tree step), not its bandwidth: many small collectives pay that latency "
      "many times where one bucket of their total size would pay it about once.";
  f.action =
      "Bucket or coalesce the small collectives: raise DDP's bucket_cap_mb, wrap larger FSDP "
      "units, use coalesced collectives; capture the step in CUDA graphs to take the launch "
      "overhead out of each one.";
  f.resolution = f.action;
  f.metrics = {{"small_per_step", per_step},
               {"exposed_percent", share},
               {"small_collectives", static_cast<double>(complete_small)}};
  findings::DataTable t;
  t.title = "Small collectives by kind";
  t.columns = {"Collective",        "Count / Step",          "Complete", "Median Size (KiB)",
               "Transfer p50 (µs)", "Exposed Transfer (ms)", "% of E2E"};
  std::vector<CollectiveKind> order = counted_kinds;
  std::stable_sort(order.begin(), order.end(), [&](CollectiveKind a, CollectiveKind b) {
    return kinds[a].exposed_ns > kinds[b].exposed_ns;
  });
  for (const CollectiveKind kind : order) {
    const SmallKind& k = kinds[kind];
    t.rows.push_back(
        {model::kind_name(kind), fixed(median(k.rates), 1), std::to_string(k.collectives),
         k.sizes.empty() ? "—" : fixed(static_cast<double>(median(k.sizes)) / 1024.0, 1),
         k.transfers.empty() ? "—" : fixed(static_cast<double>(median(k.transfers)) / 1e3, 1),
         fixed(ms(k.exposed_ns), 3),
         fixed(percent_of(static_cast<double>(k.exposed_ns), context.e2e_ns), 2)});
  }
  f.tables.push_back(std::move(t));
  out.findings.push_back(std::move(f));
  out.summary =
      "small collectives: " + fixed(per_step, 1) + " per step, " + fixed(share, 2) + "% exposed";
  return out;
}

// ---- alltoall-imbalance ---------------------------------------------------------------------

namespace {

struct RankVolume {
  std::size_t instances = 0;
  std::int64_t bytes = 0;
  double ratio_sum = 0;     // Σ own bytes / instance mean
  std::size_t largest = 0;  // instances where it sends the most
};

}  // namespace

findings::AnalyzerOutcome alltoall_imbalance_outcome(
    std::span<const RankInput> ranks, const MatchResult& matches, const CrossRankFigures& figures,
    const std::map<std::int32_t, std::int64_t>& clock_offset_ns, const CrossRankContext& context,
    const CollectivePatternOptions& options) {
  findings::AnalyzerOutcome out = cross_rank_outcome("xrank-alltoall-imbalance", context);
  if (out.status == findings::AnalyzerStatus::kSkipped) return out;
  const RankInstances lookup(ranks);
  std::map<std::int32_t, RankVolume> volumes;
  std::vector<double> imbalances;
  std::int64_t exposed_ns = 0;
  double saving_ns = 0;
  std::size_t unsized = 0;
  for (const InstanceFigures& f : figures.instances) {
    if (f.collective >= matches.collectives.size()) continue;
    const MatchedCollective& m = matches.collectives[f.collective];
    const std::vector<const CollectiveInstance*> members = lookup.members(m);
    if (members.empty() || members.front()->kind != CollectiveKind::kAllToAllV) continue;
    std::vector<std::int64_t> bytes;
    std::int64_t total = 0;
    for (const CollectiveInstance* c : members) {
      bytes.push_back(pattern_message_bytes(*c));
      total += std::max<std::int64_t>(0, bytes.back());
    }
    if (std::any_of(bytes.begin(), bytes.end(), [](std::int64_t b) { return b < 0; }) ||
        total <= 0) {
      ++unsized;
      continue;
    }
    const double mean = static_cast<double>(total) / static_cast<double>(bytes.size());
    const std::int64_t top = *std::max_element(bytes.begin(), bytes.end());
    std::int64_t first_start = INT64_MAX, last_end = INT64_MIN;
    for (std::size_t i = 0; i < members.size(); ++i) {
      const std::int64_t shift = clock_offset_of(clock_offset_ns, m.members[i].rank);
      first_start = std::min(first_start, members[i]->start_ns - shift);
      last_end = std::max(last_end, members[i]->end_ns() - shift);
    }
    const std::int64_t wall = std::max<std::int64_t>(0, last_end - first_start);
    imbalances.push_back(static_cast<double>(top) / mean);
    exposed_ns += wall * f.exposure_permille / 1000;
    saving_ns += static_cast<double>(wall) * (1.0 - mean / static_cast<double>(top)) *
                 static_cast<double>(f.exposure_permille) / 1000.0;
    bool holder_found = false;  // members ascend by rank: the first largest is the lowest rank
    for (std::size_t i = 0; i < members.size(); ++i) {
      RankVolume& v = volumes[m.members[i].rank];
      ++v.instances;
      v.bytes += bytes[i];
      v.ratio_sum += static_cast<double>(bytes[i]) / mean;
      if (!holder_found && bytes[i] == top) {
        ++v.largest;
        holder_found = true;
      }
    }
  }
  const double imbalance = median(imbalances);
  const double share = percent_of(static_cast<double>(exposed_ns), context.e2e_ns);
  if (imbalances.empty() || imbalance < options.min_alltoall_imbalance ||
      share < options.min_alltoall_exposed_percent || context.e2e_ns <= 0) {
    out.summary = imbalances.empty() ? "no all-to-all with uneven splits and known sizes"
                                     : "all-to-all imbalance " + fixed(imbalance, 2) + "x, " +
                                           fixed(share, 2) + "% of the step exposed";
    return out;
  }
  std::size_t most = 0;
  for (const auto& [rank, v] : volumes) most = std::max(most, v.largest);
  std::vector<std::int32_t> heavy;
  for (const auto& [rank, v] : volumes)
    if (v.largest == most) heavy.push_back(rank);
  findings::Finding f =
      cross_rank_finding(out, "alltoall-imbalance", findings::ImpactKind::kQuantified);
  const double e2e = static_cast<double>(context.e2e_ns);
  f.impact_low = 100.0 * 0.5 * saving_ns / e2e;
  f.impact_mid = 100.0 * 0.75 * saving_ns / e2e;
  f.impact_high = 100.0 * saving_ns / e2e;
  f.share_percent = std::min(100.0, f.impact_mid);
  f.severity = severity_of(f.impact_mid);
  f.title =
      "All-to-all volume reaches " + fixed(imbalance, 2) + "× the mean on " + ranks_phrase(heavy);
  f.insight = "In the median of " + std::to_string(imbalances.size()) +
              " all-to-alls with uneven splits the rank that sends most sends " +
              fixed(imbalance, 2) + "× the mean; " + ranks_phrase(heavy) + " send" +
              (heavy.size() == 1 ? "s" : "") + " the most at " + std::to_string(most) +
              " of them. The collectives stay exposed for " + fixed(ms(exposed_ns), 3) + " ms (" +
              fixed(share, 2) + "% of the focus rank's end-to-end time), " +
              fixed(saving_ns / 1e6, 3) + " ms of it beyond what an even split would take.";
  f.identification =
      "Complete alltoallv collectives (all_to_allv, or all_to_all with unequal splits): per "
      "collective, the largest member's in bytes over the mean of the members'; wall time = last "
      "end − first start on the aligned clocks, times the median exposure of the members that "
      "did not arrive last.";
  f.reasoning =
      "An all-to-all finishes when its largest exchange does: with routing that sends more "
      "tokens to some experts, every rank waits for the ranks that hold them, and the part "
      "(1 − mean/max) of the collective is spent on the excess alone.";
  f.action =
      "Balance the router's load (a load-balancing auxiliary loss, capacity-aware or "
      "expert-choice routing) and set the capacity factor so that no expert receives far more "
      "tokens than the mean.";
  f.resolution = f.action;
  f.metrics = {{"median_imbalance", imbalance},
               {"exposed_percent", share},
               {"alltoallv_collectives", static_cast<double>(imbalances.size())},
               {"alltoallv_without_sizes", static_cast<double>(unsized)}};
  findings::DataTable t;
  t.title = "All-to-all volume per rank";
  t.columns = {"Rank", "Mean In (MiB)", "× Collective Mean", "Times Largest", "Collectives"};
  std::vector<std::pair<std::int32_t, const RankVolume*>> order;
  for (const auto& [rank, v] : volumes) order.emplace_back(rank, &v);
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    if (a.second->largest != b.second->largest) return a.second->largest > b.second->largest;
    return a.second->ratio_sum / static_cast<double>(a.second->instances) >
           b.second->ratio_sum / static_cast<double>(b.second->instances);
  });
  if (order.size() > 10) order.resize(10);
  for (const auto& [rank, v] : order) {
    const double n = static_cast<double>(v->instances);
    t.rows.push_back({std::to_string(rank), fixed(static_cast<double>(v->bytes) / n / 1048576.0, 3),
                      fixed(v->ratio_sum / n, 2), std::to_string(v->largest),
                      std::to_string(v->instances)});
  }
  f.tables.push_back(std::move(t));
  out.findings.push_back(std::move(f));
  out.summary = "all-to-all imbalance " + fixed(imbalance, 2) + "x on " + ranks_phrase(heavy);
  return out;
}

// ---- pipeline-wait --------------------------------------------------------------------------

namespace {

struct Receiver {
  std::size_t recvs = 0;
  std::size_t late = 0;  // the sender started after the receive
  std::int64_t wait_ns = 0;
  std::int64_t exposed_wait_ns = 0;
  std::set<std::int32_t> upstream;  // senders it waited for
};

struct Stage {
  std::vector<std::int32_t> ranks;  // receiving ranks, ascending
  std::set<std::int32_t> upstream;
  std::size_t recvs = 0, late = 0;
  std::int64_t wait_ns = 0, exposed_wait_ns = 0;  // per receiving rank (mean)
};

// Union-find over ranks; a set's root is its lowest rank.
class DisjointRanks {
 public:
  std::int32_t find(std::int32_t r) {
    std::int32_t root = r;
    for (auto it = parent_.find(root); it != parent_.end() && it->second != root;
         it = parent_.find(root))
      root = it->second;
    while (r != root) {  // path compression
      std::int32_t& up = parent_[r];
      r = std::exchange(up, root);
    }
    return root;
  }
  void join(std::int32_t a, std::int32_t b) {
    a = find(a);
    b = find(b);
    if (a != b) parent_[std::max(a, b)] = std::min(a, b);
  }

 private:
  std::map<std::int32_t, std::int32_t> parent_;  // ranks absent are their own root
};

}  // namespace

findings::AnalyzerOutcome pipeline_wait_outcome(
    std::span<const RankInput> ranks, const MatchResult& matches,
    const std::map<std::int32_t, std::int64_t>& clock_offset_ns, const CrossRankContext& context,
    const CollectivePatternOptions& options) {
  findings::AnalyzerOutcome out = cross_rank_outcome("xrank-pipeline-wait", context);
  if (out.status == findings::AnalyzerStatus::kSkipped) return out;
  const RankInstances lookup(ranks);
  std::map<std::int32_t, Receiver> receivers;
  std::map<std::int32_t, std::set<std::int32_t>> peers;
  for (const MatchedCollective& m : matches.collectives) {
    const std::optional<PeerTransfer> t = lookup.transfer(m);
    if (!t) continue;
    const MemberRef& send_ref = *t->send_ref;
    const MemberRef& recv_ref = *t->recv_ref;
    const CollectiveInstance* recv = t->recv;
    peers[send_ref.rank].insert(recv_ref.rank);
    peers[recv_ref.rank].insert(send_ref.rank);
    const std::int64_t s_send = t->send->start_ns - clock_offset_of(clock_offset_ns, send_ref.rank);
    const std::int64_t s_recv = recv->start_ns - clock_offset_of(clock_offset_ns, recv_ref.rank);
    // Late sender (§7.4); the wait happens inside the receive, so never longer than it.
    const std::int64_t wait =
        std::clamp<std::int64_t>(s_send - s_recv, 0, std::max<std::int64_t>(0, recv->duration_ns));
    Receiver& r = receivers[recv_ref.rank];
    ++r.recvs;
    if (wait > 0) {
      ++r.late;
      r.upstream.insert(send_ref.rank);
    }
    r.wait_ns += wait;
    r.exposed_wait_ns += wait * exposure_permille(*recv) / 1000;
  }
  // Stages: a collective without a send/receive pair among its members lies within one stage.
  DisjointRanks stages_of;
  for (const MatchedCollective& m : matches.collectives) {
    if (m.partition_key.kind == PartitionKind::kPointToPoint || m.members.size() < 2) continue;
    std::vector<std::int32_t> members;
    for (const MemberRef& ref : m.members) members.push_back(ref.rank);
    std::sort(members.begin(), members.end());
    bool spans_stages = false;
    for (const std::int32_t a : members) {
      const auto it = peers.find(a);
      if (it == peers.end()) continue;
      for (const std::int32_t b : it->second)
        if (std::binary_search(members.begin(), members.end(), b)) spans_stages = true;
    }
    if (spans_stages) continue;
    for (const std::int32_t r : members) stages_of.join(members.front(), r);
  }
  std::map<std::int32_t, Stage> stages;  // by the stage's lowest rank
  for (const auto& [rank, r] : receivers) {
    Stage& s = stages[stages_of.find(rank)];
    s.ranks.push_back(rank);
    s.upstream.insert(r.upstream.begin(), r.upstream.end());
    s.recvs += r.recvs;
    s.late += r.late;
    s.wait_ns += r.wait_ns;
    s.exposed_wait_ns += r.exposed_wait_ns;
  }
  std::vector<Stage> order;
  for (auto& [root, s] : stages) {
    const auto n = static_cast<std::int64_t>(s.ranks.size());
    s.wait_ns /= n;
    s.exposed_wait_ns /= n;
    order.push_back(std::move(s));
  }
  std::stable_sort(order.begin(), order.end(), [](const Stage& a, const Stage& b) {
    return a.exposed_wait_ns > b.exposed_wait_ns;
  });
  const double share =
      order.empty() ? 0 : percent_of(static_cast<double>(order[0].exposed_wait_ns), context.e2e_ns);
  if (order.empty() || share < options.min_pipeline_wait_percent || context.e2e_ns <= 0) {
    out.summary = order.empty() ? "no paired send/receive"
                                : "pipeline wait " + fixed(share, 2) + "% of the step at most";
    return out;
  }
  const Stage& top = order.front();
  const std::vector<std::int32_t> upstream(top.upstream.begin(), top.upstream.end());
  findings::Finding f = cross_rank_finding(out, "pipeline-wait", findings::ImpactKind::kQuantified);
  const double exposed = static_cast<double>(top.exposed_wait_ns);
  f.impact_low = 0.5 * percent_of(exposed, context.e2e_ns);
  f.impact_mid = 0.75 * percent_of(exposed, context.e2e_ns);
  f.impact_high = percent_of(exposed, context.e2e_ns);
  f.share_percent = std::min(100.0, f.impact_mid);
  f.severity = severity_of(f.impact_mid);
  f.title = "Stage of " + ranks_phrase(top.ranks) + " waits " + fixed(share, 1) +
            "% of the step for its upstream stage";
  f.insight = "At " + std::to_string(top.late) + " of its " + std::to_string(top.recvs) +
              " receives the sender (" +
              (upstream.empty() ? std::string("none") : ranks_phrase(upstream)) +
              ") had not started yet: " + fixed(ms(top.exposed_wait_ns), 3) +
              " ms of exposed waiting per rank of the stage (" + fixed(share, 2) +
              "% of the focus rank's end-to-end time).";
  f.identification =
      "Point-to-point pairs (the k-th send a→b with the k-th receive at b from a, per process "
      "group and step); a receive waits for a late sender max(0, send start − receive start) on "
      "the aligned clocks, at most its own duration, times the receive's exposure. Stages: ranks "
      "linked by collectives that contain no send/receive pair.";
  f.reasoning =
      "A late sender means the upstream stage is still computing when this stage is ready to "
      "receive: the stages hold unequal work, or the schedule leaves a bubble that too few "
      "micro-batches cannot fill.";
  f.action =
      "Re-split the pipeline stages so that the upstream stage does less work, raise the number "
      "of micro-batches per step, or use an interleaved (virtual-stage) schedule.";
  f.resolution = f.action;
  f.metrics = {{"exposed_wait_percent", share},
               {"exposed_wait_ms", ms(top.exposed_wait_ns)},
               {"late_sender_receives", static_cast<double>(top.late)}};
  findings::DataTable t;
  t.title = "Late-sender waits per pipeline stage";
  t.columns = {"Stage Ranks",      "Upstream Ranks",           "Receives", "Late Sends",
               "Wait / Rank (ms)", "Exposed Wait / Rank (ms)", "% of E2E"};
  for (std::size_t i = 0; i < order.size() && i < 8; ++i) {
    const Stage& s = order[i];
    t.rows.push_back(
        {rank_text(s.ranks),
         s.upstream.empty()
             ? "—"
             : rank_text(std::vector<std::int32_t>(s.upstream.begin(), s.upstream.end())),
         std::to_string(s.recvs), std::to_string(s.late), fixed(ms(s.wait_ns), 3),
         fixed(ms(s.exposed_wait_ns), 3),
         fixed(percent_of(static_cast<double>(s.exposed_wait_ns), context.e2e_ns), 2)});
  }
  f.tables.push_back(std::move(t));
  out.findings.push_back(std::move(f));
  out.summary = "pipeline wait: stage of " + ranks_phrase(top.ranks);
  return out;
}

}  // namespace traceprism::multirank
