#include "multirank/clock_alignment.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

#include "multirank/robust_stats.hpp"
#include "multirank/saturating.hpp"

namespace traceprism::multirank {

namespace {

std::int64_t saturating_mul(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  if (!__builtin_mul_overflow(a, b, &out)) return out;
  return (a < 0) != (b < 0) ? kInt64Min : kInt64Max;
}

std::int64_t saturating_abs(std::int64_t v) {
  if (v == kInt64Min) return kInt64Max;
  return v < 0 ? -v : v;
}

// "12.3 µs", truncated toward zero: warnings only.
std::string micros(std::int64_t ns) {
  const std::int64_t magnitude = saturating_abs(ns);
  return std::string(ns < 0 ? "-" : "") + std::to_string(magnitude / 1000) + "." +
         std::to_string(magnitude % 1000 / 100) + " µs";
}

// One node's members of one instance.
struct NodeTimes {
  std::int32_t node = -1;
  std::int64_t median_end = 0;
  std::int64_t max_start = 0;
  std::int64_t min_end = 0;
};

struct InstanceNodes {
  std::uint64_t key_hash = 0;
  std::vector<NodeTimes> nodes;  // ascending node
};

using RankAndTimes = std::pair<std::int32_t, MemberTimes>;  // (node, member)

// Members with a known node, ascending (node, rank).
std::vector<RankAndTimes> mapped_members(const CompleteInstance& instance,
                                         const std::map<std::int32_t, std::int32_t>& node_of) {
  std::vector<RankAndTimes> out;
  for (const MemberTimes& m : instance.members)
    if (const auto it = node_of.find(m.rank); it != node_of.end()) out.emplace_back(it->second, m);
  std::sort(out.begin(), out.end(), [](const RankAndTimes& a, const RankAndTimes& b) {
    return std::tie(a.first, a.second.rank) < std::tie(b.first, b.second.rank);
  });
  return out;
}

InstanceNodes per_node(const CompleteInstance& instance,
                       const std::map<std::int32_t, std::int32_t>& node_of) {
  InstanceNodes out{instance.key_hash, {}};
  const std::vector<RankAndTimes> members = mapped_members(instance, node_of);
  for (std::size_t first = 0; first < members.size();) {
    std::size_t last = first;
    NodeTimes t{members[first].first, 0, kInt64Min, kInt64Max};
    std::vector<std::int64_t> ends;
    for (; last < members.size() && members[last].first == t.node; ++last) {
      t.max_start = std::max(t.max_start, members[last].second.start_ns);
      t.min_end = std::min(t.min_end, members[last].second.end_ns);
      ends.push_back(members[last].second.end_ns);
    }
    t.median_end = median(std::move(ends));
    out.nodes.push_back(t);
    first = last;
  }
  return out;
}

const NodeTimes* find_node(const InstanceNodes& instance, std::int32_t node) {
  const auto it = std::lower_bound(instance.nodes.begin(), instance.nodes.end(), node,
                                   [](const NodeTimes& t, std::int32_t n) { return t.node < n; });
  return it != instance.nodes.end() && it->node == node ? &*it : nullptr;
}

// Sampling stride M of step 2: every M-th instance by key hash keeps a node pair's samples at
// about `max_samples`.
std::uint64_t sampling_stride(std::size_t count, std::size_t max_samples) {
  const std::size_t cap = std::max<std::size_t>(1, max_samples);
  return std::max<std::uint64_t>(1, (count + cap - 1) / cap);
}

// Node j's clock against node k: median δ of sampled shared instances, clamped into the
// rendezvous bound over all shared instances (§6 steps 1–3).
struct Edge {
  std::int64_t offset = 0;
  std::int64_t mad = 0;
  std::size_t samples = 0;
  std::size_t shared = 0;
  bool bound_consistent = true;
  bool clamped = false;
};

Edge estimate_edge(const std::vector<InstanceNodes>& all, std::int32_t j, std::int32_t k,
                   const ClockOptions& options) {
  Edge edge;
  std::vector<std::pair<const NodeTimes*, const NodeTimes*>> shared;  // (on j, on k)
  std::vector<std::uint64_t> hashes;
  for (const InstanceNodes& instance : all) {
    const NodeTimes* on_j = find_node(instance, j);
    const NodeTimes* on_k = find_node(instance, k);
    if (!on_j || !on_k) continue;
    shared.emplace_back(on_j, on_k);
    hashes.push_back(instance.key_hash);
  }
  edge.shared = shared.size();
  const std::uint64_t stride = sampling_stride(shared.size(), options.max_samples_per_pair);
  std::int64_t lower = kInt64Min;
  std::int64_t upper = kInt64Max;
  std::vector<std::int64_t> deltas;
  for (std::size_t i = 0; i < shared.size(); ++i) {
    const auto [on_j, on_k] = shared[i];
    lower = std::max(lower, saturating_sub(on_j->max_start, on_k->min_end));
    upper = std::min(upper, saturating_sub(on_j->min_end, on_k->max_start));
    if (hashes[i] % stride == 0)
      deltas.push_back(saturating_sub(on_j->median_end, on_k->median_end));
  }
  edge.samples = deltas.size();
  edge.offset = median(deltas);
  edge.mad = median_absolute_deviation(deltas);
  edge.bound_consistent = lower <= upper;
  if (edge.bound_consistent && !shared.empty()) {
    const std::int64_t clamped = std::clamp(edge.offset, lower, upper);
    edge.clamped = clamped != edge.offset;
    edge.offset = clamped;
  }
  return edge;
}

// Step 4's significance test.
bool significant(std::int64_t offset, const Edge& edge, const ClockOptions& options) {
  const std::int64_t threshold =
      std::max(options.min_offset_ns, saturating_mul(options.mad_factor, edge.mad));
  return edge.samples >= options.min_samples && saturating_abs(offset) > threshold;
}

class Estimator {
 public:
  Estimator(std::span<const CompleteInstance> instances,
            const std::map<std::int32_t, std::int32_t>& node_of, const ClockOptions& options)
      : instances_(instances), node_of_(node_of), options_(options) {
    for (const CompleteInstance& instance : instances)
      summaries_.push_back(per_node(instance, node_of));
    for (const auto& [rank, node] : node_of) out_.nodes.push_back({node});
    std::sort(out_.nodes.begin(), out_.nodes.end(),
              [](const auto& a, const auto& b) { return a.node < b.node; });
    out_.nodes.erase(std::unique(out_.nodes.begin(), out_.nodes.end(),
                                 [](const auto& a, const auto& b) { return a.node == b.node; }),
                     out_.nodes.end());
  }

  ClockAlignment run() {
    if (node_of_.empty()) return out_;
    out_.reference_node = node_of_.begin()->second;
    entry(out_.reference_node).reachable = true;
    for (NodeClockOffset& node : out_.nodes)
      if (!node.reachable) resolve(node.node, out_.reference_node, /*only_if_shared=*/true);
    chain_the_rest();
    check_correction();
    check_node_mapping();
    std::stable_sort(out_.warnings.begin(), out_.warnings.end(), [](const auto& a, const auto& b) {
      return std::tie(a.kind, a.node) < std::tie(b.kind, b.node);
    });
    return out_;
  }

 private:
  NodeClockOffset& entry(std::int32_t node) {
    return *std::lower_bound(out_.nodes.begin(), out_.nodes.end(), node,
                             [](const NodeClockOffset& n, std::int32_t v) { return n.node < v; });
  }

  void resolve(std::int32_t node, std::int32_t via, bool only_if_shared) {
    const Edge edge = estimate_edge(summaries_, node, via, options_);
    if (only_if_shared && edge.shared == 0) return;
    NodeClockOffset& n = entry(node);
    n.via_node = via;
    n.reachable = true;
    n.offset_ns = saturating_add(entry(via).applied_offset_ns(), edge.offset);
    n.mad_ns = edge.mad;
    n.samples = edge.samples;
    n.shared_instances = edge.shared;
    n.bound_consistent = edge.bound_consistent;
    n.clamped = edge.clamped;
    n.applied = significant(n.offset_ns, edge, options_);
    if (n.samples > 0 && saturating_abs(n.offset_ns) > options_.large_offset_ns)
      warn(ClockWarningKind::kLargeOffset, node,
           "node " + std::to_string(node) + " clock runs " + micros(n.offset_ns) +
               " ahead of node " + std::to_string(out_.reference_node));
  }

  // Nodes sharing nothing with the reference: repeatedly take the (unresolved, resolved) pair
  // with most shared instances.
  void chain_the_rest() {
    std::map<std::pair<std::int32_t, std::int32_t>, std::size_t> shared;  // (unresolved, other)
    for (const InstanceNodes& instance : summaries_)
      for (const NodeTimes& u : instance.nodes)
        if (!entry(u.node).reachable)
          for (const NodeTimes& v : instance.nodes)
            if (v.node != u.node) ++shared[{u.node, v.node}];
    while (true) {
      std::optional<std::pair<std::int32_t, std::int32_t>> best;
      std::size_t best_count = 0;
      for (const auto& [pair, count] : shared)
        if (!entry(pair.first).reachable && entry(pair.second).reachable && count > best_count)
          best = pair, best_count = count;
      if (!best) break;
      resolve(best->first, best->second, /*only_if_shared=*/false);
    }
    for (const NodeClockOffset& n : out_.nodes)
      if (!n.reachable)
        warn(ClockWarningKind::kUnknownClock, n.node,
             "node " + std::to_string(n.node) +
                 " shares no complete collective with the other nodes; its clock is unknown");
  }

  std::int64_t applied_offset_of_node(std::int32_t node) { return entry(node).applied_offset_ns(); }

  // Step 4 after correction: rendezvous bound violations and end skew above start skew.
  void check_correction() {
    for (const CompleteInstance& instance : instances_) {
      const std::vector<RankAndTimes> members = mapped_members(instance, node_of_);
      if (members.size() < 2) continue;
      std::int64_t first_start = kInt64Max, last_start = kInt64Min;
      std::int64_t first_end = kInt64Max, last_end = kInt64Min;
      for (const auto& [node, m] : members) {
        const std::int64_t offset = applied_offset_of_node(node);
        const std::int64_t start = saturating_sub(m.start_ns, offset);
        const std::int64_t end = saturating_sub(m.end_ns, offset);
        first_start = std::min(first_start, start);
        last_start = std::max(last_start, start);
        first_end = std::min(first_end, end);
        last_end = std::max(last_end, end);
      }
      ++out_.checked_instances;
      if (saturating_sub(last_start, first_end) > options_.bound_slack_ns) ++out_.bound_violations;
      if (saturating_sub(last_end, first_end) > saturating_sub(last_start, first_start))
        ++out_.end_skew_exceeds_start_skew;
    }
    const auto share = [this](std::size_t count) {
      return static_cast<double>(count) / static_cast<double>(out_.checked_instances);
    };
    if (out_.checked_instances == 0) return;
    if (share(out_.bound_violations) > options_.max_violation_share)
      warn(ClockWarningKind::kBoundViolations, -1,
           std::to_string(out_.bound_violations) + " of " + std::to_string(out_.checked_instances) +
               " complete collectives end on a rank before their last member started (by more "
               "than " +
               micros(options_.bound_slack_ns) + "): clock or matching inconsistent");
    if (share(out_.end_skew_exceeds_start_skew) > options_.max_end_skew_share)
      warn(ClockWarningKind::kEndSkew, -1,
           std::to_string(out_.end_skew_exceeds_start_skew) + " of " +
               std::to_string(out_.checked_instances) +
               " complete collectives have a larger end skew than start skew: clock or matching "
               "inconsistent");
  }

  // Step 5: ranks of one node share a clock, so their median end difference should be small.
  void check_node_mapping() {
    std::map<std::int32_t, std::int32_t> lowest_rank_of_node;
    for (const auto& [rank, node] : node_of_) lowest_rank_of_node.emplace(node, rank);
    const std::uint64_t stride = sampling_stride(instances_.size(), options_.max_samples_per_pair);
    std::map<std::int32_t, std::vector<std::int64_t>> differences;  // rank → e_r − e_lowest
    for (const CompleteInstance& instance : instances_) {
      if (instance.key_hash % stride != 0) continue;
      const std::vector<RankAndTimes> members = mapped_members(instance, node_of_);
      for (std::size_t i = 0; i < members.size(); ++i) {
        const auto& [node, m] = members[i];
        if (m.rank != lowest_rank_of_node[node]) continue;
        for (std::size_t k = i + 1; k < members.size() && members[k].first == node; ++k)
          differences[members[k].second.rank].push_back(
              saturating_sub(members[k].second.end_ns, m.end_ns));
      }
    }
    for (auto& [rank, values] : differences) {
      const std::int64_t difference = median(std::move(values));
      if (saturating_abs(difference) <= options_.node_mapping_ns) continue;
      const std::int32_t node = node_of_.at(rank);
      warn(ClockWarningKind::kNodeMapping, node,
           "ranks " + std::to_string(lowest_rank_of_node[node]) + " and " + std::to_string(rank) +
               " of node " + std::to_string(node) + " end " + micros(difference) +
               " apart (median): node mapping wrong?");
    }
  }

  void warn(ClockWarningKind kind, std::int32_t node, std::string detail) {
    out_.warnings.push_back({kind, node, std::move(detail)});
  }

  std::span<const CompleteInstance> instances_;
  const std::map<std::int32_t, std::int32_t>& node_of_;
  const ClockOptions& options_;
  std::vector<InstanceNodes> summaries_;
  ClockAlignment out_;
};

}  // namespace

ClockAlignment estimate_clock_offsets(std::span<const CompleteInstance> instances,
                                      const std::map<std::int32_t, std::int32_t>& node_of_rank,
                                      const ClockOptions& options) {
  return Estimator(instances, node_of_rank, options).run();
}

std::map<std::int32_t, std::int64_t> rank_clock_offsets(
    const ClockAlignment& alignment, const std::map<std::int32_t, std::int32_t>& node_of_rank) {
  std::map<std::int32_t, std::int64_t> out;
  for (const auto& [rank, node] : node_of_rank) {
    const auto it =
        std::lower_bound(alignment.nodes.begin(), alignment.nodes.end(), node,
                         [](const NodeClockOffset& n, std::int32_t v) { return n.node < v; });
    out[rank] = it != alignment.nodes.end() && it->node == node ? it->applied_offset_ns() : 0;
  }
  return out;
}

}  // namespace traceprism::multirank
