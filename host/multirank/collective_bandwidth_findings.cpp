#include "multirank/collective_bandwidth_findings.hpp"

#include <algorithm>
#include <cstdio>
#include <tuple>
#include <utility>
#include <vector>

#include "multirank/card_text.hpp"
#include "multirank/multi_rank_tables.hpp"
#include "multirank/robust_stats.hpp"

namespace traceprism::multirank {

namespace {

using model::CollectiveInstance;
using model::CollectiveKind;

// 450, 31.5, 537.6: one decimal, without a trailing ".0".
std::string rate(double gbps) {
  std::string text = fixed(gbps, 1);
  if (text.size() > 2 && text.ends_with(".0")) text.resize(text.size() - 2);
  return text;
}

// "All-reduce", ... for titles; the kind's normalised name otherwise.
std::string kind_title(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kAllReduce:
      return "All-reduce";
    case CollectiveKind::kAllGather:
      return "All-gather";
    case CollectiveKind::kReduceScatter:
      return "Reduce-scatter";
    case CollectiveKind::kAllToAll:
      return "All-to-all";
    case CollectiveKind::kBroadcast:
      return "Broadcast";
    case CollectiveKind::kReduce:
      return "Reduce";
    case CollectiveKind::kSend:
      return "Send";
    case CollectiveKind::kRecv:
      return "Recv";
    default:
      return model::kind_name(kind);
  }
}

// The description, unless PyTorch left its default; else the name (as collectives_summary.csv).
std::string group_label(const CollectiveInstance& c) {
  if (!c.pg_description.empty() && c.pg_description != "undefined") return c.pg_description;
  return c.pg_name;
}

std::optional<ModelledPeak> node_peak(const platform::Interconnect& ic, std::int64_t members) {
  const bool within_domain =
      ic.scale_up && !(ic.scale_up->domain_gpus && members > *ic.scale_up->domain_gpus);
  if (within_domain) {
    if (!ic.scale_up->gbps_per_direction) return std::nullopt;  // a link of unknown rate
    return ModelledPeak{*ic.scale_up->gbps_per_direction, ic.scale_up->kind};
  }
  if (ic.pcie)
    return ModelledPeak{ic.pcie->gbps_per_direction, "PCIe Gen" + std::to_string(ic.pcie->gen)};
  return std::nullopt;
}

// §7.5's family, with the members per node that fix its peak.
using FamilyKey = std::tuple<std::string, std::int64_t, int, int, std::int64_t, bool,
                             std::int64_t>;  // group, n, kind, dtype, S, inter-node, m

struct Instance {
  std::int64_t transfer_ns = 0;
  std::int64_t exposure_permille = 0;
  double busbw_gbps = 0;
};

struct Family {
  std::string label;
  std::int64_t n = 0, bytes = 0, members_per_node = 0;
  CollectiveKind kind = CollectiveKind::kUnknown;
  model::CollectiveDtype dtype = model::CollectiveDtype::kUnknown;
  bool inter_node = false;
  bool in_network = false;  // an NVLS / COLLNET member: busbw may exceed the link
  double factor = 0;        // f(n)
  std::vector<Instance> instances;
  std::optional<ModelledPeak> peak;
  // Derived.
  double median_busbw = 0;
  std::optional<double> efficiency;  // median busbw / peak
  std::int64_t median_transfer_ns = 0;
  std::int64_t exposed_ns = 0;  // Σ T × x_c
};

std::string span_words(const Family& f) {
  return f.inter_node ? "inter-node" : "intra-node";
}

std::string group_words(const Family& f) {
  return f.label.empty() ? "a group of " + std::to_string(f.n) + " ranks" : f.label;
}

std::string mib(std::int64_t bytes) {
  const double value = static_cast<double>(bytes) / static_cast<double>(1 << 20);
  return rate(value);
}

std::string efficiency_text(const Family& f, bool nic_known) {
  if (!f.efficiency) {
    if (f.inter_node && !nic_known) return "n/a (NIC unknown)";
    return "n/a";
  }
  if (f.in_network && *f.efficiency > 1) return "> 100% (in-network reduction)";
  return fixed(100.0 * *f.efficiency, 1) + "%";
}

// Σ max(0, T − S·f/(η·peak)) × x_c, ns: the exposed time saved at efficiency η.
double saved_ns(const Family& f, double target) {
  if (!f.peak || f.peak->gbps <= 0 || target <= 0) return 0;
  const double ideal_ns = static_cast<double>(f.bytes) * f.factor / (target * f.peak->gbps);
  double total = 0;
  for (const Instance& i : f.instances)
    total += std::max(0.0, static_cast<double>(i.transfer_ns) - ideal_ns) *
             static_cast<double>(i.exposure_permille) / 1000.0;
  return total;
}

findings::DataTable family_table(const Family& flagged, const std::vector<const Family*>& large,
                                 bool nic_known, std::size_t max_rows) {
  findings::DataTable t;
  t.title = "Large collectives against the modelled link peak";
  t.columns = {"Process Group",        "Span",        "Kind",       "Dtype",
               "Size (MiB)",           "Ranks",       "Count",      "Median T (µs)",
               "Median Bus BW (GB/s)", "Peak (GB/s)", "Efficiency", "Exposed T (ms)"};
  std::vector<const Family*> rows = {&flagged};
  for (const Family* f : large)
    if (f != &flagged && rows.size() < max_rows) rows.push_back(f);
  for (const Family* f : rows) {
    std::string span = span_words(*f);
    if (f->inter_node) span += " (" + std::to_string(f->members_per_node) + " per node)";
    t.rows.push_back({f->label, span, model::kind_name(f->kind), model::dtype_name(f->dtype),
                      mib(f->bytes), std::to_string(f->n), std::to_string(f->instances.size()),
                      fixed(static_cast<double>(f->median_transfer_ns) / 1e3, 1),
                      fixed(f->median_busbw, 1), f->peak ? rate(f->peak->gbps) : "unknown",
                      efficiency_text(*f, nic_known),
                      fixed(static_cast<double>(f->exposed_ns) / 1e6, 3)});
  }
  return t;
}

}  // namespace

std::optional<ModelledPeak> modelled_peak(const platform::Interconnect& interconnect,
                                          bool inter_node, std::int64_t members_per_node,
                                          std::optional<double> nic_gbps) {
  if (members_per_node < 1) return std::nullopt;
  if (!inter_node) return node_peak(interconnect, members_per_node);
  if (!nic_gbps || *nic_gbps <= 0) return std::nullopt;
  const double nic_total = *nic_gbps * static_cast<double>(members_per_node);
  const ModelledPeak nic{nic_total,
                         "NIC " + rate(*nic_gbps) + " GB/s × " + std::to_string(members_per_node)};
  if (members_per_node == 1) return nic;
  const std::optional<ModelledPeak> node = node_peak(interconnect, members_per_node);
  if (!node) return std::nullopt;
  return nic.gbps < node->gbps ? nic : *node;
}

findings::AnalyzerOutcome collective_bandwidth_outcome(
    std::span<const RankInput> ranks, const MatchResult& matches, const CrossRankFigures& figures,
    const std::map<std::int32_t, std::int32_t>& node_of_rank,
    const std::optional<platform::Interconnect>& interconnect, std::optional<double> nic_gbps,
    const CrossRankContext& context, const CollectiveBandwidthOptions& options) {
  findings::AnalyzerOutcome out = cross_rank_outcome("xrank-collective-bandwidth", context);
  if (out.status == findings::AnalyzerStatus::kSkipped) return out;
  if (!interconnect) {
    out.status = findings::AnalyzerStatus::kSkipped;
    out.error =
        "the platform file has no interconnect peaks; collective bandwidth is judged against "
        "them (docs/platforms.md, `interconnect`).";
    return out;
  }
  const bool nic_known = nic_gbps && *nic_gbps > 0;
  const RankInstances lookup(ranks);

  std::map<FamilyKey, Family> families;
  for (const InstanceFigures& fig : figures.instances) {
    if (fig.collective >= matches.collectives.size() || fig.transfer_ns <= 0) continue;
    const MatchedCollective& matched = matches.collectives[fig.collective];
    const CollectiveInstance* sample = nullptr;  // the lowest-rank member (members ascend)
    bool in_network = false, nodes_known = true;
    std::map<std::int32_t, std::int64_t> per_node;
    for (const MemberRef& ref : matched.members) {
      const CollectiveInstance* c = lookup.instance(ref);
      if (!c) continue;
      if (!sample) sample = c;
      in_network = in_network || c->nvls;
      const auto node = node_of_rank.find(ref.rank);
      if (node == node_of_rank.end())
        nodes_known = false;
      else
        ++per_node[node->second];
    }
    if (!sample || !nodes_known || per_node.empty()) continue;
    const std::int64_t bytes = collective_message_bytes(*sample);
    const std::int64_t n = sample->group_size > 0
                               ? sample->group_size
                               : static_cast<std::int64_t>(matched.members.size());
    const std::optional<double> factor = bus_bandwidth_factor(sample->kind, n);
    if (bytes <= 0 || !factor) continue;
    const bool inter_node = per_node.size() > 1;
    std::int64_t m = INT64_MAX;
    for (const auto& [node, count] : per_node) m = std::min(m, count);
    const FamilyKey key{group_label(*sample),
                        n,
                        static_cast<int>(sample->kind),
                        static_cast<int>(sample->dtype),
                        bytes,
                        inter_node,
                        m};
    Family& family = families[key];
    if (family.instances.empty()) {
      family.label = group_label(*sample);
      family.n = n;
      family.kind = sample->kind;
      family.dtype = sample->dtype;
      family.bytes = bytes;
      family.inter_node = inter_node;
      family.members_per_node = m;
      family.factor = *factor;
      family.peak = modelled_peak(*interconnect, inter_node, m, nic_gbps);
    }
    family.in_network = family.in_network || in_network;
    // bytes per ns = GB/s
    const double busbw =
        static_cast<double>(bytes) * *factor / static_cast<double>(fig.transfer_ns);
    family.instances.push_back({fig.transfer_ns, fig.exposure_permille, busbw});
  }

  std::vector<const Family*> large;  // S ≥ the threshold, by exposed time descending
  std::size_t unknown_nic = 0;
  for (auto& [key, f] : families) {
    std::vector<double> busbw;
    std::vector<double> efficiency;
    std::vector<std::int64_t> transfers;
    for (const Instance& i : f.instances) {
      busbw.push_back(i.busbw_gbps);
      transfers.push_back(i.transfer_ns);
      f.exposed_ns += i.transfer_ns * i.exposure_permille / 1000;
      if (f.peak && f.peak->gbps > 0) efficiency.push_back(i.busbw_gbps / f.peak->gbps);
    }
    f.median_busbw = median(busbw);
    f.median_transfer_ns = median(transfers);
    if (!efficiency.empty()) f.efficiency = median(efficiency);
    if (f.bytes >= options.min_message_bytes) {
      large.push_back(&f);
      if (f.inter_node && !nic_known) ++unknown_nic;
    }
  }
  std::stable_sort(large.begin(), large.end(), [](const Family* a, const Family* b) {
    return a->exposed_ns > b->exposed_ns;  // ties keep the key order
  });

  const double e2e = static_cast<double>(context.e2e_ns);
  std::vector<findings::Finding> cards;
  for (const Family* f : large) {
    if (context.e2e_ns <= 0 || f->in_network || !f->efficiency || !f->peak) continue;
    const double exposed_percent = 100.0 * static_cast<double>(f->exposed_ns) / e2e;
    if (*f->efficiency >= options.max_efficiency || exposed_percent < options.min_exposed_percent)
      continue;
    findings::Finding card =
        cross_rank_finding(out, "collective-bandwidth", findings::ImpactKind::kQuantified);
    card.impact_low = 100.0 * saved_ns(*f, options.target_low) / e2e;
    card.impact_mid = 100.0 * saved_ns(*f, options.target_mid) / e2e;
    card.impact_high = 100.0 * saved_ns(*f, options.target_high) / e2e;
    card.share_percent = std::min(100.0, card.impact_mid);
    card.severity = severity_of(card.impact_mid);
    const double percent = 100.0 * *f->efficiency;
    const std::string e_text = fixed(percent, percent < 10 ? 1 : 0);
    card.title = kind_title(f->kind) + " on " + group_words(*f) + " (" + span_words(*f) +
                 ") reaches " + e_text + "% of " + rate(f->peak->gbps) + " GB/s";
    card.insight =
        std::to_string(f->instances.size()) + " " + model::kind_name(f->kind) + " collectives of " +
        mib(f->bytes) + " MiB (" + model::dtype_name(f->dtype) + ") over " + std::to_string(f->n) +
        " ranks run at a median bus bandwidth of " + fixed(f->median_busbw, 1) + " GB/s, " +
        e_text + "% of the " + rate(f->peak->gbps) + " GB/s that " + f->peak->link +
        " allows per GPU and direction; " + fixed(static_cast<double>(f->exposed_ns) / 1e6, 3) +
        " ms of their transfer time is not hidden by computation (" + fixed(exposed_percent, 2) +
        "% of the focus rank's end-to-end time).";
    card.identification =
        "Complete collectives matched across " + std::to_string(figures.ranks.size()) +
        " ranks, grouped by process group, kind, dtype, message size and span; bus bandwidth = "
        "S × f(n) / T with T the shortest member duration (nccl-tests convention), against the "
        "peak of the platform file's interconnect.";
    card.reasoning =
        "Messages of " + mib(f->bytes) +
        " MiB are in the bandwidth regime, where NCCL and RCCL reach most of the link's peak; "
        "a median of " +
        e_text +
        "% points at the algorithm or channel count chosen, a path other than the expected link "
        "(GPU-NIC affinity, PCIe instead of NVLink or Infinity Fabric), or contention. The "
        "impact is the exposed transfer time saved at 60%, 70% and 80% of the peak.";
    card.action =
        "Check the NCCL/RCCL algorithm and channel count (NCCL_DEBUG=INFO prints them; "
        "NCCL_ALGO, NCCL_MIN_NCHANNELS), the GPU-NIC affinity and topology (NCCL_IB_HCA, "
        "nvidia-smi topo -m or rocm-smi --showtopo), and the gradient bucket size that sets the "
        "message size (DDP bucket_cap_mb, FSDP wrap size).";
    card.resolution = card.action;
    card.metrics = {{"efficiency_percent", percent},
                    {"busbw_gbps", f->median_busbw},
                    {"peak_gbps", f->peak->gbps},
                    {"message_bytes", static_cast<double>(f->bytes)},
                    {"instances", static_cast<double>(f->instances.size())},
                    {"exposed_transfer_percent", exposed_percent}};
    card.tables.push_back(family_table(*f, large, nic_known, options.max_table_rows));
    cards.push_back(std::move(card));
  }
  std::stable_sort(cards.begin(), cards.end(),
                   [](const findings::Finding& a, const findings::Finding& b) {
                     return a.impact_mid > b.impact_mid;
                   });
  const std::size_t flagged = cards.size();
  for (findings::Finding& card : cards) out.findings.push_back(std::move(card));
  out.summary = flagged ? "collective bandwidth: " + std::to_string(flagged) + " famil" +
                              (flagged == 1 ? "y" : "ies") + " below " +
                              fixed(100.0 * options.max_efficiency, 0) + "% of the link peak"
                        : "no large collective family below " +
                              fixed(100.0 * options.max_efficiency, 0) + "% of the link peak";
  if (unknown_nic)
    out.summary += "; " + std::to_string(unknown_nic) + " inter-node famil" +
                   (unknown_nic == 1 ? "y" : "ies") + " not judged (NIC bandwidth unknown)";
  return out;
}

}  // namespace traceprism::multirank
