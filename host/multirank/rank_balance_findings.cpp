#include "multirank/rank_balance_findings.hpp"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "multirank/card_text.hpp"
#include "multirank/rank_summary.hpp"
#include "multirank/robust_stats.hpp"

namespace traceprism::multirank {

namespace {

std::string capitalised(std::string text) {
  if (!text.empty() && text[0] >= 'a' && text[0] <= 'z') text[0] = static_cast<char>(text[0] - 32);
  return text;
}

double ms(std::int64_t ns) {
  return static_cast<double>(ns) / 1e6;
}

bool contains(const std::vector<std::int32_t>& sorted, std::int32_t rank) {
  return std::binary_search(sorted.begin(), sorted.end(), rank);
}

// One rank's GPU time: its profiler steps with a GPU span (the whole trace without steps). The
// idle % and compute per step are the rank summary's own figures, the ones the straggler card's
// table shows.
struct RankTime {
  std::int32_t rank = -1;
  std::size_t steps = 0;     // steps with a GPU span
  std::int64_t span_ns = 0;  // Σ of those spans, or the whole trace's
  double idle_pct = 0;       // gpu_idle_percent
  std::int64_t compute_per_step_ns = 0;
};

bool has_span(const ActivityTotals& t) {
  return t.gpu_start_ns >= 0 && t.gpu_end_ns > t.gpu_start_ns;
}

RankTime rank_time(const RankInput& input) {
  RankTime t;
  t.rank = input.rank;
  if (!input.summary) return t;
  const RankSummary& summary = *input.summary;
  for (const StepSummary& step : summary.steps) {
    if (!has_span(step.totals)) continue;
    ++t.steps;
    t.span_ns += step.totals.gpu_end_ns - step.totals.gpu_start_ns;
  }
  if (summary.steps.empty() && has_span(summary.profile.totals))
    t.span_ns = summary.profile.totals.gpu_end_ns - summary.profile.totals.gpu_start_ns;
  t.idle_pct = gpu_idle_percent(summary);
  t.compute_per_step_ns = mean_step_compute_ns(summary);
  return t;
}

// Rank times of the ranks with GPU time, ascending rank.
std::vector<RankTime> rank_times(std::span<const RankInput> ranks) {
  std::vector<RankTime> out;
  for (const RankInput& in : ranks) {
    RankTime t = rank_time(in);
    if (t.span_ns > 0) out.push_back(t);
  }
  std::sort(out.begin(), out.end(),
            [](const RankTime& a, const RankTime& b) { return a.rank < b.rank; });
  return out;
}

// ---- idle-outlier ----

struct IdleRow {
  RankTime time;
  double idle_pct = 0;
  std::int32_t node = -1;  // -1: not in node_of_rank
  // Against the median of its peers: all ranks, or the other nodes' ranks for a flagged node.
  double peer_median = 0, excess_pp = 0, z = 0;
  bool outlier = false;            // passes the test it is reported under
  bool absorbed = false;           // a host-caused straggler: its card reports it
  std::int32_t flagged_node = -1;  // reported as part of this node
};

// One subject of the card: a rank, or a node whose ranks idle more than the other nodes'.
struct IdleSubject {
  std::int32_t node = -1;  // -1: a single rank
  std::vector<std::int32_t> ranks;
  double idle_pct = 0;  // the rank's, or the median of the node's ranks'
  double peer_median = 0;
  double excess_pp = 0;
  double z = 0;  // the rank's; for a node the median of its ranks'
};

struct PeerStats {
  double median = 0, mad = 0;
};

// The ranks of the other nodes (and those of no known node).
PeerStats peer_stats(const std::vector<IdleRow>& rows, std::int32_t excluded_node) {
  std::vector<double> values;
  for (const IdleRow& r : rows)
    if (r.node != excluded_node) values.push_back(r.idle_pct);
  return {median(values), median_absolute_deviation(values)};
}

bool idle_outlier(double value, const PeerStats& peers, const RankBalanceOptions& o, double* excess,
                  double* z) {
  *excess = value - peers.median;
  *z = robust_z(value, peers.median, peers.mad, o.idle_z_floor_pp);
  return *excess >= o.min_idle_excess_pp && *z >= o.min_z;
}

std::string subject_name(const IdleSubject& s) {
  if (s.node < 0) return "rank " + std::to_string(s.ranks.front());
  return "node " + std::to_string(s.node) + " (ranks " + rank_list(s.ranks) + ")";
}

bool flagged(const IdleRow& r) {
  return r.outlier || r.absorbed || r.flagged_node >= 0;
}

findings::DataTable idle_table(const std::vector<IdleRow>& rows) {
  findings::DataTable t;
  t.title = "Ranks that idle most";
  t.columns = {"Rank",          "Node",        "Steps",    "GPU Idle %",
               "Peer Median %", "Excess (pp)", "Robust z", "Flag"};
  // Outliers (reported, then merged), then the five idlest others.
  std::vector<const IdleRow*> order;
  for (const IdleRow& r : rows) order.push_back(&r);
  std::stable_sort(order.begin(), order.end(), [](const IdleRow* a, const IdleRow* b) {
    if (flagged(*a) != flagged(*b)) return flagged(*a);
    if (a->absorbed != b->absorbed) return b->absorbed;
    return a->idle_pct > b->idle_pct;
  });
  std::size_t outliers = 0;
  for (const IdleRow* r : order) outliers += flagged(*r) ? 1 : 0;
  if (order.size() > outliers + 5) order.resize(outliers + 5);
  for (const IdleRow* r : order) {
    std::string flag;
    if (r->absorbed)
      flag = "host straggler (in its card)";
    else if (r->flagged_node >= 0)
      flag = "node " + std::to_string(r->flagged_node);
    else if (r->outlier)
      flag = "outlier";
    t.rows.push_back({std::to_string(r->time.rank), r->node < 0 ? "" : std::to_string(r->node),
                      std::to_string(r->time.steps), fixed(r->idle_pct, 2),
                      fixed(r->peer_median, 2), fixed(r->excess_pp, 2), fixed(r->z, 1), flag});
  }
  return t;
}

// ---- step-imbalance ----

struct StepRow {
  RankTime time;
  std::int64_t mean_step_ns = 0;
  double ratio = 0;  // mean step / median step
  double z = 0;
  bool outlier = false;
};

findings::DataTable step_table(const std::vector<StepRow>& rows) {
  findings::DataTable t;
  t.title = "Step time per rank";
  t.columns = {"Rank",       "Steps",    "Mean Step (ms)",
               "× Median",   "Robust z", "Compute / Step (ms)",
               "GPU Idle %", "Flag"};
  std::vector<const StepRow*> order;
  for (const StepRow& r : rows) order.push_back(&r);
  std::stable_sort(order.begin(), order.end(), [](const StepRow* a, const StepRow* b) {
    if (a->outlier != b->outlier) return a->outlier;
    return a->mean_step_ns > b->mean_step_ns;
  });
  std::size_t outliers = 0;
  for (const StepRow* r : order) outliers += r->outlier ? 1 : 0;
  if (order.size() > outliers + 5) order.resize(outliers + 5);
  for (const StepRow* r : order) {
    t.rows.push_back({std::to_string(r->time.rank), std::to_string(r->time.steps),
                      fixed(ms(r->mean_step_ns), 3), fixed(r->ratio, 3), fixed(r->z, 1),
                      fixed(ms(r->time.compute_per_step_ns), 3), fixed(r->time.idle_pct, 2),
                      r->outlier ? "slow" : ""});
  }
  return t;
}

}  // namespace

findings::AnalyzerOutcome idle_outlier_outcome(
    std::span<const RankInput> ranks, const CrossRankFigures& figures,
    const std::map<std::int32_t, std::int32_t>& node_of_rank, const CrossRankContext& context,
    const RankBalanceOptions& options) {
  findings::AnalyzerOutcome out = cross_rank_outcome("xrank-idle-outlier", context);
  if (out.status == findings::AnalyzerStatus::kSkipped) return out;
  std::vector<IdleRow> rows;
  for (const RankTime& t : rank_times(ranks)) {
    IdleRow r;
    r.time = t;
    r.idle_pct = t.idle_pct;
    if (const auto node = node_of_rank.find(t.rank); node != node_of_rank.end())
      r.node = node->second;
    rows.push_back(r);
  }
  if (rows.size() < options.min_ranks) {
    out.summary = std::to_string(rows.size()) + " rank(s) with GPU time, fewer than " +
                  std::to_string(options.min_ranks) + ": no outlier test";
    return out;
  }
  std::vector<std::int32_t> host_stragglers;
  if (figures.stragglers && figures.stragglers->cause == LatenessCause::kHost)
    host_stragglers = figures.stragglers->ranks;
  std::sort(host_stragglers.begin(), host_stragglers.end());

  // Nodes first: against the ranks of the other nodes, so a whole node idling more does not
  // pull the median it is measured against.
  std::map<std::int32_t, std::vector<std::size_t>> rows_of_node;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i].node >= 0) rows_of_node[rows[i].node].push_back(i);
  std::vector<IdleSubject> subjects;
  std::vector<bool> in_node(rows.size(), false);
  std::vector<std::int32_t> merged;  // outliers left to the straggler card
  for (const auto& [node, members] : rows_of_node) {
    const std::size_t peers = rows.size() - members.size();
    if (members.size() < 2 || peers < options.min_node_peers) continue;
    const PeerStats stats = peer_stats(rows, node);
    std::size_t high = 0;
    bool all_absorbed = true;
    std::vector<double> excesses(members.size()), zs(members.size()), idles;
    std::vector<bool> passes(members.size());
    for (std::size_t k = 0; k < members.size(); ++k) {
      const IdleRow& r = rows[members[k]];
      passes[k] = idle_outlier(r.idle_pct, stats, options, &excesses[k], &zs[k]);
      if (!passes[k]) continue;
      ++high;
      if (!contains(host_stragglers, r.time.rank)) all_absorbed = false;
      idles.push_back(r.idle_pct);
    }
    if (static_cast<double>(high) <
        options.min_node_rank_share * static_cast<double>(members.size()) - 1e-9)
      continue;
    // A node whose outliers are all host-caused stragglers is the straggler card's; its ranks
    // are then tested (and merged) one by one below.
    if (all_absorbed) continue;
    IdleSubject s;
    s.node = node;
    idles.clear();
    for (std::size_t k = 0; k < members.size(); ++k) {
      IdleRow& r = rows[members[k]];
      s.ranks.push_back(r.time.rank);
      in_node[members[k]] = true;
      r.flagged_node = node;
      r.peer_median = stats.median;
      r.excess_pp = excesses[k];
      r.z = zs[k];
      r.outlier = passes[k];
      idles.push_back(r.idle_pct);
    }
    s.idle_pct = median(idles);
    s.peer_median = stats.median;
    s.excess_pp = s.idle_pct - stats.median;
    s.z = median(zs);
    subjects.push_back(std::move(s));
  }

  // Then single ranks, against the ranks of no reported node (all of them when fewer than
  // min_ranks would be left), so a node idling more does not hide a rank elsewhere.
  std::vector<double> values;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (!in_node[i]) values.push_back(rows[i].idle_pct);
  if (values.size() < options.min_ranks) {
    values.clear();
    for (const IdleRow& r : rows) values.push_back(r.idle_pct);
  }
  const std::size_t peer_count = values.size();
  const PeerStats all{median(values), median_absolute_deviation(values)};
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (in_node[i]) continue;
    IdleRow& r = rows[i];
    r.peer_median = all.median;
    r.outlier = idle_outlier(r.idle_pct, all, options, &r.excess_pp, &r.z);
    if (!r.outlier) continue;
    if (contains(host_stragglers, r.time.rank)) {
      r.absorbed = true;
      merged.push_back(r.time.rank);
      continue;
    }
    subjects.push_back({-1, {r.time.rank}, r.idle_pct, all.median, r.excess_pp, r.z});
  }
  std::sort(merged.begin(), merged.end());
  merged.erase(std::unique(merged.begin(), merged.end()), merged.end());

  if (subjects.empty()) {
    out.summary = merged.empty() ? "no rank idles " + fixed(options.min_idle_excess_pp, 0) +
                                       " pp more than its peers"
                                 : "idle outlier(s) " + rank_list(merged) +
                                       " reported in the host-caused straggler card";
    return out;
  }
  std::stable_sort(
      subjects.begin(), subjects.end(),
      [](const IdleSubject& a, const IdleSubject& b) { return a.excess_pp > b.excess_pp; });
  const IdleSubject& top = subjects.front();
  const bool one = subjects.size() == 1;
  std::vector<std::string> names;
  std::vector<std::int32_t> subject_ranks, nodes, lone;
  for (const IdleSubject& s : subjects) {
    names.push_back(subject_name(s));
    subject_ranks.insert(subject_ranks.end(), s.ranks.begin(), s.ranks.end());
    if (s.node >= 0)
      nodes.push_back(s.node);
    else
      lone.push_back(s.ranks.front());
  }
  std::sort(subject_ranks.begin(), subject_ranks.end());
  std::sort(nodes.begin(), nodes.end());
  std::sort(lone.begin(), lone.end());
  std::string who;
  if (one) {
    who = subject_name(top);
  } else {
    std::vector<std::string> ordered;  // nodes first, then ranks, each ascending
    for (const std::int32_t n : nodes) ordered.push_back("node " + std::to_string(n));
    if (!lone.empty()) ordered.push_back((lone.size() == 1 ? "rank " : "ranks ") + rank_list(lone));
    who = joined_words(ordered);
  }
  who = capitalised(who);
  findings::Finding f =
      cross_rank_finding(out, "idle-outlier", findings::ImpactKind::kNotQuantifiable);
  f.share_percent = std::min(100.0, top.excess_pp);
  f.severity = top.excess_pp >= 10 ? findings::Severity::kCritical : findings::Severity::kWarning;
  f.title = who + (one ? " idles " : " idle up to ") + fixed(top.excess_pp, 1) + " pp more than " +
            (one ? "its" : "their") + " peers";
  std::vector<std::string> details;
  for (const IdleSubject& s : subjects)
    details.push_back(subject_name(s) + " " + fixed(s.idle_pct, 1) + "% against " +
                      fixed(s.peer_median, 1) + "% on its peers (+" + fixed(s.excess_pp, 1) +
                      " pp, robust z " + fixed(s.z, 1) + ")");
  f.insight = "GPU idle as a share of the step: " + joined_words(details) +
              ". A rank is measured against the " + std::to_string(peer_count) +
              " ranks outside idle nodes, a node against the ranks of the other nodes. Idle "
              "time on one rank makes the others wait for it at the collectives they share or, "
              "without collectives, lengthens its own steps.";
  if (!merged.empty())
    f.insight += " Rank(s) " + rank_list(merged) +
                 " idle as much but arrive late at collectives because of it: the straggler card "
                 "reports them.";
  f.identification =
      "Per rank, GPU idle time as a share of the GPU span of its profiler steps (the whole trace "
      "without steps). A node is an outlier when at least " +
      fixed(100 * options.min_node_rank_share, 0) + "% of its ranks idle at least " +
      fixed(options.min_idle_excess_pp, 0) +
      " pp more than the median of the other nodes' ranks with a robust z of at least " +
      fixed(options.min_z, 1) + " (1.4826 × MAD, floor " + fixed(options.idle_z_floor_pp, 0) +
      " pp); a rank elsewhere when it passes the same test against the ranks outside such "
      "nodes.";
  f.reasoning =
      "GPU idle inside a step is time the host did not keep the GPU fed: input loading, host-side "
      "work or synchronisation, garbage collection, a CPU shared with other processes. When one "
      "rank or one node idles more than the rest, running the same model, its host is the "
      "difference.";
  f.action =
      "Find what stalls the host of the idle rank(s): DataLoader workers, pinned memory, garbage "
      "collection (GC), CPU affinity, noisy neighbours.";
  f.resolution = f.action;
  f.metrics = {{"idle_excess_pp", top.excess_pp},
               {"median_idle_percent", top.peer_median},
               {"outlier_ranks", static_cast<double>(subject_ranks.size())}};
  f.tables.push_back(idle_table(rows));
  out.findings.push_back(std::move(f));
  out.summary = "idle outlier: " + joined_words(names);
  return out;
}

findings::AnalyzerOutcome step_imbalance_outcome(std::span<const RankInput> ranks,
                                                 const CrossRankFigures& figures,
                                                 const CrossRankContext& context,
                                                 const RankBalanceOptions& options) {
  findings::AnalyzerOutcome out = cross_rank_outcome("xrank-step-imbalance", context);
  if (out.status == findings::AnalyzerStatus::kSkipped) return out;
  if (!figures.instances.empty()) {
    out.summary =
        "the ranks meet at " + std::to_string(figures.instances.size()) + " complete collective(s)";
    return out;
  }
  std::vector<StepRow> rows;
  for (const RankTime& t : rank_times(ranks)) {
    if (t.steps == 0) continue;  // a step time needs steps
    StepRow r;
    r.time = t;
    r.mean_step_ns = t.span_ns / static_cast<std::int64_t>(t.steps);
    rows.push_back(r);
  }
  if (rows.size() < options.min_ranks) {
    out.summary = std::to_string(rows.size()) + " rank(s) with profiler steps, fewer than " +
                  std::to_string(options.min_ranks) + ": no outlier test";
    return out;
  }
  std::vector<std::int64_t> steps;
  for (const StepRow& r : rows) steps.push_back(r.mean_step_ns);
  const std::int64_t center = median(steps);
  const std::int64_t mad = median_absolute_deviation(steps);
  const double floor = options.step_z_floor_share * static_cast<double>(center);
  std::vector<std::int32_t> slow;
  double top_ratio = 0;
  double top_z = 0;
  for (StepRow& r : rows) {
    r.ratio = center > 0 ? static_cast<double>(r.mean_step_ns) / static_cast<double>(center) : 0;
    r.z = robust_z(static_cast<double>(r.mean_step_ns), static_cast<double>(center),
                   static_cast<double>(mad), floor);
    r.outlier = center > 0 && r.ratio >= options.min_step_ratio && r.z >= options.min_z;
    if (!r.outlier) continue;
    slow.push_back(r.time.rank);
    if (r.ratio > top_ratio) top_ratio = r.ratio, top_z = r.z;
  }
  if (slow.empty()) {
    out.summary = "no rank steps " + fixed(100 * (options.min_step_ratio - 1), 0) +
                  "% slower than the median";
    return out;
  }
  const double slower = 100.0 * (top_ratio - 1);
  const bool one = slow.size() == 1;
  findings::Finding f =
      cross_rank_finding(out, "step-imbalance", findings::ImpactKind::kNotQuantifiable);
  f.share_percent = std::min(100.0, slower);
  f.severity = slower >= 25 ? findings::Severity::kCritical : findings::Severity::kWarning;
  f.title = std::string(one ? "Rank " : "Ranks ") + rank_list(slow) +
            (one ? " steps " : " step up to ") + fixed(slower, 0) +
            "% slower than the median (ranks do not synchronise)";
  std::vector<std::string> details;
  for (const StepRow& r : rows)
    if (r.outlier)
      details.push_back("rank " + std::to_string(r.time.rank) + " " + fixed(ms(r.mean_step_ns), 3) +
                        " ms (" + fixed(r.ratio, 2) + "×, robust z " + fixed(r.z, 1) + ")");
  f.insight = "Mean GPU step: " + joined_words(details) + ", against a median of " +
              fixed(ms(center), 3) + " ms over " + std::to_string(rows.size()) +
              " ranks. No collective was matched complete across the ranks, so the others do not "
              "wait for " +
              (one ? "it" : "them") +
              " inside a step; the job still finishes with its slowest rank.";
  f.identification =
      "Per rank, the mean GPU span of its profiler steps against the median over the ranks with "
      "steps: at least " +
      fixed(options.min_step_ratio, 2) + "× it with a robust z of at least " +
      fixed(options.min_z, 1) + " (1.4826 × MAD, floor " +
      fixed(100 * options.step_z_floor_share, 0) +
      "% of the median step); only when no collective instance is complete across the ranks "
      "(otherwise the straggler analysis applies).";
  f.reasoning =
      "Ranks that never meet at a collective do not wait for each other, so a slower rank shows "
      "no late arrivals, only longer steps: more work assigned to it (uneven sharding, MoE "
      "routing, a heavier pipeline stage) or a slower GPU.";
  f.action =
      "Rebalance the work across ranks (sharding, MoE capacity, pipeline stage split), and check "
      "the slow rank's GPU: clocks, thermals.";
  f.resolution = f.action;
  f.metrics = {{"slowdown_percent", slower},
               {"median_step_ms", ms(center)},
               {"robust_z", top_z},
               {"slow_ranks", static_cast<double>(slow.size())}};
  f.tables.push_back(step_table(rows));
  out.findings.push_back(std::move(f));
  out.summary = "step imbalance: rank(s) " + rank_list(slow);
  return out;
}

}  // namespace traceprism::multirank
