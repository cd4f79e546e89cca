#include "multirank/cross_rank_findings.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

#include "multirank/card_text.hpp"

namespace traceprism::multirank {

namespace {

// The fixed action text per cause (§9.2).
std::string action_for(const Stragglers& s) {
  switch (s.cause) {
    case LatenessCause::kCompute:
      return s.hint == ComputeHint::kMoreWork
                 ? "Rebalance the work of the late rank(s): sharding, MoE capacity, pipeline "
                   "stage split."
                 : "Check the late rank's GPU: clocks, thermals, ECC/XID errors; swap the node "
                   "if it stays slow.";
    case LatenessCause::kHost:
      return "Find what stalls the late rank's host: DataLoader workers, pinned memory, garbage "
             "collection, CPU affinity, noisy neighbours.";
    case LatenessCause::kCommunication:
      return "Check the late rank's other process group: its link, NIC and topology.";
    default:
      return "Compare the late rank's timeline with a median rank's before its collectives.";
  }
}

std::string cause_words(const Stragglers& s) {
  if (s.cause == LatenessCause::kCompute && s.hint != ComputeHint::kNone)
    return std::string("compute: ") + hint_text(s.hint);
  return cause_name(s.cause);
}

// Per rank: the exposed wait its late arrivals cost the others (mid formula, §9.2).
std::int64_t wait_caused_ns(const CrossRankFigures& f, std::int32_t rank) {
  std::int64_t total = 0;
  for (const InstanceFigures& i : f.instances)
    if (i.skewed && i.last_rank == rank) total += i.late_median_ns * i.exposure_permille / 1000;
  return total;
}

findings::DataTable straggler_table(const CrossRankFigures& f, std::span<const RankInput> ranks,
                                    const Stragglers& s) {
  findings::DataTable t;
  t.title = "Ranks that arrive late";
  t.columns = {"Rank",
               "Last Arrivals",
               "% Last",
               "Mean Lateness (µs)",
               "Exposed Wait Caused (ms)",
               "Compute / Step (ms)",
               "GPU Idle %",
               "Cause"};
  // Flagged ranks, then the five latest others.
  std::vector<const RankFigures*> order;
  for (const RankFigures& r : f.ranks) order.push_back(&r);
  std::stable_sort(order.begin(), order.end(), [&](const RankFigures* a, const RankFigures* b) {
    const bool fa = std::binary_search(s.ranks.begin(), s.ranks.end(), a->rank);
    const bool fb = std::binary_search(s.ranks.begin(), s.ranks.end(), b->rank);
    if (fa != fb) return fa;
    return a->mean_lateness_ns > b->mean_lateness_ns;
  });
  if (order.size() > s.ranks.size() + 5) order.resize(s.ranks.size() + 5);
  for (const RankFigures* r : order) {
    const RankSummary* summary = nullptr;
    for (const RankInput& in : ranks)
      if (in.rank == r->rank) summary = in.summary;
    const double compute_ms =
        summary ? static_cast<double>(mean_step_compute_ns(*summary)) / 1e6 : 0;
    const double idle_pct = summary ? gpu_idle_percent(*summary) : 0;
    t.rows.push_back({std::to_string(r->rank), std::to_string(r->last_count),
                      fixed(100.0 * r->last_share, 1),
                      fixed(static_cast<double>(r->mean_lateness_ns) / 1e3, 1),
                      fixed(static_cast<double>(wait_caused_ns(f, r->rank)) / 1e6, 3),
                      fixed(compute_ms, 3), fixed(idle_pct, 2), cause_name(r->cause)});
  }
  return t;
}

}  // namespace

findings::AnalyzerOutcome cross_rank_outcome(const char* name, const CrossRankContext& context) {
  findings::AnalyzerOutcome out;
  out.name = name;
  out.plugin = "host";
  out.plugin_version = TRACEPRISM_VERSION;
  const bool covered = context.world_size <= 0 ||
                       2 * static_cast<std::int64_t>(context.loaded_ranks) >= context.world_size;
  if (!covered && !context.allow_partial) {
    out.status = findings::AnalyzerStatus::kSkipped;
    out.error = std::to_string(context.loaded_ranks) + " of " + std::to_string(context.world_size) +
                " ranks analysed, below half the job; --allow-partial reports cross-rank items "
                "anyway.";
  }
  return out;
}

findings::Finding cross_rank_finding(const findings::AnalyzerOutcome& out, const char* key,
                                     findings::ImpactKind impact_kind) {
  findings::Finding f;
  f.analyzer = out.name;
  f.plugin = out.plugin;
  f.plugin_version = out.plugin_version;
  f.tier = findings::Tier::kSystem;
  f.category = "multi_rank";
  f.key = key;
  f.impact_kind = impact_kind;
  return f;
}

findings::AnalyzerOutcome arrival_jitter_outcome(const CrossRankFigures& figures,
                                                 const CrossRankContext& context,
                                                 double min_wait_percent) {
  findings::AnalyzerOutcome out = cross_rank_outcome("xrank-arrival-jitter", context);
  if (out.status == findings::AnalyzerStatus::kSkipped) return out;
  std::int64_t exposed_wait = 0;
  for (const RankFigures& r : figures.ranks) exposed_wait += r.exposed_wait_ns;
  const double wait_percent = context.sum_e2e_ns > 0 ? 100.0 * static_cast<double>(exposed_wait) /
                                                           static_cast<double>(context.sum_e2e_ns)
                                                     : 0;
  if (figures.stragglers || wait_percent < min_wait_percent || context.e2e_ns <= 0) {
    out.summary = "collective waits " + fixed(wait_percent, 2) + "% of the ranks' time";
    return out;
  }
  std::int64_t low = 0, mid = 0, high = 0;
  std::size_t skewed = 0;
  for (const InstanceFigures& i : figures.instances) {
    if (!i.skewed) continue;
    ++skewed;
    low += low_late_arrival_ns(i) * i.exposure_permille / 1000;
    mid += i.late_median_ns * i.exposure_permille / 1000;
    high += i.arrival_skew_ns * i.exposure_permille / 1000;
  }
  const double e2e = static_cast<double>(context.e2e_ns);
  findings::Finding f =
      cross_rank_finding(out, "arrival-jitter", findings::ImpactKind::kQuantified);
  f.impact_low = 100.0 * static_cast<double>(low) / e2e;
  f.impact_mid = 100.0 * static_cast<double>(mid) / e2e;
  f.impact_high = 100.0 * static_cast<double>(high) / e2e;
  f.share_percent = std::min(100.0, f.impact_mid);
  f.severity = severity_of(f.impact_mid);
  f.title =
      "Collective arrival skew costs " + fixed(wait_percent, 1) + "% without a single straggler";
  f.insight = "Ranks reach " + std::to_string(skewed) + " of " +
              std::to_string(figures.instances.size()) +
              " matched collectives apart and no rank is last most of the time; the others wait " +
              fixed(static_cast<double>(exposed_wait) / 1e6, 3) +
              " ms in all with no computation to hide it (" + fixed(wait_percent, 2) +
              "% of the ranks' summed time).";
  f.identification =
      "Per collective, the arrival skew across its members; no rank is last often enough, or "
      "late enough, to be a straggler.";
  f.reasoning =
      "Waiting that moves from rank to rank is jitter before the collectives: host work or syncs "
      "of varying length, unpinned threads, small buckets that make the ranks meet often.";
  f.action =
      "Keep host syncs (.item(), prints, logging) out of the code before collectives, pin CPU "
      "threads, and use larger gradient buckets so that ranks meet less often.";
  f.resolution = f.action;
  f.metrics = {{"collective_wait_percent", wait_percent},
               {"skewed_collectives", static_cast<double>(skewed)}};
  out.findings.push_back(std::move(f));
  out.summary = "arrival jitter: " + fixed(wait_percent, 2) + "% waiting";
  return out;
}

findings::AnalyzerOutcome straggler_outcome(const CrossRankFigures& figures,
                                            std::span<const RankInput> ranks,
                                            const CrossRankContext& context) {
  findings::AnalyzerOutcome out = cross_rank_outcome("xrank-straggler", context);
  if (out.status == findings::AnalyzerStatus::kSkipped) return out;
  if (!figures.stragglers || context.e2e_ns <= 0) {
    out.summary = "no rank arrives last at most collectives";
    return out;
  }
  const Stragglers& s = *figures.stragglers;
  double share = 0;
  for (const RankFigures& r : figures.ranks)
    if (std::binary_search(s.ranks.begin(), s.ranks.end(), r.rank))
      share = std::max(share, r.last_share);
  const double e2e = static_cast<double>(context.e2e_ns);
  findings::Finding f = cross_rank_finding(out, "straggler", findings::ImpactKind::kQuantified);
  f.impact_low = 100.0 * static_cast<double>(s.impact_low_ns) / e2e;
  f.impact_mid = 100.0 * static_cast<double>(s.impact_mid_ns) / e2e;
  f.impact_high = 100.0 * static_cast<double>(s.impact_high_ns) / e2e;
  f.share_percent = std::min(100.0, f.impact_mid);
  f.severity = severity_of(f.impact_mid);
  f.title = std::string(s.ranks.size() == 1 ? "Rank " : "Ranks ") + rank_list(s.ranks) + " arrive" +
            (s.ranks.size() == 1 ? "s" : "") + " last at " + fixed(100.0 * share, 0) +
            "% of collectives (" + cause_words(s) + ")";
  f.insight = "The other ranks wait for " + std::string(s.ranks.size() == 1 ? "it" : "them") +
              " in every collective it is last at: " +
              fixed(static_cast<double>(s.impact_mid_ns) / 1e6, 3) +
              " ms of exposed waiting past the median arrival (" + fixed(f.impact_mid, 2) +
              "% of the focus rank's end-to-end time).";
  f.identification = "Matched collectives across " + std::to_string(figures.ranks.size()) +
                     " ranks; the last arriver of each skewed instance (arrival skew at least "
                     "10 µs and 5% of its transfer time).";
  f.reasoning =
      "Lateness against the median-arriving rank, split into its compute, host and "
      "communication time since the step start: " +
      std::string(cause_name(s.cause)) + " explains at least half of it.";
  f.action = action_for(s);
  f.resolution = f.action;
  f.metrics = {{"last_share_percent", 100.0 * share},
               {"impact_mid_ms", static_cast<double>(s.impact_mid_ns) / 1e6}};
  f.tables.push_back(straggler_table(figures, ranks, s));
  out.findings.push_back(std::move(f));
  out.summary = "straggler: rank(s) " + rank_list(s.ranks);
  return out;
}

}  // namespace traceprism::multirank
