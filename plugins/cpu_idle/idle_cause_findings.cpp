#include "idle_cause_findings.hpp"

#include <algorithm>
#include <cctype>
#include <unordered_map>
#include <utility>

#include <traceprism/support.hpp>

#include "../common/system_support.hpp"

namespace traceprism::plugins::cpu_idle {
namespace {

using support::count_of;
using support::fixed;
using support::ms;
using support::percent;
using support::shorten;
using system::contains;

// Recoverable share of a cause's idle time (diagnosis.md §2.5): low, mid, high; negative: the
// recovery cannot be bounded from the trace.
struct Recovery {
  double low, mid, high;
};
constexpr Recovery kRecovery[kIdleCauseCount] = {
    {0.50, 0.75, 0.95},  // dataloader
    {0.50, 0.75, 0.95},  // blocking_copy
    {0.50, 0.75, 0.95},  // sync
    {0.50, 0.75, 0.95},  // allocator
    {0.30, 0.50, 0.70},  // launch_overhead
    {0.20, 0.40, 0.60},  // host_compute
    {-1, -1, -1},        // dependency
    {-1, -1, -1},        // untraced
};

constexpr const char* kWhile[kIdleCauseCount] = {
    "while the host waits in the DataLoader",        "while the host blocks in a copy",
    "while the host waits in synchronize calls",     "while the host allocates or frees memory",
    "while the host issues kernel launches",         "while the host runs other work",
    "with work already queued (a device-side wait)", "with no host event recorded",
};

double ns_to_ms(std::int64_t ns) {
  return static_cast<double>(ns) / 1e6;
}

// A launch call this long is a first launch (lazy module loading, library initialisation),
// not per-launch overhead: typical launch calls take 2-20 µs.
constexpr std::int64_t kOneTimeLaunchNs = 1'000'000;
// Host-compute time over at least this many gaps, with no holder above 1/kDiffuseHolderShare
// of it, is per-op framework overhead rather than one host computation.
constexpr std::size_t kDiffuseMinGaps = 10;
constexpr std::int64_t kDiffuseHolderShare = 4;
// A first call of an op this long, and this many times its later calls' median, is one-time
// setup (cuDNN/MIOpen kernel selection, library initialisation).
constexpr std::int64_t kFirstCallMinNs = 1'000'000;
constexpr std::int64_t kFirstCallRatio = 10;
// Device-side gaps shorter than this between queued kernels are the GPU's own launch latency.
constexpr std::int64_t kShortGapNs = 10'000;

bool is_call(Kind k) {
  return k == Kind::kRuntime || k == Kind::kDriver;
}

}  // namespace

IdleCauseFindings::IdleCauseFindings(Context& ctx, const IdleAttribution& idle, TraceFacts facts,
                                     CauseReportOptions options)
    : ctx_(ctx), ev_(ctx.events()), idle_(idle), facts_(std::move(facts)), options_(options) {}

void IdleCauseFindings::emit_all() {
  tally();
  std::vector<IdleCause> smaller;
  for (std::size_t c = 0; c < kIdleCauseCount; ++c) {
    const auto cause = static_cast<IdleCause>(c);
    ctx_.record(std::string("idle.") + idle_cause_key(cause) + "_us",
                static_cast<double>(tallies_[c].ns) / 1000.0);
    if (tallies_[c].ns <= 0) continue;
    if (percent_of_window(tallies_[c].ns) >= options_.min_percent)
      emit(cause, tallies_[c]);
    else
      smaller.push_back(cause);
  }
  emit_smaller_causes(std::move(smaller));
}

// diagnosis.md §2.5, "at most one other finding": causes each under the threshold are reported
// together once their sum reaches it, led by the largest with its own action.
void IdleCauseFindings::emit_smaller_causes(std::vector<IdleCause> causes) {
  auto tally_of = [&](IdleCause c) -> const CauseTally& {
    return tallies_[static_cast<std::size_t>(c)];
  };
  std::int64_t ns = 0;
  for (IdleCause c : causes) ns += tally_of(c).ns;
  const double pct = percent_of_window(ns);
  if (causes.size() < 2 || pct < options_.min_percent) return;
  std::stable_sort(causes.begin(), causes.end(),
                   [&](IdleCause a, IdleCause b) { return tally_of(a).ns > tally_of(b).ns; });
  auto words = [](IdleCause c) {
    std::string w = idle_cause_key(c);
    std::replace(w.begin(), w.end(), '_', ' ');
    return w;
  };
  std::string list, detail;
  double low = 0, mid = 0, high = 0;
  bool quantified = false;
  std::vector<Row> evidence;
  for (std::size_t i = 0; i < causes.size(); ++i) {
    const CauseTally& t = tally_of(causes[i]);
    const std::string share = percent(percent_of_window(t.ns));
    if (i < 3) list += (i ? ", " : "") + words(causes[i]) + " " + share;
    const std::string holder = holder_phrase(t);
    detail += (i ? "; " : "") + words(causes[i]) + " " + ms(ns_to_ms(t.ns)) + " (" + share + ")" +
              (holder.empty() ? "" : ", most of it in " + holder);
    const Recovery& r = kRecovery[static_cast<std::size_t>(causes[i])];
    if (r.mid >= 0) {
      const double recurring = recurring_percent(causes[i], t);
      low += recurring * r.low, mid += recurring * r.mid, high += recurring * r.high;
      quantified = true;
    }
    const auto holders = ranked_holders(t);
    if (!holders.empty()) evidence.push_back(holders.front().second.example);
  }
  if (causes.size() > 3) list += " and " + std::to_string(causes.size() - 3) + " more";
  const IdleCause lead = causes.front();
  FindingBuilder b =
      ctx_.report(Tier::kSystem, "cpu_idle",
                  "GPU idle " + percent(pct) + " of the run in smaller causes (" + list + ")");
  b.key("idle-smaller-causes")
      .severity(Severity::kWarning)
      .insight("No cause of GPU idle time reaches " + fixed(options_.min_percent, 1) +
               "% of the run on its own; together " + count_of(causes.size(), "cause") + " hold " +
               ms(ns_to_ms(ns)) + " (" + percent(pct) + " of the run): " + detail + ".")
      .action("Start with the largest, " + words(lead) + ": " + action(lead, tally_of(lead)))
      .reasoning(reasoning(lead, tally_of(lead)))
      .share_percent(pct)
      .evidence_rows(evidence)
      .metric("idle_percent_of_e2e", pct)
      .metric("idle_ms", ns_to_ms(ns))
      .metric("causes", static_cast<double>(causes.size()));
  if (quantified) b.impact(low, mid, high);
  b.table(smaller_causes_table(causes));
  b.emit();
}

Table IdleCauseFindings::smaller_causes_table(const std::vector<IdleCause>& causes) const {
  Table t("Causes", {"Cause", "Idle (ms)", "% of run", "Gaps", "Held mostly in"});
  for (IdleCause c : causes) {
    const CauseTally& tally = tallies_[static_cast<std::size_t>(c)];
    t.row({idle_cause_key(c), fixed(ns_to_ms(tally.ns), 3), fixed(percent_of_window(tally.ns), 2),
           std::to_string(tally.gaps.size()), holder_phrase(tally)});
  }
  return t;
}

void IdleCauseFindings::tally() {
  // Holders are totalled by name text, as the findings show them; each (list, name id) finds
  // its total once, since a trace with python stacks has millions of parts. A cause's lists
  // are numbered 2c (all its time) and 2c + 1 (its recurring time).
  std::unordered_map<std::uint64_t, Holder*> holder_by_id;
  auto holder = [&](std::map<std::string, Holder>& holders, std::uint64_t list,
                    Row row) -> Holder& {
    auto [known, fresh] = holder_by_id.try_emplace((list << 32) | ev_.name_id(row));
    if (fresh) known->second = &holders[std::string(ev_.name(row))];
    return *known->second;
  };
  for (std::size_t g = 0; g < idle_.gap_count(); ++g) {
    const IdleAttribution::Gap gap = idle_.gap(g);
    std::array<std::int64_t, kIdleCauseCount> in_gap{};
    for (std::size_t p = gap.part_begin; p < gap.part_begin + gap.part_count; ++p) {
      const IdleAttribution::Part part = idle_.part(p);
      const auto c = static_cast<std::size_t>(part.cause);
      CauseTally& t = tallies_[c];
      t.ns += part.dur_ns;
      in_gap[c] += part.dur_ns;
      if (gap.dur_ns < kShortGapNs) t.short_gap_ns += part.dur_ns;
      const bool warmup = in_warmup_region(part.start_ns);
      if (warmup) t.warmup_ns += part.dur_ns;
      const bool first_launch = part.holder != kNoRow && part.cause == IdleCause::kLaunchOverhead &&
                                is_call(ev_.kind(part.holder)) &&
                                ev_.dur_ns(part.holder) >= kOneTimeLaunchNs;
      if (first_launch) t.one_time_launch_ns += part.dur_ns;
      const Row first_call = warmup || first_launch ? kNoRow : first_call_holding(part);
      if (first_call != kNoRow) {
        t.first_call_ns += part.dur_ns;
        t.first_calls[std::string(ev_.name(first_call))] += part.dur_ns;
      }
      const bool once = warmup || first_launch || first_call != kNoRow;
      if (once) t.once_ns += part.dur_ns;
      if (part.holder == kNoRow) continue;
      add_to_holder(holder(t.holders, 2 * c, part.holder), part);
      if (!once) add_to_holder(holder(t.recurring_holders, 2 * c + 1, part.holder), part);
    }
    for (std::size_t c = 0; c < kIdleCauseCount; ++c) {
      if (in_gap[c] == 0) continue;
      tallies_[c].gaps.push_back(g);
      tallies_[c].most_in_one_gap_ns = std::max(tallies_[c].most_in_one_gap_ns, in_gap[c]);
    }
  }
}

void IdleCauseFindings::add_to_holder(Holder& h, const IdleAttribution::Part& part) {
  h.ns += part.dur_ns;
  if (part.dur_ns > h.largest_part_ns) {
    h.largest_part_ns = part.dur_ns;
    h.example = part.holder;
    h.frame = part.frame;
    h.top = part.top;
  }
}

bool IdleCauseFindings::launches_gpu_work(Row op) const {
  return std::binary_search(facts_.launching_ops.begin(), facts_.launching_ops.end(), op);
}

// The share of the run a fix of the cause can give back: time in warm-up regions and one-time
// first launches (module loading, library initialisation) recur in no later iteration.
double IdleCauseFindings::recurring_percent(IdleCause, const CauseTally& t) const {
  return percent_of_window(t.ns - t.once_ns);
}

bool IdleCauseFindings::in_warmup_region(std::int64_t ns) const {
  for (Row r : facts_.warmup_regions) {
    if (ev_.ts_ns(r) > ns) break;
    if (ev_.end_ns(r) > ns) return true;
  }
  return false;
}

// diagnosis.md §3: what of the cause's time is warm-up, said wherever it is.
std::string IdleCauseFindings::warmup_sentence(const CauseTally& t) const {
  if (t.warmup_ns <= 0 || facts_.warmup_regions.empty()) return {};
  return " " + ms(ns_to_ms(t.warmup_ns)) + " of it (" +
         percent(static_cast<double>(t.warmup_ns) / static_cast<double>(t.ns) * 100) +
         ") falls in the warm-up region `" + shorten(ev_.name(facts_.warmup_regions.front())) +
         "`, paid once before the measured iterations; the impact counts only the rest.";
}

// The first-call outlier on the holder's thread whose span holds the part, if any.
Row IdleCauseFindings::first_call_holding(const IdleAttribution::Part& part) const {
  if (part.holder == kNoRow || facts_.first_call_outliers.empty()) return kNoRow;
  const Row thread = ev_.thread(part.holder);
  for (Row op : facts_.first_call_outliers) {
    if (ev_.ts_ns(op) > part.start_ns) break;
    if (ev_.end_ns(op) > part.start_ns && ev_.thread(op) == thread) return op;
  }
  return kNoRow;
}

std::string IdleCauseFindings::first_call_sentence(const CauseTally& t) const {
  if (t.first_call_ns <= 0) return {};
  std::vector<std::pair<std::string, std::int64_t>> ops(t.first_calls.begin(), t.first_calls.end());
  std::stable_sort(ops.begin(), ops.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string names;
  for (std::size_t i = 0; i < std::min<std::size_t>(ops.size(), 3); ++i)
    names += std::string(i ? ", " : "") + "`" + shorten(ops[i].first) + "`";
  if (ops.size() > 3) names += " and " + std::to_string(ops.size() - 3) + " more";
  return " " + ms(ns_to_ms(t.first_call_ns)) + " of it is inside first calls of " + names +
         " that take over 10x their later calls: one-time setup (kernel selection, library "
         "initialisation), paid once; the impact counts only the rest.";
}

std::vector<Row> first_call_outliers(const EventView& ev, const std::vector<Row>& cpu_ops) {
  // Two passes, so that a big trace's millions of calls are not grouped: each name's first call
  // (the rows come by start), then the later calls of the names whose first call is long.
  std::unordered_map<StringId, Row> first;
  for (Row r : cpu_ops) first.try_emplace(ev.name_id(r), r);
  std::unordered_map<StringId, std::vector<std::int64_t>> later;
  for (const auto& [name, row] : first)
    if (ev.dur_ns(row) >= kFirstCallMinNs) later[name];
  if (later.empty()) return {};
  for (Row r : cpu_ops) {
    auto it = later.find(ev.name_id(r));
    if (it != later.end() && first.at(it->first) != r) it->second.push_back(ev.dur_ns(r));
  }
  std::vector<Row> out;
  for (auto& [name, durations] : later) {
    if (durations.empty()) continue;  // nothing to compare a lone call with
    const auto mid = durations.begin() + static_cast<std::ptrdiff_t>(durations.size() / 2);
    std::nth_element(durations.begin(), mid, durations.end());
    const Row call = first.at(name);
    if (ev.dur_ns(call) >= kFirstCallRatio * *mid) out.push_back(call);
  }
  std::sort(out.begin(), out.end(), [&](Row a, Row b) {
    return ev.ts_ns(a) != ev.ts_ns(b) ? ev.ts_ns(a) < ev.ts_ns(b) : a < b;
  });
  return out;
}

bool names_warmup_region(std::string_view name) {
  std::string lowered;
  for (char c : name) lowered += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (std::string_view token : {"warmup", "warm_up", "warm-up"}) {
    for (std::size_t at = lowered.find(token); at != std::string::npos;
         at = lowered.find(token, at + 1)) {
      const std::size_t end = at + token.size();
      const bool starts = at == 0 || !std::isalpha(static_cast<unsigned char>(lowered[at - 1]));
      const bool ends =
          end == lowered.size() || !std::isalpha(static_cast<unsigned char>(lowered[end]));
      if (starts && ends) return true;
    }
  }
  return false;
}

double IdleCauseFindings::percent_of_window(std::int64_t ns) const {
  const double window_us = idle_.window_us();
  return window_us > 0 ? static_cast<double>(ns) / 1000.0 / window_us * 100.0 : 0.0;
}

void IdleCauseFindings::emit(IdleCause cause, const CauseTally& t) {
  const double pct = percent_of_window(t.ns);
  // The holding host events first, then the GPU events that end the gaps: causes that share a
  // gap still have evidence of their own (the ranker drops findings with equal evidence).
  std::vector<Row> evidence;
  const auto holders = ranked_holders(t);
  for (std::size_t i = 0; i < system::capped(holders.size(), options_.host_op_rows); ++i)
    evidence.push_back(holders[i].second.example);
  Table gaps = gap_table(t, evidence);
  FindingBuilder b = ctx_.report(Tier::kSystem, "cpu_idle", title(cause, t));
  b.key(std::string("idle-") + idle_cause_key(cause))
      .cause(cause)
      .severity(pct >= 10.0 ? Severity::kCritical : Severity::kWarning)
      .insight(insight(cause, t))
      .action(action(cause, t))
      .reasoning(reasoning(cause, t))
      .share_percent(pct)
      .evidence_rows(evidence)
      .metric("idle_percent_of_e2e", pct)
      .metric("idle_ms", ns_to_ms(t.ns))
      .metric("gaps", static_cast<double>(t.gaps.size()))
      .metric("most_in_one_gap_ms", ns_to_ms(t.most_in_one_gap_ns));
  const Recovery& r = kRecovery[static_cast<std::size_t>(cause)];
  const double recurring = recurring_percent(cause, t);
  if (r.mid >= 0) b.impact(recurring * r.low, recurring * r.mid, recurring * r.high);
  b.table(std::move(gaps));
  if (!t.holders.empty()) b.table(holder_table(t));
  b.emit();
}

// Device-side time that is mostly bubbles between queued kernels waits on nothing.
std::string IdleCauseFindings::while_phrase(IdleCause cause, const CauseTally& t) const {
  if (cause == IdleCause::kDependency && 2 * t.short_gap_ns >= t.ns)
    return "in gaps under 10 \xC2\xB5s between queued kernels";
  return kWhile[static_cast<std::size_t>(cause)];
}

// Where the time is, and, when most of it is paid once (warm-up, first calls, first launches),
// that it is: the title is what a reader sees first.
std::string IdleCauseFindings::title(IdleCause cause, const CauseTally& t) const {
  const std::string once = 2 * t.once_ns >= t.ns && t.once_ns > 0 ? ", mostly one-time setup" : "";
  return "GPU idle " + percent(percent_of_window(t.ns)) + " of the run " + while_phrase(cause, t) +
         once + " (" + count_of(t.gaps.size(), "gap") + ", at most " +
         ms(ns_to_ms(t.most_in_one_gap_ns)) + " in one)";
}

std::vector<std::pair<std::string, IdleCauseFindings::Holder>> IdleCauseFindings::ranked_holders(
    const CauseTally& t) const {
  std::vector<std::pair<std::string, Holder>> out(t.holders.begin(), t.holders.end());
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.second.ns > b.second.ns; });
  return out;
}

std::string IdleCauseFindings::holder_phrase(const CauseTally& t) const {
  const auto ranked = ranked_holders(t);
  if (ranked.empty()) return {};
  const auto& [name, h] = ranked.front();
  std::string text = shorten(name);
  if (h.top != kNoRow && h.top != h.example && ev_.kind(h.top) == Kind::kCpuOp)
    text += " under " + shorten(ev_.name(h.top));
  if (h.frame != kNoRow && h.frame != h.example)
    text += ", called from " + shorten(ev_.name(h.frame));
  return text + " (" + ms(ns_to_ms(h.ns)) + ")";
}

std::string IdleCauseFindings::insight(IdleCause cause, const CauseTally& t) const {
  std::string text = "The GPU sits idle for " + ms(ns_to_ms(t.ns)) + " (" +
                     percent(percent_of_window(t.ns)) + " of the " + ms(idle_.window_us() / 1e3) +
                     " run) " + kWhile[static_cast<std::size_t>(cause)];
  const std::string holder = holder_phrase(t);
  if (!holder.empty()) text += "; most of it in " + holder;
  return text + "." + warmup_sentence(t) + first_call_sentence(t);
}

std::string IdleCauseFindings::action(IdleCause cause, const CauseTally& t) const {
  // Mostly warm-up: what a fix of the loop gives is the rest, and the profile should skip it.
  const bool warmup = 2 * t.warmup_ns >= t.ns && t.warmup_ns > 0;
  const bool first_calls =
      !warmup && 2 * (t.first_call_ns + t.one_time_launch_ns) >= t.ns && t.first_call_ns > 0;
  if (warmup || first_calls) {
    std::string a =
        warmup ? "Most of this time is in the warm-up region, paid once: profile the iterations "
                 "after it (torch.profiler's schedule with wait/warmup steps), then judge this "
                 "cause on them."
               : "Most of this time is one-time setup in first calls and first launches: run a "
                 "few iterations before profiling (torch.profiler's schedule with wait/warmup "
                 "steps), then judge this cause on the iterations that repeat.";
    if (t.recurring_holders.empty()) return a;
    CauseTally measured = t;  // the rest, with the host events that hold it
    measured.ns = t.ns - t.once_ns;
    measured.one_time_launch_ns = measured.warmup_ns = measured.once_ns = 0;
    measured.first_call_ns = 0;
    measured.first_calls.clear();
    measured.holders = t.recurring_holders;
    return a + " For the rest: " + cause_action(cause, measured);
  }
  return cause_action(cause, t);
}

std::string IdleCauseFindings::cause_action(IdleCause cause, const CauseTally& t) const {
  const std::string holder = holder_phrase(t);
  switch (cause) {
    case IdleCause::kDataloader: {
      const auto ranked = ranked_holders(t);
      const std::string name = ranked.empty() ? "" : ranked.front().first;
      std::string a;
      if (contains(name, "_SingleProcessDataLoaderIter"))
        a = "The DataLoader runs in the training process (the single-process iterator: "
            "num_workers=0): set num_workers > 0 so that batches are prepared in worker "
            "processes while the GPU computes, with persistent_workers=True and a "
            "prefetch_factor of 2 or more.";
      else if (contains(name, "_MultiProcessingDataLoaderIter"))
        a = "The DataLoader already uses worker processes, and they still do not keep up: raise "
            "num_workers or prefetch_factor, set persistent_workers=True, and check the storage "
            "throughput and the cost of decoding and augmentation.";
      else
        a = "Prepare batches ahead of the GPU: DataLoader num_workers > 0 with "
            "persistent_workers=True and prefetch_factor >= 2.";
      if (facts_.pageable_host_copies > 0)
        a += " The trace copies from pageable host memory (" +
             count_of(facts_.pageable_host_copies, "copy", "copies") +
             "): pin_memory=True lets those copies run asynchronously.";
      return a + " Move decoding and augmentation to the GPU where the CPU is the limit.";
    }
    case IdleCause::kBlockingCopy: {
      std::string a = "The host waits for a copy to finish in " + holder +
                      ". Keep the value on the GPU, or read it every N steps instead of every "
                      "step.";
      if (facts_.pageable_host_copies > 0)
        a += " The trace copies from or to pageable host memory (" +
             count_of(facts_.pageable_host_copies, "copy", "copies") +
             "): where the host needs the value, copy into pinned memory with "
             "non_blocking=True and wait on an event recorded after the copy.";
      return a;
    }
    case IdleCause::kSync:
      return "Remove or defer the synchronization in " + holder +
             ": order streams with event waits instead of a device or stream synchronize, and "
             "check results one step later.";
    case IdleCause::kAllocator: {
      std::string a = "The host allocates or frees memory in " + holder +
                      " while the GPU waits: keep the caching allocator warm (no "
                      "torch.cuda.empty_cache() in the loop) and pre-allocate buffers of the "
                      "largest shape.";
      if (contains(holder, "Host")) a += " Allocate pinned host buffers once and reuse them.";
      return a;
    }
    case IdleCause::kLaunchOverhead: {
      std::string a;
      if (t.one_time_launch_ns > 0) {
        a = ms(ns_to_ms(t.one_time_launch_ns)) +
            " of it is in launch calls of 1 ms or more: first launches (lazy module loading, "
            "library initialisation), paid once. Warm up before profiling; graphs do not "
            "shorten those.";
        if (2 * t.one_time_launch_ns >= t.ns) return a;
        a += " For the rest: ";
      }
      if (facts_.graph_launches > 0)
        a += "The trace already replays " +
             count_of(facts_.graph_launches, "graph launch", "graph launches") +
             "; the idle time is in the part still launched kernel by kernel (" + holder +
             "): capture that region too, or compile it with torch.compile(mode=\"max-autotune-"
             "no-cudagraphs\") and fewer, larger kernels.";
      else
        a += "No kernel in the trace is replayed from a GPU graph: capture the step as a "
             "CUDA/HIP graph (torch.compile(mode=\"reduce-overhead\") or torch.cuda.graphs) so "
             "that one launch replays its kernels.";
      return a + " Fusing small kernels or a larger batch also cuts launches per unit of work.";
    }
    case IdleCause::kHostCompute: {
      const auto ranked = ranked_holders(t);
      // Spread over many short gaps with no host event holding much of it: the eager
      // framework's per-op cost (Python, dispatcher, allocator bookkeeping) between kernels,
      // not one host computation to move (a DDP ResNet step: 2403 gaps, the largest holder 9 %).
      if (!ranked.empty() && t.gaps.size() >= kDiffuseMinGaps &&
          ranked.front().second.ns * kDiffuseHolderShare < t.ns)
        return "No host event holds much of this time: it is spread over " +
               count_of(t.gaps.size(), "gap") + " (" + ms(ns_to_ms(t.ns) / t.gaps.size()) +
               " each on average), the largest share in " + holder +
               ". That is the eager framework's per-op host cost between kernels, not one "
               "computation to move: " +
               (facts_.graph_launches > 0
                    ? "the trace already replays " +
                          count_of(facts_.graph_launches, "graph launch", "graph launches") +
                          ", so capture or compile the region still run op by op "
                          "(torch.compile(mode=\"reduce-overhead\"))"
                    : std::string("cut it for the whole step with torch.compile or CUDA/HIP "
                                  "graphs (torch.compile(mode=\"reduce-overhead\"))")) +
               ", or use fewer, larger ops.";
      if (!ranked.empty() && launches_gpu_work(ranked.front().second.example))
        return "The host spends the time dispatching GPU ops (the largest share in " + holder +
               ")" +
               ": cut the per-op host cost (torch.compile, fewer and larger ops, CUDA/HIP "
               "graphs) so that launches keep ahead of the GPU.";
      return "The host runs " + holder +
             " while the GPU waits: move that work to the GPU, overlap it with GPU work "
             "(a background thread or process), or cut its Python overhead.";
    }
    case IdleCause::kDependency: {
      if (2 * t.short_gap_ns >= t.ns)
        return "Most of it is in gaps under 10 \xC2\xB5s between kernels that were already "
               "queued: the GPU's own launch latency between back-to-back kernels. Fewer, "
               "larger kernels (fusion) or graph replay shorten it; host-side changes do not.";
      std::string a =
          "The GPU work was queued before the gap and waited on a dependency (an event wait, "
          "another stream, device or collective); host-side changes do not shorten it.";
      if (!holder.empty()) a += " The host was waiting in " + holder + " meanwhile.";
      return a;
    }
    case IdleCause::kUntraced:
      return "No host event covers this idle time: widen the profiler schedule or annotate the "
             "region with torch.profiler.record_function to see what the host does.";
  }
  return {};
}

std::string IdleCauseFindings::reasoning(IdleCause cause, const CauseTally& t) const {
  std::string text =
      "A gap is an interval of the run in which no GPU event runs on any stream; "
      "its time is given to what the launching host thread was doing, from its "
      "innermost event outwards (diagnosis.md §2). ";
  text += count_of(t.gaps.size(), "gap") + " hold " + ms(ns_to_ms(t.ns)) + " of this cause.";
  const double median = idle_.launch_delay_median_us();
  if (cause == IdleCause::kLaunchOverhead && median == median) {
    text += " GPU work starts a median " + fixed(median, 1) + " \xC2\xB5s (p95 " +
            fixed(idle_.launch_delay_p95_us(), 1) + " \xC2\xB5s) after its launch call returns";
    text += median > 2 * idle_.launch_call_mean_us()
                ? ", so elsewhere the GPU is the bottleneck and the queue runs ahead."
                : ": the queue rarely runs ahead of the GPU.";
  }
  return text;
}

std::string IdleCauseFindings::step_of(std::int64_t ns) const {
  std::string name;
  for (Row s : facts_.steps) {
    if (ev_.ts_ns(s) > ns) break;
    if (ev_.end_ns(s) > ns) name = std::string(ev_.name(s));
  }
  return name.empty() ? "—" : name;
}

// The longest gaps of the cause, longest first (ties: earlier); `evidence` gets the GPU event
// that ends each.
Table IdleCauseFindings::gap_table(const CauseTally& t, std::vector<Row>& evidence) const {
  // Only the first few are shown: selected, not all sorted (a serving trace has millions of
  // gaps). t.gaps is ascending, so breaking ties by index keeps the earlier gap first.
  std::vector<std::size_t> gaps = t.gaps;
  const auto shown =
      static_cast<std::ptrdiff_t>(system::capped(gaps.size(), options_.evidence_gaps));
  std::partial_sort(gaps.begin(), gaps.begin() + shown, gaps.end(),
                    [&](std::size_t a, std::size_t b) {
                      const std::int64_t da = idle_.gap(a).dur_ns, db = idle_.gap(b).dur_ns;
                      return da != db ? da > db : a < b;
                    });
  gaps.resize(static_cast<std::size_t>(shown));
  Table table("Longest gaps", {"Gap start (ms)", "Gap (ms)", "Step", "Next GPU event"});
  for (std::size_t g : gaps) {
    const IdleAttribution::Gap gap = idle_.gap(g);
    table.row({fixed(ns_to_ms(gap.start_ns - idle_.window_start_ns()), 3),
               fixed(ns_to_ms(gap.dur_ns), 3), step_of(gap.start_ns), shorten(ev_.name(gap.next))});
    evidence.push_back(gap.next);
  }
  return table;
}

Table IdleCauseFindings::holder_table(const CauseTally& t) const {
  Table table("Host events holding the idle time",
              {"Host event", "Idle (ms)", "Top-level op", "Python frame"});
  const auto ranked = ranked_holders(t);
  const std::size_t n = system::capped(ranked.size(), options_.host_op_rows);
  for (std::size_t i = 0; i < n; ++i) {
    const auto& [name, h] = ranked[i];
    table.row({shorten(name), fixed(ns_to_ms(h.ns), 3),
               h.top != kNoRow ? shorten(ev_.name(h.top)) : "—",
               h.frame != kNoRow ? shorten(ev_.name(h.frame)) : "—"});
  }
  return table;
}

}  // namespace traceprism::plugins::cpu_idle
