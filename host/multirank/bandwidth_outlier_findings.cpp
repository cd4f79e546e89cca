#include "multirank/bandwidth_outlier_findings.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>

#include "multirank/card_text.hpp"
#include "multirank/group_membership.hpp"
#include "multirank/multi_rank_tables.hpp"
#include "multirank/rank_summary.hpp"
#include "multirank/robust_stats.hpp"

namespace traceprism::multirank {

namespace {

using model::CollectiveInstance;

// 16, 0.5, 1.3: MiB with one decimal, without a trailing ".0".
std::string mib(std::int64_t bytes) {
  std::string text = fixed(static_cast<double>(bytes) / static_cast<double>(1 << 20), 1);
  if (text.size() > 2 && text.ends_with(".0")) text.resize(text.size() - 2);
  return text;
}

// "2, 3", "0-3, 8": ascending ranks, runs of three or more as ranges.
std::string rank_text(const std::vector<std::int32_t>& ascending) {
  std::string out;
  for (std::size_t i = 0; i < ascending.size();) {
    std::size_t j = i;
    while (j + 1 < ascending.size() &&
           std::int64_t{ascending[j + 1]} == std::int64_t{ascending[j]} + 1)
      ++j;
    const auto append = [&](const std::string& part) {
      if (!out.empty()) out += ", ";
      out += part;
    };
    if (j >= i + 2) {
      append(std::to_string(ascending[i]) + "-" + std::to_string(ascending[j]));
    } else {
      for (std::size_t k = i; k <= j; ++k) append(std::to_string(ascending[k]));
    }
    i = j + 1;
  }
  return out;
}

// "3", "2 and 3", "1, 2 and 3" (as the straggler card names its ranks).
bool has_description(const CollectiveInstance& c) {
  return !c.pg_description.empty() && c.pg_description != "undefined";
}

// ProcessGroup's identity: name, description, ranks text, size, rank start, stride.
using GroupKey =
    std::tuple<std::string, std::string, std::string, std::int64_t, std::int64_t, std::int64_t>;

GroupKey group_key(const ProcessGroup& g) {
  return {g.name, g.description, g.ranks_text, g.size, g.rank_start, g.rank_stride};
}

struct Group {
  ProcessGroup identity;
  bool members_expected = false;   // from the metadata (§5.4)
  std::set<std::int32_t> members;  // expected, else the ranks its instances span
};

// Siblings and family: description ("" without one), n, kind, dtype, S.
using FamilyKey = std::tuple<std::string, std::int64_t, int, int, std::int64_t>;

struct Instance {
  std::int64_t transfer_ns = 0;
  std::int64_t exposure_permille = 0;
  double busbw_gbps = 0;
};

struct GroupFamily {
  std::vector<Instance> instances;
  double median_busbw = 0;
  double sibling_busbw = 0;  // median of the other groups' medians
  std::int64_t median_transfer_ns = 0;
  double saved_ns = 0;  // when slow: Σ max(0, T − S·f / sibling busbw) × x_c
  bool slow = false;
  double ratio() const { return sibling_busbw > 0 ? median_busbw / sibling_busbw : 0; }
};

struct Family {
  model::CollectiveKind kind = model::CollectiveKind::kUnknown;
  model::CollectiveDtype dtype = model::CollectiveDtype::kUnknown;
  std::int64_t bytes = 0;
  double factor = 0;
  std::map<GroupKey, GroupFamily> groups;
};

// A slow group in one family.
struct Slow {
  const Family* family = nullptr;
  const GroupKey* group = nullptr;
  const GroupFamily* figures = nullptr;
};

// One card: slow groups connected by shared ranks.
struct Card {
  std::vector<const GroupKey*> groups;  // in key order
  std::vector<Slow> slow;               // in family, then group key order
  std::vector<std::int32_t> ranks;      // every rank of its groups, ascending
  std::vector<std::int32_t> named;      // the ranks in the most of its groups, ascending
  std::size_t lead = 0;                 // in `slow`: the one that saves the most (ties: lower Q)
  double saved_ns = 0;
  findings::Finding finding;
};

std::string group_words(const Group& g) {
  std::string text =
      g.identity.name.empty() ? "a process group" : "process group " + g.identity.name;
  std::string inside;
  if (!g.identity.description.empty() && g.identity.description != "undefined")
    inside = g.identity.description + ", ";
  inside += "ranks " + rank_text({g.members.begin(), g.members.end()});
  return text + " (" + inside + ")";
}

findings::DataTable group_table(const std::vector<const Family*>& families,
                                const std::map<GroupKey, Group>& groups, std::size_t max_rows) {
  findings::DataTable t;
  t.title = "Sibling process groups by bus bandwidth";
  t.columns = {"Process Group", "Description",    "Ranks",
               "Kind",          "Dtype",          "Size (MiB)",
               "Count",         "Median T (µs)",  "Median Bus BW (GB/s)",
               "vs Siblings",   "Time Saved (ms)"};
  for (const Family* f : families) {
    std::vector<std::pair<const GroupKey*, const GroupFamily*>> rows;
    for (const auto& [key, gf] : f->groups) rows.emplace_back(&key, &gf);
    std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
      return a.second->ratio() < b.second->ratio();
    });
    for (const auto& [key, gf] : rows) {
      if (t.rows.size() >= max_rows) return t;
      const Group& g = groups.at(*key);
      t.rows.push_back(
          {g.identity.name, g.identity.description, rank_text({g.members.begin(), g.members.end()}),
           model::kind_name(f->kind), model::dtype_name(f->dtype), mib(f->bytes),
           std::to_string(gf->instances.size()),
           fixed(static_cast<double>(gf->median_transfer_ns) / 1e3, 1), fixed(gf->median_busbw, 1),
           fixed(gf->ratio(), 2) + "×", gf->slow ? fixed(gf->saved_ns / 1e6, 3) : ""});
    }
  }
  return t;
}

}  // namespace

findings::AnalyzerOutcome bandwidth_outlier_outcome(std::span<const RankInput> ranks,
                                                    const MatchResult& matches,
                                                    const CrossRankFigures& figures,
                                                    const CrossRankContext& context,
                                                    const BandwidthOutlierOptions& options) {
  findings::AnalyzerOutcome out = cross_rank_outcome("xrank-bandwidth-outlier-group", context);
  if (out.status == findings::AnalyzerStatus::kSkipped) return out;
  const RankInstances lookup(ranks);

  std::map<GroupKey, Group> groups;
  std::map<FamilyKey, Family> families;
  for (const InstanceFigures& fig : figures.instances) {
    if (fig.collective >= matches.collectives.size() || fig.transfer_ns <= 0) continue;
    const MatchedCollective& matched = matches.collectives[fig.collective];
    if (matched.partition_key.kind == PartitionKind::kPointToPoint) continue;
    const CollectiveInstance* sample = nullptr;  // the lowest-rank member (members ascend)
    for (const MemberRef& ref : matched.members)
      if (!sample) sample = lookup.instance(ref);
    if (!sample || !has_process_group(*sample) || sample->p2p ||
        model::is_point_to_point(sample->kind))
      continue;
    const std::int64_t bytes = collective_message_bytes(*sample);
    const std::int64_t n = sample->group_size > 0
                               ? sample->group_size
                               : static_cast<std::int64_t>(matched.members.size());
    const std::optional<double> factor = bus_bandwidth_factor(sample->kind, n);
    if (bytes <= 0 || !factor || *factor <= 0) continue;
    const ProcessGroup identity = process_group_from(*sample, matched.tier);
    const GroupKey gkey = group_key(identity);
    const auto [git, added] = groups.try_emplace(gkey);
    Group& group = git->second;
    if (added) {
      group.identity = identity;
      const GroupMembership expected = expected_members(*sample, {}, {});
      if (expected.source != MembershipSource::kUnknown) {
        group.members_expected = true;
        group.members.insert(expected.members.begin(), expected.members.end());
      }
    }
    if (!group.members_expected)
      for (const MemberRef& ref : matched.members) group.members.insert(ref.rank);
    const FamilyKey fkey{has_description(*sample) ? sample->pg_description : std::string(), n,
                         static_cast<int>(sample->kind), static_cast<int>(sample->dtype), bytes};
    Family& family = families[fkey];
    family.kind = sample->kind;
    family.dtype = sample->dtype;
    family.bytes = bytes;
    family.factor = *factor;
    // bytes per ns = GB/s
    family.groups[gkey].instances.push_back(
        {fig.transfer_ns, fig.exposure_permille,
         static_cast<double>(bytes) * *factor / static_cast<double>(fig.transfer_ns)});
  }

  // Per family shared by enough siblings: each group against the median of the others.
  std::size_t compared = 0;
  std::vector<Slow> slow;
  for (auto& [fkey, family] : families) {
    if (family.groups.size() < std::max<std::size_t>(options.min_groups, 2)) continue;
    ++compared;
    for (auto& [gkey, gf] : family.groups) {
      std::vector<double> busbw;
      std::vector<std::int64_t> transfers;
      for (const Instance& i : gf.instances) {
        busbw.push_back(i.busbw_gbps);
        transfers.push_back(i.transfer_ns);
      }
      gf.median_busbw = median(busbw);
      gf.median_transfer_ns = median(transfers);
    }
    for (auto& [gkey, gf] : family.groups) {
      std::vector<double> others;
      for (const auto& [other_key, other] : family.groups)
        if (other_key != gkey) others.push_back(other.median_busbw);
      gf.sibling_busbw = median(others);
      if (gf.sibling_busbw <= 0 || gf.median_busbw >= options.max_ratio * gf.sibling_busbw)
        continue;
      gf.slow = true;
      const double ideal_ns = static_cast<double>(family.bytes) * family.factor / gf.sibling_busbw;
      for (const Instance& i : gf.instances)
        gf.saved_ns += std::max(0.0, static_cast<double>(i.transfer_ns) - ideal_ns) *
                       static_cast<double>(i.exposure_permille) / 1000.0;
    }
    for (const auto& [gkey, gf] : family.groups)
      if (gf.slow) slow.push_back({&family, &gkey, &gf});
  }

  // Cards: the slow groups, joined when they share a rank.
  std::vector<const GroupKey*> slow_groups;
  for (const Slow& s : slow)
    if (std::find_if(slow_groups.begin(), slow_groups.end(),
                     [&](const GroupKey* k) { return *k == *s.group; }) == slow_groups.end())
      slow_groups.push_back(s.group);
  std::sort(slow_groups.begin(), slow_groups.end(),
            [](const GroupKey* a, const GroupKey* b) { return *a < *b; });
  std::vector<std::size_t> parent(slow_groups.size());
  for (std::size_t i = 0; i < parent.size(); ++i) parent[i] = i;
  const auto root = [&](std::size_t i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  };
  for (std::size_t i = 0; i < slow_groups.size(); ++i)
    for (std::size_t j = i + 1; j < slow_groups.size(); ++j) {
      const std::set<std::int32_t>& a = groups.at(*slow_groups[i]).members;
      const std::set<std::int32_t>& b = groups.at(*slow_groups[j]).members;
      if (std::any_of(a.begin(), a.end(), [&](std::int32_t r) { return b.contains(r); }))
        parent[root(j)] = root(i);
    }
  std::map<std::size_t, Card> by_root;  // by the root's position: the lowest group key first
  for (std::size_t i = 0; i < slow_groups.size(); ++i)
    by_root[root(i)].groups.push_back(slow_groups[i]);
  std::vector<Card> cards;
  for (auto& [r, card] : by_root) cards.push_back(std::move(card));

  const double e2e = static_cast<double>(context.e2e_ns);
  for (Card& card : cards) {
    std::map<std::int32_t, std::size_t> count;
    for (const GroupKey* k : card.groups)
      for (std::int32_t r : groups.at(*k).members) ++count[r];
    std::size_t most = 0;
    for (const auto& [r, c] : count) most = std::max(most, c);
    for (const auto& [r, c] : count) {
      card.ranks.push_back(r);
      if (c == most) card.named.push_back(r);
    }
    for (const Slow& s : slow)
      if (std::find_if(card.groups.begin(), card.groups.end(),
                       [&](const GroupKey* k) { return *k == *s.group; }) != card.groups.end())
        card.slow.push_back(s);
    for (std::size_t i = 0; i < card.slow.size(); ++i) {
      const GroupFamily& s = *card.slow[i].figures;
      const GroupFamily& lead = *card.slow[card.lead].figures;
      card.saved_ns += s.saved_ns;
      if (s.saved_ns > lead.saved_ns || (s.saved_ns == lead.saved_ns && s.ratio() < lead.ratio()))
        card.lead = i;
    }
  }
  if (context.e2e_ns <= 0) cards.clear();

  for (Card& card : cards) {
    findings::Finding& f = card.finding;
    f = cross_rank_finding(out, "bandwidth-outlier-group", findings::ImpactKind::kQuantified);
    f.impact_low = 100.0 * card.saved_ns * options.scale_low / e2e;
    f.impact_mid = 100.0 * card.saved_ns * options.scale_mid / e2e;
    f.impact_high = 100.0 * card.saved_ns * options.scale_high / e2e;
    f.share_percent = std::min(100.0, f.impact_mid);
    f.severity = severity_of(f.impact_mid);
    const Slow& lead = card.slow[card.lead];
    f.title = "Group " + rank_text(card.named) + " runs collectives at " +
              fixed(lead.figures->ratio(), 2) + "× its siblings' bandwidth";
    std::string insight;
    for (const Slow& s : card.slow) {
      const std::size_t siblings = s.family->groups.size() - 1;
      std::string words = group_words(groups.at(*s.group));
      if (insight.empty())  // "Process group 2 (...)", "A process group (...)"
        words[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(words[0])));
      insight += std::string(insight.empty() ? "" : "; ") + words + " runs its " +
                 std::to_string(s.figures->instances.size()) + " " +
                 model::kind_name(s.family->kind) + " collectives of " + mib(s.family->bytes) +
                 " MiB (" + model::dtype_name(s.family->dtype) + ") at a median bus bandwidth of " +
                 fixed(s.figures->median_busbw, 1) + " GB/s, " + fixed(s.figures->ratio(), 2) +
                 "× the " + fixed(s.figures->sibling_busbw, 1) + " GB/s median of its " +
                 std::to_string(siblings) + " sibling group" + (siblings == 1 ? "" : "s");
    }
    insight +=
        ". At its siblings' bandwidth the transfer time not hidden by computation would "
        "shrink by " +
        fixed(card.saved_ns / 1e6, 3) + " ms (" + fixed(f.impact_high, 2) +
        "% of the focus rank's end-to-end time).";
    f.insight = std::move(insight);
    f.identification =
        "Complete collectives matched across " + std::to_string(figures.ranks.size()) +
        " ranks, grouped by process group; groups with the same description (else without one) "
        "and size are siblings. Per group and shared family (kind, dtype, message size), the "
        "median bus bandwidth S × f(n) / T, T the shortest member duration, against the median "
        "of its siblings' (outlier below " +
        fixed(options.max_ratio, 2) + "×; " + std::to_string(compared) +
        (compared == 1 ? " family" : " families") + " shared by " +
        std::to_string(options.min_groups) + " or more groups compared).";
    f.reasoning =
        "Sibling groups run the same collectives over as many ranks, so they should reach the "
        "same bandwidth; one that stays far below the others points at its ranks' links rather "
        "than at the collective: a degraded NVLink or Infinity Fabric link, a NIC or switch port, "
        "a path through PCIe or the CPU, or a group placed across nodes where its siblings are "
        "not. The impact is the exposed transfer time the group would save at its siblings' "
        "median bandwidth, × " +
        fixed(options.scale_low, 2) + ", " + fixed(options.scale_mid, 2) + " and " +
        fixed(options.scale_high, 2) + ".";
    f.action = "Check the links of rank(s) " + rank_text(card.named) +
               ": nvidia-smi nvlink --status and nvidia-smi topo -m (rocm-smi --showtopo), XID "
               "and link errors in the kernel log, the NIC and switch ports they use and their "
               "GPU-NIC affinity (NCCL_DEBUG=INFO prints each group's transport, algorithm and "
               "channels); place the group as its siblings are, or swap the node if a link is "
               "degraded.";
    f.resolution = f.action;
    f.metrics = {{"bandwidth_ratio", lead.figures->ratio()},
                 {"busbw_gbps", lead.figures->median_busbw},
                 {"sibling_busbw_gbps", lead.figures->sibling_busbw},
                 {"siblings", static_cast<double>(lead.family->groups.size() - 1)},
                 {"slow_groups", static_cast<double>(card.groups.size())},
                 {"time_saved_ms", card.saved_ns / 1e6}};
    std::vector<const Family*> shown;
    for (const Slow& s : card.slow)
      if (std::find(shown.begin(), shown.end(), s.family) == shown.end()) shown.push_back(s.family);
    f.tables.push_back(group_table(shown, groups, options.max_table_rows));
  }
  std::stable_sort(cards.begin(), cards.end(), [](const Card& a, const Card& b) {
    return a.finding.impact_mid > b.finding.impact_mid;
  });

  // One mechanism, one card: a communication-caused straggler inside the slow groups.
  if (figures.stragglers && figures.stragglers->cause == LatenessCause::kCommunication &&
      !figures.stragglers->ranks.empty()) {
    const Stragglers& s = *figures.stragglers;
    for (Card& card : cards) {
      if (!std::all_of(s.ranks.begin(), s.ranks.end(), [&](std::int32_t r) {
            return std::binary_search(card.ranks.begin(), card.ranks.end(), r);
          }))
        continue;
      double share = 0;
      for (const RankFigures& r : figures.ranks)
        if (std::find(s.ranks.begin(), s.ranks.end(), r.rank) != s.ranks.end())
          share = std::max(share, r.last_share);
      const bool one = s.ranks.size() == 1;
      card.finding.insight +=
          std::string(one ? " Rank " : " Ranks ") + rank_list(s.ranks) +
          (one ? " arrives" : " arrive") + " last at " + fixed(100.0 * share, 0) +
          "% of the skewed collectives " + (one ? "it joins" : "they join") + ", late because of " +
          (one ? "its" : "their") + " communication: " + (one ? "its" : "their") +
          " late arrivals are this card's (" +
          fixed(static_cast<double>(s.impact_mid_ns) / 1e6, 3) +
          " ms of exposed waiting past the median arrival), not a separate straggler card.";
      std::vector<std::int32_t> absorbed = s.ranks;
      std::sort(absorbed.begin(), absorbed.end());
      findings::DataTable product;
      product.title = kAbsorbedStragglersProduct;
      product.columns = {"rank"};
      for (std::int32_t r : absorbed) product.rows.push_back({std::to_string(r)});
      out.products.push_back(std::move(product));
      card.finding.metrics.emplace_back("absorbed_stragglers",
                                        static_cast<double>(absorbed.size()));
      break;
    }
  }

  for (Card& card : cards) out.findings.push_back(std::move(card.finding));
  if (!out.findings.empty()) {
    out.summary = "bandwidth outlier: group";
    for (std::size_t i = 0; i < cards.size(); ++i)
      out.summary += (i ? "; " : " ") + rank_text(cards[i].named) + " at " +
                     fixed(cards[i].slow[cards[i].lead].figures->ratio(), 2) + "×";
    out.summary += " of the siblings' bandwidth";
  } else if (compared == 0) {
    out.summary = "no collective family shared by " + std::to_string(options.min_groups) +
                  " or more sibling process groups";
  } else {
    out.summary = "no process group below " + fixed(options.max_ratio, 2) +
                  "× its siblings' bandwidth (" + std::to_string(compared) +
                  (compared == 1 ? " family" : " families") + " compared)";
  }
  return out;
}

std::vector<std::int32_t> absorbed_straggler_ranks(
    const findings::AnalyzerOutcome& bandwidth_outcome) {
  std::vector<std::int32_t> ranks;
  for (const findings::DataTable& t : bandwidth_outcome.products) {
    if (t.title != kAbsorbedStragglersProduct) continue;
    for (const std::vector<std::string>& row : t.rows) {
      if (row.empty()) continue;
      std::int32_t rank = -1;
      const char* first = row[0].data();
      const char* last = first + row[0].size();
      const auto [end, error] = std::from_chars(first, last, rank);
      if (error == std::errc() && end == last) ranks.push_back(rank);
    }
  }
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return ranks;
}

bool absorbs_straggler(const findings::AnalyzerOutcome& bandwidth_outcome, const Stragglers& s) {
  if (bandwidth_outcome.status != findings::AnalyzerStatus::kOk ||
      bandwidth_outcome.findings.empty() || s.ranks.empty() ||
      s.cause != LatenessCause::kCommunication)
    return false;
  std::vector<std::int32_t> ranks = s.ranks;
  std::sort(ranks.begin(), ranks.end());
  return ranks == absorbed_straggler_ranks(bandwidth_outcome);
}

bool drop_absorbed_straggler(findings::AnalyzerOutcome& straggler,
                             const findings::AnalyzerOutcome& bandwidth_outcome,
                             const CrossRankFigures& figures) {
  if (!figures.stragglers || !absorbs_straggler(bandwidth_outcome, *figures.stragglers))
    return false;
  const std::size_t before = straggler.findings.size();
  std::erase_if(straggler.findings,
                [](const findings::Finding& f) { return f.key == "straggler"; });
  if (straggler.findings.size() == before) return false;
  straggler.summary = "straggler: rank(s) " + rank_list(figures.stragglers->ranks) +
                      ", late because of communication: reported in " + bandwidth_outcome.name;
  return true;
}

bool drop_jitter_of_slow_groups(findings::AnalyzerOutcome& jitter,
                                const findings::AnalyzerOutcome& bandwidth_outcome) {
  const bool slow_group =
      std::any_of(bandwidth_outcome.findings.begin(), bandwidth_outcome.findings.end(),
                  [](const findings::Finding& f) { return f.key == "bandwidth-outlier-group"; });
  if (!slow_group) return false;
  const std::size_t before = jitter.findings.size();
  std::erase_if(jitter.findings,
                [](const findings::Finding& f) { return f.key == "arrival-jitter"; });
  if (jitter.findings.size() == before) return false;
  jitter.summary = "arrival skew with a slow process group: the group's card (" +
                   bandwidth_outcome.name + ") reports it";
  return true;
}

}  // namespace traceprism::multirank
