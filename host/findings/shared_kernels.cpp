#include "findings/shared_kernels.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <string>
#include <tuple>
#include <utility>

namespace traceprism::findings {
namespace {

constexpr std::size_t kUnclaimed = std::numeric_limits<std::size_t>::max();
constexpr std::uint32_t kNoOwner = std::numeric_limits<std::uint32_t>::max();

// Lower is more specific: the cause names the exact kernels an action removes or shortens.
int specificity(const Finding& f) {
  if (f.cause == "layout") return 0;
  if (f.cause == "recompute") return 1;
  if (f.cause == "fusion") return 2;
  if (f.cause == "precision") return 3;
  return 4;
}

// Unquantified findings claim after the quantified ones of their level.
double claim_order(const Finding& f) {
  return f.impact_kind == ImpactKind::kNotQuantifiable ? -1 : ranking_impact(f);
}

bool claims_first(const Finding* a, const Finding* b) {
  if (specificity(*a) != specificity(*b)) return specificity(*a) < specificity(*b);
  if (claim_order(*a) != claim_order(*b)) return claim_order(*a) > claim_order(*b);
  return std::tie(a->analyzer, a->key, a->title) < std::tie(b->analyzer, b->key, b->title);
}

double us_of(std::int64_t ns) {
  return static_cast<double>(ns) / 1000.0;
}

void keep_share(Finding& f, double share) {
  f.emitted_low = f.impact_low, f.emitted_mid = f.impact_mid, f.emitted_high = f.impact_high;
  f.emitted_share = f.share_percent;
  f.impact_low *= share;
  f.impact_mid *= share;
  f.impact_high *= share;
  if (f.share_percent > 0) f.share_percent *= share;
}

std::string ms_text(double us) {
  const double ms = us / 1000.0;
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f ms", ms >= 10 ? 1 : (ms >= 0.1 ? 2 : 3), ms);
  return buf;
}

std::string percent_text(double value) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", value);
  return buf;
}

std::string label_of(const Finding& f) {
  return std::string(tier_name(f.tier)) + " P" + std::to_string(f.rank) + " (\"" + f.title + "\")";
}

std::string id_of(const Finding& f) {
  return std::string(tier_name(f.tier)) + "-p" + std::to_string(f.rank);
}

void append_sentence(std::string& text, const std::string& sentence) {
  if (!text.empty() && text.back() != ' ') text += ' ';
  text += sentence;
}

}  // namespace

void give_each_kernel_to_one_finding(const std::vector<Finding*>& findings,
                                     std::span<const std::int64_t> dur_ns) {
  std::vector<Finding*> order;
  for (Finding* f : findings)
    if (!f->kernels.empty()) order.push_back(f);
  std::stable_sort(order.begin(), order.end(), claims_first);
  if (order.empty()) return;
  // Kernel row -> index into `order` of the finding that claimed it (4 bytes per event: a big
  // trace's findings hold millions of kernels).
  std::vector<std::uint32_t> owner(dur_ns.size(), kNoOwner);
  for (std::size_t i = 0; i < order.size(); ++i) {
    Finding& f = *order[i];
    std::map<std::size_t, double> shared_us;  // by owner
    double total_us = 0;
    for (std::uint32_t k : f.kernels) {
      if (k >= dur_ns.size()) continue;
      const double us = us_of(dur_ns[k]);
      total_us += us;
      if (owner[k] == kNoOwner)
        owner[k] = static_cast<std::uint32_t>(i);
      else
        shared_us[owner[k]] += us;
    }
    f.kernel_us = total_us;
    if (shared_us.empty() || total_us <= 0) continue;
    double shared_total = 0;
    std::size_t largest = kUnclaimed;
    for (const auto& [o, us] : shared_us) {
      shared_total += us;
      if (largest == kUnclaimed || us > shared_us[largest]) largest = o;
      f.elsewhere.push_back({order[o]->analyzer, order[o]->key, us, ""});
    }
    const double own = std::max(0.0, 1.0 - shared_total / total_us);
    if (own < kFoldBelowShare) {
      f.folded_into_analyzer = order[largest]->analyzer;
      f.folded_into_key = order[largest]->key;
    }
    keep_share(f, own);
  }
}

void describe_shared_kernels(const std::vector<Finding*>& ranked, std::vector<Finding>& folded) {
  std::map<std::pair<std::string, std::string>, Finding*> by_id;
  for (Finding* f : ranked) by_id[{f->analyzer, f->key}] = f;
  for (Finding* f : ranked) {
    if (f->elsewhere.empty()) continue;
    std::string where;
    for (Finding::KernelTimeElsewhere& e : f->elsewhere) {
      const auto it = by_id.find({e.analyzer, e.key});
      if (it == by_id.end()) continue;  // the owner was folded or dropped itself
      e.finding_id = id_of(*it->second);
      where += (where.empty() ? "" : "; ") + ms_text(e.us) + " under " + label_of(*it->second);
    }
    if (where.empty()) continue;
    double shared = 0;
    for (const Finding::KernelTimeElsewhere& e : f->elsewhere) shared += e.us;
    append_sentence(f->insight, "Part of these kernels' time (" +
                                    percent_text(shared / f->kernel_us * 100) +
                                    ") is reported by a more specific finding: " + where +
                                    "; the impact here counts only the rest.");
  }
  std::map<Finding*, std::string> absorbed;  // owner -> the folded findings it stands for
  for (Finding& f : folded) {
    const auto it = by_id.find({f.folded_into_analyzer, f.folded_into_key});
    if (it == by_id.end()) continue;
    f.folded_into_id = id_of(*it->second);
    // The owner stands for it now, also for --fail-on: it keeps the higher severity.
    it->second->severity = std::max(it->second->severity, f.severity);
    std::string& list = absorbed[it->second];
    list += (list.empty() ? "" : "; ") + f.analyzer + "'s \"" + f.title + "\"";
  }
  for (const auto& [owner, list] : absorbed)
    append_sentence(
        owner->insight,
        "It covers the kernels of findings folded into it, not listed on their own: " + list + ".");
}

}  // namespace traceprism::findings
