#include "memcpy_analyzer.hpp"

#include <traceprism/support.hpp>

#include <algorithm>
#include <map>
#include <optional>
#include <string_view>
#include <utility>

#include "../common/system_support.hpp"
#include "reference_figures.hpp"

namespace traceprism::plugins::memcpy {
namespace {

using support::compact;
using support::count_of;
using support::fixed;
using support::percent_adaptive;
using support::py_round;
using system::contains;

constexpr std::size_t kChainDepth = 3;  // ops shown per copy: enough for contiguous → clone → copy_
constexpr std::size_t kFamilyDepth = 64;

// Recoverable share of the exposed time (low, mid, high), docs/analyzers/memcpy/memcpy.md.
constexpr double kLayoutCopyRecovery[3] = {0.50, 0.75, 0.95};
constexpr double kHostCopyRecovery[3] = {0.30, 0.50, 0.70};

std::string share_text(double part_us, double e2e_us) {
  return percent_adaptive(part_us / e2e_us * 100.0);
}

// "all 5 copies use pageable memory", "3 of the 8 copies use pageable memory (41.2% of their
// exposed time)".
std::string pageable_words(std::size_t pageable, std::size_t count, double pageable_exposed_us,
                           double exposed_us) {
  if (pageable == count)
    return count == 1 ? "the copy uses pageable memory"
                      : "all " + std::to_string(count) + " copies use pageable memory";
  return std::to_string(pageable) + " of the " + std::to_string(count) +
         " copies use pageable memory (" +
         percent_adaptive(exposed_us > 0 ? pageable_exposed_us / exposed_us * 100 : 0) +
         " of their exposed time)";
}

// Why a device-to-device copy was issued, from the ops above its launching call.
enum class CopyFamily { kContiguous, kConcat, kClone, kConversion, kGraph, kCopy, kOther };

CopyFamily family_of(const EventView& ev, const CopyIssuers& issuers, Row copy) {
  const std::vector<Row> chain = issuers.op_chain(copy, kFamilyDepth);
  auto any = [&](std::initializer_list<std::string_view> names) {
    for (Row op : chain)
      for (std::string_view n : names)
        if (ev.name(op) == n) return true;
    return false;
  };
  if (any({"aten::contiguous"})) return CopyFamily::kContiguous;
  if (any({"aten::cat", "aten::concat", "aten::concatenate", "aten::stack"}))
    return CopyFamily::kConcat;
  if (any({"aten::clone"})) return CopyFamily::kClone;
  if (any({"aten::to", "aten::_to_copy"})) return CopyFamily::kConversion;
  const Row launcher = issuers.launcher_of(copy);
  if (chain.empty() && launcher != kNoRow && contains(ev.name(launcher), "GraphLaunch"))
    return CopyFamily::kGraph;
  if (any({"aten::copy_"})) return CopyFamily::kCopy;
  return CopyFamily::kOther;
}

// What to do about one family of layout copies; `share` is its part of the D2D copy time.
std::string family_action(CopyFamily f, const std::string& share, const std::string& example) {
  switch (f) {
    case CopyFamily::kContiguous:
      return "`aten::contiguous` (" + share +
             "): have the producer write the layout the consumer needs (e.g. transpose a weight "
             "once, not every step), or use an op that takes strided input";
    case CopyFamily::kConcat:
      return "`aten::cat` / `aten::stack` (" + share +
             "): allocate the output once and let the producers write into its slices";
    case CopyFamily::kClone:
      return "`aten::clone` (" + share + "): drop clones of tensors that are not modified later";
    case CopyFamily::kConversion:
      return "`aten::to` / `aten::_to_copy` (" + share +
             "): convert once and keep the converted tensor instead of converting every step";
    case CopyFamily::kGraph:
      return "copies replayed by graph launches (" + share +
             "): remove them from the captured region, e.g. by writing inputs into the graph's "
             "static buffers where they are produced";
    case CopyFamily::kCopy:
      return "`aten::copy_` (" + share +
             "): let the producer write into the destination instead of copying into it";
    case CopyFamily::kOther:
      break;
  }
  return "`" + example + "` (" + share + "): check whether the copy is needed";
}

}  // namespace

struct MemcpyAnalyzer::Run {
  Run(const Context& ctx, std::int64_t sync_h2d_min_bytes)
      : copies(system::rows_of_class(ctx, {Kind::kMemcpy, Kind::kKernel}, GpuClass::kMemcpy)),
        set(timeline_set(ctx)),
        traffic(measure_traffic(ctx, set, copies)),
        issuers(ctx),
        blocking(issuers.blocking(copies, sync_h2d_min_bytes)) {}
  std::vector<Row> copies;  // every copy, linked or not, in file order
  TimelineSet set;
  Traffic traffic;
  CopyIssuers issuers;
  BlockingCopies blocking;
  double e2e_us() const { return set.e2e_us; }
};

MemcpyAnalyzer::MemcpyAnalyzer(Context& ctx)
    : d2d_percent_(ctx.declared_option<double>("D2DPercentThreshold", kMemcpyOptions)),
      host_exposed_percent_(
          ctx.declared_option<double>("HostExposedPercentThreshold", kMemcpyOptions)),
      slow_link_percent_(ctx.declared_option<double>("SlowLinkPercent", kMemcpyOptions)),
      small_copy_bytes_(ctx.declared_option<std::int64_t>("SmallCopyBytes", kMemcpyOptions)),
      direction_percent_threshold_(
          ctx.declared_option<double>("DirectionPercentThreshold", kMemcpyOptions)),
      direction_count_threshold_(
          ctx.declared_option<std::int64_t>("DirectionCountThreshold", kMemcpyOptions)),
      sync_h2d_min_bytes_(ctx.declared_option<std::int64_t>("SyncH2DMinBytes", kMemcpyOptions)),
      table_rows_(ctx.declared_option<std::int64_t>("TableRows", kMemcpyOptions)),
      max_evidence_rows_(ctx.declared_option<std::int64_t>("MaxEvidenceRows", kMemcpyOptions)) {}

Status MemcpyAnalyzer::run(Context& ctx) {
  const Run run(ctx, sync_h2d_min_bytes_);
  record_reference_figures(ctx, run.copies, system::e2e_us(ctx),
                           {direction_percent_threshold_, direction_count_threshold_});
  record_traffic(ctx, run.traffic, run.set);
  ctx.record("rules.pageable_async.count", static_cast<double>(run.blocking.pageable_async.size()));
  ctx.record("rules.sync_memcpy.count", static_cast<double>(run.blocking.sync_memcpy.size()));
  ctx.record("rules.sync_memset.count", static_cast<double>(run.blocking.sync_memset.size()));
  if (run.e2e_us() <= 0) return Status::kOk;  // no window: no share can be claimed
  report_device_copies(ctx, run);
  report_host_copies(ctx, run, Direction::kHtoD);
  report_host_copies(ctx, run, Direction::kDtoH);
  return Status::kOk;
}

// Device-to-device copies whose time is a material share of the run: layout copies to remove.
void MemcpyAnalyzer::report_device_copies(Context& ctx, const Run& run) const {
  const CopyStats& s = run.traffic.of(Direction::kDtoD);
  const double percent = s.busy_us / run.e2e_us() * 100.0;
  if (s.count() == 0 || percent < d2d_percent_) return;
  const double exposed = s.exposed_us / run.e2e_us() * 100.0;
  FindingBuilder finding =
      ctx.report(Tier::kSystem, "memcpy",
                 "Device-to-device copies take " + fixed(percent, 1) + "% of the run (" +
                     count_of(s.count(), "copy", "copies") + ", " + support::bytes_text(s.bytes) +
                     ")")
          .key("d2d")
          .cause("memcpy")
          .severity(Severity::kWarning)
          .insight(device_copy_insight(ctx, s, run.e2e_us()))
          .action(layout_copy_action(ctx, run, s))
          .identification(
              "Copies whose name or arguments give the direction DtoD (`Memcpy DtoD (Device -> "
              "Device)`), among the GPU events gpu_timeline counts; device-to-device copy time "
              "is at least " +
              compact(d2d_percent_) +
              "% of E2E. The ops come from each copy's launching runtime call, up the call tree "
              "(source: `gpu_memcpy` events, launch links, call tree).")
          .reasoning(
              "A device-to-device copy moves bytes that are already in GPU memory and computes "
              "nothing: it reads and writes every byte in HBM. Layout copies (`.contiguous()` "
              "after a transpose or permute, concatenation, clones, conversions) are often "
              "avoidable, and when nothing overlaps them the GPU spends that time on the copy "
              "alone.")
          .resolution(
              "Without the copy the consumer reads the producer's tensor directly (a view, or a "
              "kernel that takes strided input), or the producer writes into the final place; "
              "the copy's time goes away, less what a strided consumer may need extra.")
          .share_percent(std::min(100.0, percent))
          .impact(exposed * kLayoutCopyRecovery[0], exposed * kLayoutCopyRecovery[1],
                  exposed * kLayoutCopyRecovery[2])
          .metric("percent_of_e2e", py_round(percent, 2));
  add_metrics(finding, s, exposed, link_of(ctx, Direction::kDtoD));
  finding.table(ops_table(ctx, run, s.rows));
  attach_copies(ctx, run, finding, s.rows);
  finding.emit();
}

std::string MemcpyAnalyzer::device_copy_insight(const Context& ctx, const CopyStats& s,
                                                double e2e_us) const {
  std::string insight = count_of(s.count(), "device-to-device copy", "device-to-device copies") +
                        (s.count() == 1 ? " moves " : " move ") + support::bytes_text(s.bytes) +
                        " in " + support::ms(s.busy_us / 1000) + ", " +
                        share_text(s.busy_us, e2e_us) + " of the run; " +
                        share_text(s.exposed_us, e2e_us) +
                        " of the run is exposed (no computation or communication runs meanwhile).";
  const Link hbm = link_of(ctx, Direction::kDtoD);
  const std::optional<double> gbps = s.achieved_gbps();
  if (gbps && hbm.gbps)
    insight += " Counting each byte read and written, they move " +
               fixed(*gbps * hbm.crossings, 0) + " GB/s of HBM traffic, " +
               percent_adaptive(*gbps * hbm.crossings / *hbm.gbps * 100) + " of the platform's " +
               compact(*hbm.gbps) + " GB/s.";
  else if (gbps)
    insight += " The platform's HBM bandwidth is unknown, so their bandwidth is not judged.";
  return insight;
}

// "Remove the layout copies", naming the (up to three) families that hold the most copy time.
std::string MemcpyAnalyzer::layout_copy_action(const Context& ctx, const Run& run,
                                               const CopyStats& s) const {
  const EventView ev = ctx.events();
  std::map<CopyFamily, std::pair<double, std::string>> families;  // time, an example op
  for (Row r : s.rows) {
    auto& [time, example] = families[family_of(ev, run.issuers, r)];
    time += ev.dur_us(r);
    if (example.empty()) example = run.issuers.op_chain_text(r, 1);
  }
  std::vector<std::pair<double, CopyFamily>> by_time;  // most time first, then family order
  for (const auto& [f, v] : families) by_time.emplace_back(-v.first, f);
  std::sort(by_time.begin(), by_time.end());
  std::string action = "Remove the layout copies where the consumer can take the data as it is: ";
  for (std::size_t i = 0; i < by_time.size() && i < 3; ++i) {
    const auto& [time, example] = families[by_time[i].second];
    const double share = s.time_us > 0 ? time / s.time_us * 100 : 0;
    action +=
        (i ? "; " : "") +
        family_action(by_time[i].second,
                      percent_adaptive(share) + " of the device-to-device copy time", example);
  }
  return action + ". Expect at most the exposed copy time back.";
}

// Host<->device copies of one direction whose exposed time is a material share of the run.
void MemcpyAnalyzer::report_host_copies(Context& ctx, const Run& run, Direction d) const {
  const CopyStats& s = run.traffic.of(d);
  const double exposed = s.exposed_us / run.e2e_us() * 100.0;
  if (s.count() == 0 || exposed < host_exposed_percent_) return;
  const bool h2d = d == Direction::kHtoD;
  FindingBuilder finding =
      ctx.report(Tier::kSystem, "memcpy",
                 "Exposed " + std::string(direction_words(d)) + " copies take " +
                     fixed(exposed, 1) + "% of the run (" + count_of(s.count(), "copy", "copies") +
                     ", " + support::bytes_text(s.bytes) + ")")
          .key(h2d ? "h2d" : "d2h")
          .cause("memcpy")
          .severity(Severity::kWarning)
          .insight(host_copy_insight(ctx, run, d) + blocking_note(ctx, run, d))
          .action(host_copy_actions(ctx, run, d))
          .identification(
              "Copies whose name or arguments give the direction " + std::string(direction_key(d)) +
              ", among the GPU events gpu_timeline counts; their time under no computation or "
              "communication kernel is at least " +
              compact(host_exposed_percent_) +
              "% of E2E. Memory kinds from the copy names (`Memcpy HtoD (Pageable -> Device)`); "
              "the link from the platform's `host_link_gbps` (source: `gpu_memcpy` events, "
              "platform file).")
          .reasoning(
              h2d ? "An exposed host-to-device copy is GPU time spent receiving input while no "
                    "kernel runs: the kernels that need the data wait for it. Pageable host "
                    "memory is staged by the driver through a pinned buffer, which slows the "
                    "copy and blocks the host; many small copies each pay the link's latency."
                  : "An exposed device-to-host copy is GPU time spent sending results while no "
                    "kernel runs. Reads into pageable memory are staged by the driver and block "
                    "the host; many small reads each pay the link's latency.")
          .resolution(
              "Pinned buffers let the copy engine use host memory directly at link speed; a copy "
              "issued ahead of use on another stream runs while kernels compute, so it leaves the "
              "critical path; one large transfer pays the latency once.")
          .share_percent(std::min(100.0, exposed))
          .impact(exposed * kHostCopyRecovery[0], exposed * kHostCopyRecovery[1],
                  exposed * kHostCopyRecovery[2])
          .metric("pageable_count", static_cast<double>(pageable_part(run, d).count));
  add_metrics(finding, s, exposed, link_of(ctx, d));
  finding.table(kinds_table(ctx, run, d));
  attach_copies(ctx, run, finding, s.rows);
  finding.emit();
}

std::string MemcpyAnalyzer::host_copy_insight(const Context& ctx, const Run& run,
                                              Direction d) const {
  const CopyStats& s = run.traffic.of(d);
  const std::string words = direction_words(d);
  std::string insight =
      count_of(s.count(), (words + " copy").c_str(), (words + " copies").c_str()) + " move " +
      support::bytes_text(s.bytes) + " in " + support::ms(s.busy_us / 1000) + "; " +
      support::ms(s.exposed_us / 1000) + " of it (" + share_text(s.exposed_us, run.e2e_us()) +
      " of the run) is exposed: no computation or communication runs "
      "meanwhile. By memory kind: ";
  std::size_t unspecified_host = 0;
  const std::vector<const CopyGroup*> groups = run.traffic.groups_of(d);
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const CopyGroup& g = *groups[i];
    insight += (i ? "; " : "") + std::to_string(g.stats.count()) + " " + g.kinds() + " (" +
               support::bytes_text(g.stats.bytes) + ", " + support::ms(g.stats.exposed_us / 1000) +
               " exposed)";
    if (g.host_side() == TRACEPRISM_MEMORY_HOST) unspecified_host += g.stats.count();
  }
  insight += ".";
  if (unspecified_host > 0)
    insight += " " + count_of(unspecified_host, "copy names", "copies name") +
               " the host side only `Host` (ROCm's names): the trace does not say whether that "
               "memory is pinned.";
  const Link link = link_of(ctx, d);
  const std::optional<double> gbps = s.achieved_gbps();
  if (!gbps) return insight + " No copy records its size, so the bandwidth is not judged.";
  if (!link.gbps)
    return insight + " They reach " + fixed(*gbps, 1) +
           " GB/s; the platform's host-link bandwidth is unknown (no `host_link_gbps`), so the "
           "link is not judged.";
  return insight + " They reach " + fixed(*gbps, 1) + " GB/s, " +
         percent_adaptive(*gbps / *link.gbps * 100) + " of the " + compact(*link.gbps) +
         " GB/s host link (one direction).";
}

// The direction's copies from or to pageable memory: how many, and their exposed time.
MemcpyAnalyzer::PageablePart MemcpyAnalyzer::pageable_part(const Run& run, Direction d) {
  PageablePart p;
  for (const CopyGroup* g : run.traffic.groups_of(d))
    if (g->host_side() == TRACEPRISM_MEMORY_PAGEABLE)
      p.count += g->stats.count(), p.exposed_us += g->stats.exposed_us;
  return p;
}

// The metrics every finding carries: what it is about, and the link when known.
void MemcpyAnalyzer::add_metrics(FindingBuilder& finding, const CopyStats& s, double exposed,
                                 const Link& link) {
  finding.metric("count", static_cast<double>(s.count()))
      .metric("bytes", s.bytes)
      .metric("busy_us", py_round(s.busy_us, 3))
      .metric("exposed_us", py_round(s.exposed_us, 3))
      .metric("exposed_percent_of_e2e", py_round(exposed, 2));
  const std::optional<double> gbps = s.achieved_gbps();
  if (gbps) finding.metric("achieved_gbps", py_round(*gbps, 3));
  if (link.gbps) finding.metric("link_gbps", *link.gbps);
  if (gbps && link.gbps)
    finding.metric("link_percent", py_round(*gbps * link.crossings / *link.gbps * 100, 2));
}

// The actions for exposed host<->device copies, each only where the trace shows its condition.
std::string MemcpyAnalyzer::host_copy_actions(const Context& ctx, const Run& run,
                                              Direction d) const {
  const CopyStats& s = run.traffic.of(d);
  const bool h2d = d == Direction::kHtoD;
  std::string actions;
  const PageablePart pageable = pageable_part(run, d);
  if (pageable.count > 0)
    actions += std::string(h2d ? "Pin the host memory (`pin_memory=True` in the DataLoader, "
                                 "`tensor.pin_memory()` for buffers you reuse) and copy with "
                                 "`non_blocking=True`"
                               : "Copy into pinned host buffers (`torch.empty(..., "
                                 "pin_memory=True)`, then `.copy_(x, non_blocking=True)`)") +
               ": " + pageable_words(pageable.count, s.count(), pageable.exposed_us, s.exposed_us) +
               ". ";

  const Link link = link_of(ctx, d);
  const std::optional<double> gbps = s.achieved_gbps();
  const bool slow = gbps && link.gbps && *gbps / *link.gbps * 100 < slow_link_percent_;
  if (slow && s.median_bytes < static_cast<double>(small_copy_bytes_))
    actions += "Batch the small transfers: the median copy moves " +
               support::bytes_text(s.median_bytes) + " and the copies reach only " +
               percent_adaptive(*gbps / *link.gbps * 100) +
               " of the host link, so each copy's fixed cost dominates; gather the data into one "
               "buffer and copy it once. ";
  else if (slow && pageable.count == 0)
    actions += "The copies are large and not pageable, yet reach only " +
               percent_adaptive(*gbps / *link.gbps * 100) +
               " of the host link: check the link the GPU negotiated (`nvidia-smi -q`: PCIe "
               "generation and width; `rocm-smi --showbus`) and that the host buffers sit on the "
               "GPU's NUMA node. ";

  actions += h2d ? "Overlap the transfers with compute: issue them ahead of use on a side stream "
                   "(prefetch the next batch while the current one computes), so that kernels "
                   "hide them."
                 : "Read results back less often and overlap the rest: keep values on the GPU, "
                   "gather the reads of a step into one transfer, and issue it asynchronously on "
                   "a side stream.";
  return actions + " Expect at most the exposed copy time back.";
}

// Copies of the direction that block the host: their GPU idle time is the GPU-idle finding's.
std::string MemcpyAnalyzer::blocking_note(const Context& ctx, const Run& run, Direction d) const {
  std::vector<Row> rows;
  for (Row r : run.traffic.of(d).rows)
    if (run.blocking.blocks(r)) rows.push_back(r);
  if (rows.empty()) return {};
  std::string note = " " +
                     count_of(rows.size(), "of these copies blocks", "of these copies block") +
                     " the host (launched by " + run.issuers.api_names(rows) +
                     "; an asynchronous copy of pageable memory blocks too): the GPU idle time "
                     "that causes is reported by the GPU-idle finding for blocking copies (cause "
                     "`blocking_copy`), not here, and this finding's impact does not count it.";
  if (const std::optional<IdleAttribution> idle = ctx.idle_attribution()) {
    const double us = idle->idle_us(IdleCause::kBlockingCopy);
    note += " The run has " + support::ms(us / 1000) + " (" + share_text(us, run.e2e_us()) +
            ") of GPU idle time attributed to blocking copies.";
  }
  return note;
}

Table MemcpyAnalyzer::kinds_table(const Context& ctx, const Run& run, Direction d) const {
  Table table("Copies by memory kind", {"Memory", "Copies", "Bytes", "Time (\xC2\xB5s)",
                                        "Exposed (\xC2\xB5s)", "GB/s", "% of link"});
  const Link link = link_of(ctx, d);
  for (const CopyGroup* g : run.traffic.groups_of(d)) {
    const std::optional<double> gbps = g->stats.achieved_gbps();
    std::string of_link = "\xE2\x80\x94";
    if (gbps && link.gbps) of_link = percent_adaptive(*gbps / *link.gbps * 100);
    if (gbps && !link.gbps) of_link = "link unknown";
    table.row({g->kinds(), std::to_string(g->stats.count()), fixed(g->stats.bytes, 0),
               compact(g->stats.time_us), compact(g->stats.exposed_us),
               gbps ? fixed(*gbps, 1) : "\xE2\x80\x94", of_link});
  }
  return table;
}

// The op chains that issue `rows`, by copy time, each measured on its own.
Table MemcpyAnalyzer::ops_table(const Context& ctx, const Run& run,
                                const std::vector<Row>& rows) const {
  Table table("Ops that issue the copies", {"Ops", "Copies", "Bytes", "Time (\xC2\xB5s)",
                                            "Exposed (\xC2\xB5s)", "Share of copy time"});
  std::map<std::string, std::vector<Row>> by_chain;
  for (Row r : rows) by_chain[run.issuers.op_chain_text(r, kChainDepth)].push_back(r);
  std::vector<std::pair<std::string, CopyStats>> chains;
  double total_us = 0;
  for (auto& [chain, chain_rows] : by_chain) {
    chains.emplace_back(chain, measure(ctx, run.set, std::move(chain_rows)));
    total_us += chains.back().second.time_us;
  }
  std::stable_sort(chains.begin(), chains.end(), [](const auto& a, const auto& b) {
    return a.second.time_us > b.second.time_us;
  });
  const std::size_t limit = system::capped(chains.size(), table_rows_);
  for (std::size_t i = 0; i < limit; ++i) {
    const auto& [chain, st] = chains[i];
    table.row({chain, std::to_string(st.count()), fixed(st.bytes, 0), compact(st.time_us),
               compact(st.exposed_us),
               total_us > 0 ? percent_adaptive(st.time_us / total_us * 100) : "\xE2\x80\x94"});
  }
  return table;
}

// Evidence and the table of longest copies: the longest first, each capped by its option.
void MemcpyAnalyzer::attach_copies(const Context& ctx, const Run& run, FindingBuilder& finding,
                                   std::vector<Row> rows) const {
  const EventView ev = ctx.events();
  system::sort_longest_first(ev, rows);
  const std::size_t evidence = system::capped(rows.size(), max_evidence_rows_);
  for (std::size_t i = 0; i < evidence; ++i) finding.evidence(rows[i]);
  Table table("Longest copies",
              {"Name", "Direction", "Bytes", "Duration (\xC2\xB5s)", "Launched by", "Op"});
  const std::size_t limit = system::capped(rows.size(), table_rows_);
  for (std::size_t i = 0; i < limit; ++i) {
    const Row r = rows[i];
    const auto args = ctx.gpu_args(r);
    const Row launcher = run.issuers.launcher_of(r);
    const Row op = run.issuers.nearest_op(r);
    table.row({std::string(ev.name(r)), direction_key(direction_of(ctx, r)),
               args && args->bytes >= 0 ? std::to_string(args->bytes) : "\xE2\x80\x94",
               compact(ev.dur_us(r)),
               launcher != kNoRow ? std::string(ev.name(launcher)) : "\xE2\x80\x94",
               op != kNoRow ? std::string(ev.name(op)) : "\xE2\x80\x94"});
  }
  finding.table(std::move(table));
}

}  // namespace traceprism::plugins::memcpy
