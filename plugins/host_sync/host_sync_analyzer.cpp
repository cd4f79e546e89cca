#include "host_sync_analyzer.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <traceprism/support.hpp>

#include "../common/system_support.hpp"

namespace traceprism::plugins::host_sync {
namespace {

using support::count_of;
using support::fixed;
using support::ms;
using support::percent_adaptive;

enum SyncKind { kDevice = 0, kStream = 1, kEvent = 2, kScalarRead = 3, kSyncKindCount = 4 };
constexpr const char* kKindKeys[kSyncKindCount] = {"device_synchronize", "stream_synchronize",
                                                   "event_synchronize", "item"};
constexpr const char* kKindProse[kSyncKindCount] = {"device synchronize", "stream synchronize",
                                                    "event synchronize", "scalar reads"};

struct SyncName {
  const char* name;
  SyncKind kind;
  bool host_op;  // a cpu_op (scalar read); otherwise a runtime or driver call
};

// The blocking calls: runtime (CUDA, HIP) and driver (CUDA) synchronize calls, and the ATen ops
// that read one GPU value on the host (tensor.item(), bool(tensor), ...).
constexpr SyncName kSyncNames[] = {
    {"cudaDeviceSynchronize", kDevice, false},
    {"hipDeviceSynchronize", kDevice, false},
    {"cuCtxSynchronize", kDevice, false},
    {"cudaStreamSynchronize", kStream, false},
    {"hipStreamSynchronize", kStream, false},
    {"cuStreamSynchronize", kStream, false},
    {"cudaEventSynchronize", kEvent, false},
    {"hipEventSynchronize", kEvent, false},
    {"cuEventSynchronize", kEvent, false},
    {"aten::item", kScalarRead, true},
    {"aten::_local_scalar_dense", kScalarRead, true},
};

constexpr Kind kHostKinds[] = {Kind::kCpuOp, Kind::kPythonFunction, Kind::kUserAnnotation,
                               Kind::kRuntime, Kind::kDriver};

// Evidence rows the finding keeps at most.
constexpr std::size_t kMaxEvidenceRows = 200;

// Which rows are blocking synchronization, by interned name and event kind.
class SyncMatcher {
 public:
  explicit SyncMatcher(const Context& ctx) {
    for (const SyncName& s : kSyncNames) {
      StringId id = ctx.find_string(s.name);
      if (id != kNoString) ids_.push_back({id, s});
    }
  }
  std::optional<SyncKind> match(const EventView& ev, Row r) const {
    const StringId id = ev.name_id(r);
    for (const auto& [sid, s] : ids_) {
      if (sid != id) continue;
      const Kind k = ev.kind(r);
      if (s.host_op ? k == Kind::kCpuOp : (k == Kind::kRuntime || k == Kind::kDriver))
        return s.kind;
    }
    return std::nullopt;
  }
  bool empty() const { return ids_.empty(); }

 private:
  std::vector<std::pair<StringId, SyncName>> ids_;
};

struct Wait {
  Row row;
  SyncKind kind;
  Row trigger;  // the nearest enclosing op that is not itself a sync op, or kNoRow
};

// The waits of one (sync call, triggering op).
struct Group {
  std::uint64_t calls = 0;
  std::int64_t total_ns = 0;
  std::int64_t stall_ns = 0;
  std::int64_t max_ns = -1;
  Row example = kNoRow;  // the longest call, the earliest row among equals
};

using Intervals = std::vector<std::pair<std::int64_t, std::int64_t>>;  // [begin, end) in ns

// The union of the launched GPU events, as disjoint intervals in time order.
Intervals gpu_busy_intervals(const Context& ctx) {
  const EventView ev = ctx.events();
  Intervals intervals;
  for (Kind kind : system::kGpuKinds) {
    for (Row r : ctx.rows(kind)) {
      if (ev.launcher(r) == kNoRow) continue;
      intervals.emplace_back(ev.ts_ns(r), ev.end_ns(r));
    }
  }
  std::sort(intervals.begin(), intervals.end());
  Intervals busy;
  for (const auto& iv : intervals) {
    if (!busy.empty() && iv.first <= busy.back().second) {
      busy.back().second = std::max(busy.back().second, iv.second);
    } else {
      busy.push_back(iv);
    }
  }
  return busy;
}

// Length of [lo, hi) covered by `busy` (disjoint, sorted intervals).
std::int64_t covered(const Intervals& busy, std::int64_t lo, std::int64_t hi) {
  std::int64_t sum = 0;
  auto it = std::upper_bound(busy.begin(), busy.end(), lo,
                             [](std::int64_t t, const auto& iv) { return t < iv.second; });
  for (; it != busy.end() && it->first < hi; ++it) {
    sum += std::min(hi, it->second) - std::max(lo, it->first);
  }
  return sum;
}

double ns_to_ms(std::int64_t ns) {
  return static_cast<double>(ns) / 1e6;
}

}  // namespace

struct HostSyncAnalyzer::Waits {
  std::vector<Wait> list;    // not nested in another wait, in (ts, row) order
  std::uint64_t nested = 0;  // sync rows inside another sync row: the same wait, not counted
};

struct HostSyncAnalyzer::EndToEnd {
  std::int64_t begin_ns = std::numeric_limits<std::int64_t>::max();
  std::int64_t end_ns = std::numeric_limits<std::int64_t>::min();
  double us = 0;
  bool gpu = false;  // the GPU timeline's span; else the host events' span, and `busy` is empty
  Intervals busy;    // the launched GPU events' union
};

struct HostSyncAnalyzer::CallSite {
  const std::pair<std::string, std::string>* key;  // (sync call, triggering op)
  const Group* group;
};

struct HostSyncAnalyzer::Tally {
  // A wait's stall is the part of it inside the span during which no GPU event runs: host and
  // GPU both wait.
  std::int64_t total_ns = 0, in_span_ns = 0, stall_ns = 0, max_ns = 0;
  std::uint64_t kind_calls[kSyncKindCount] = {0, 0, 0, 0};
  std::int64_t kind_ns[kSyncKindCount] = {0, 0, 0, 0};
  std::int64_t kind_stall_ns[kSyncKindCount] = {0, 0, 0, 0};
  std::map<std::pair<std::string, std::string>, Group> groups;
  double in_span_ms = 0, stall_ms = 0;
  double percent_of_span = 0, stall_percent = 0;
};

HostSyncAnalyzer::HostSyncAnalyzer(Context& ctx)
    : threshold_percent_(ctx.declared_option<double>("StallThresholdPercent", kOptions)),
      repeated_count_(ctx.declared_option<std::int64_t>("RepeatedSyncCount", kOptions)),
      max_table_rows_(ctx.declared_option<std::int64_t>("MaxTableRows", kOptions)) {}

Status HostSyncAnalyzer::run(Context& ctx) {
  const Waits waits = find_waits(ctx);
  const EndToEnd span = end_to_end(ctx);
  const Tally t = tally(ctx.events(), waits, span);
  record(ctx, waits, span, t);

  const bool stalls = t.stall_percent > threshold_percent_;
  const bool repeated =
      repeated_count_ > 0 && waits.list.size() >= static_cast<std::size_t>(repeated_count_);
  // Without the GPU timeline there is no GPU idle time to weigh the waits against.
  if (!span.gpu || waits.list.empty() || !(stalls || repeated)) return Status::kOk;
  report(ctx, waits, span, t, stalls);
  return Status::kOk;
}

// Each sync row not nested inside another sync row: a cudaStreamSynchronize inside aten::item
// is the same wait, counted once as aten::item.
HostSyncAnalyzer::Waits HostSyncAnalyzer::find_waits(const Context& ctx) {
  const EventView ev = ctx.events();
  const SyncMatcher matcher(ctx);
  Waits waits;
  if (matcher.empty()) return waits;
  for (Kind kind : {Kind::kCpuOp, Kind::kRuntime, Kind::kDriver}) {
    for (Row r : ctx.rows(kind)) {
      std::optional<SyncKind> k = matcher.match(ev, r);
      if (!k) continue;
      bool inside_sync = false;
      Row trigger = kNoRow, fallback = kNoRow;
      for (Row p = ev.parent(r); p != kNoRow; p = ev.parent(p)) {
        if (matcher.match(ev, p)) {
          inside_sync = true;
          break;
        }
        if (trigger == kNoRow && ev.kind(p) == Kind::kCpuOp) trigger = p;
        if (fallback == kNoRow) fallback = p;
      }
      if (inside_sync) {
        ++waits.nested;
        continue;
      }
      waits.list.push_back({r, *k, trigger != kNoRow ? trigger : fallback});
    }
  }
  std::sort(waits.list.begin(), waits.list.end(), [&](const Wait& a, const Wait& b) {
    return ev.ts_ns(a.row) != ev.ts_ns(b.row) ? ev.ts_ns(a.row) < ev.ts_ns(b.row) : a.row < b.row;
  });
  return waits;
}

// The GPU timeline (first to last launched GPU event) when the trace has one, else the span of
// the host events.
HostSyncAnalyzer::EndToEnd HostSyncAnalyzer::end_to_end(const Context& ctx) {
  EndToEnd span;
  const std::optional<Timeline> timeline = ctx.timeline();
  if (timeline && timeline->total_us > 0) {
    span.busy = gpu_busy_intervals(ctx);
    if (!span.busy.empty()) {
      span.begin_ns = span.busy.front().first;
      span.end_ns = span.busy.back().second;
    }
    span.gpu = span.begin_ns < span.end_ns;
    span.us = timeline->total_us;
    if (span.gpu) return span;
  }
  const EventView ev = ctx.events();
  EndToEnd host;
  for (Kind kind : kHostKinds) {
    for (Row r : ctx.rows(kind)) {
      host.begin_ns = std::min(host.begin_ns, ev.ts_ns(r));
      host.end_ns = std::max(host.end_ns, ev.end_ns(r));
    }
  }
  host.us =
      host.begin_ns < host.end_ns ? static_cast<double>(host.end_ns - host.begin_ns) / 1e3 : 0.0;
  return host;
}

// Totals, per kind, and per (sync call, triggering op).
HostSyncAnalyzer::Tally HostSyncAnalyzer::tally(const EventView& ev, const Waits& waits,
                                                const EndToEnd& span) {
  Tally t;
  for (const Wait& w : waits.list) {
    const std::int64_t dur = std::max<std::int64_t>(0, ev.dur_ns(w.row));
    t.total_ns += dur;
    t.max_ns = std::max(t.max_ns, dur);
    const std::int64_t lo = std::max(ev.ts_ns(w.row), span.begin_ns);
    const std::int64_t hi = std::min(ev.ts_ns(w.row) + dur, span.end_ns);
    std::int64_t stall = 0;
    if (hi > lo) {
      t.in_span_ns += hi - lo;
      if (span.gpu) stall = (hi - lo) - covered(span.busy, lo, hi);
    }
    t.stall_ns += stall;
    ++t.kind_calls[w.kind];
    t.kind_ns[w.kind] += dur;
    t.kind_stall_ns[w.kind] += stall;
    std::string trigger = w.trigger != kNoRow ? std::string(ev.name(w.trigger)) : "(none)";
    Group& g = t.groups[{std::string(ev.name(w.row)), std::move(trigger)}];
    ++g.calls;
    g.total_ns += dur;
    g.stall_ns += stall;
    if (dur > g.max_ns || (dur == g.max_ns && w.row < g.example)) {
      g.max_ns = dur;
      g.example = w.row;
    }
  }
  t.in_span_ms = ns_to_ms(t.in_span_ns);
  t.stall_ms = ns_to_ms(t.stall_ns);
  t.percent_of_span = span.us > 0 ? t.in_span_ms * 1e3 / span.us * 100.0 : 0.0;
  t.stall_percent = span.us > 0 ? t.stall_ms * 1e3 / span.us * 100.0 : 0.0;
  return t;
}

void HostSyncAnalyzer::record(Context& ctx, const Waits& waits, const EndToEnd& span,
                              const Tally& t) {
  ctx.record("sync.count", static_cast<double>(waits.list.size()));
  ctx.record("sync.total_ms", ns_to_ms(t.total_ns));
  ctx.record("sync.max_ms", ns_to_ms(t.max_ns));
  ctx.record("sync.in_span_ms", t.in_span_ms);
  ctx.record("sync.span_ms", span.us / 1e3);
  ctx.record("sync.span_is_gpu_timeline", span.gpu ? 1.0 : 0.0);
  ctx.record("sync.percent_of_span", t.percent_of_span);
  ctx.record("sync.stall_ms", t.stall_ms);
  ctx.record("sync.stall_percent_of_span", t.stall_percent);
  ctx.record("sync.nested_calls", static_cast<double>(waits.nested));
  for (int k = 0; k < kSyncKindCount; ++k) {
    const std::string prefix = std::string("sync.") + kKindKeys[k] + ".";
    ctx.record(prefix + "count", static_cast<double>(t.kind_calls[k]));
    ctx.record(prefix + "total_ms", ns_to_ms(t.kind_ns[k]));
    ctx.record(prefix + "stall_ms", ns_to_ms(t.kind_stall_ns[k]));
  }
}

void HostSyncAnalyzer::report(Context& ctx, const Waits& waits, const EndToEnd& span,
                              const Tally& t, bool stalls) const {
  const EventView ev = ctx.events();
  const std::vector<CallSite> ranked = ranked_call_sites(t);
  ctx.report(Tier::kSystem, "host_sync", title(waits, t, stalls))
      .key("device-sync")
      .severity(!stalls                   ? Severity::kInfo
                : t.stall_percent >= 10.0 ? Severity::kCritical
                                          : Severity::kWarning)
      .insight(insight(waits, span, t, ranked.front()))
      .action(
          "Keep device synchronization out of the hot path: avoid .item(), .cpu(), .tolist() and "
          "printing GPU tensors inside the step, and check values on the GPU or read them one "
          "step later. Where the host needs a result, copy it with non_blocking=True into pinned "
          "memory and wait on an event recorded after the copy, and order streams with event "
          "waits instead of device-wide synchronization.")
      .identification(identification(waits, t, stalls))
      .reasoning(reasoning(t))
      .resolution(
          "Without a blocking wait the host keeps launching while the GPU works, so the launch "
          "queue never drains. An event wait blocks only the stream that needs the result, not "
          "the host.")
      .share_percent(std::min(t.stall_percent, 100.0))
      .evidence_rows(longest_waits(ev, waits))
      .metric("sync_count", static_cast<double>(waits.list.size()))
      .metric("sync_total_ms", ns_to_ms(t.total_ns))
      .metric("sync_in_span_ms", t.in_span_ms)
      .metric("sync_percent_of_span", t.percent_of_span)
      .metric("sync_stall_ms", t.stall_ms)
      .metric("sync_stall_percent_of_span", t.stall_percent)
      .table(call_site_table(ranked))
      .table(kind_table(t))
      .emit();
}

// Most total wait first; ties by (sync call, triggering op).
std::vector<HostSyncAnalyzer::CallSite> HostSyncAnalyzer::ranked_call_sites(const Tally& t) {
  std::vector<CallSite> ranked;
  for (const auto& [key, g] : t.groups) ranked.push_back({&key, &g});
  std::sort(ranked.begin(), ranked.end(), [](const CallSite& a, const CallSite& b) {
    if (a.group->total_ns != b.group->total_ns) return a.group->total_ns > b.group->total_ns;
    return *a.key < *b.key;
  });
  return ranked;
}

Table HostSyncAnalyzer::call_site_table(std::vector<CallSite> ranked) const {
  if (max_table_rows_ >= 1 && ranked.size() > static_cast<std::size_t>(max_table_rows_)) {
    ranked.resize(static_cast<std::size_t>(max_table_rows_));
  }
  Table table("Blocking synchronization by call site",
              {"Sync call", "Triggering op", "Calls", "Total (ms)", "Max (ms)", "GPU idle (ms)",
               "Example row"});
  for (const CallSite& c : ranked) {
    table.row({c.key->first, c.key->second, std::to_string(c.group->calls),
               fixed(ns_to_ms(c.group->total_ns), 3), fixed(ns_to_ms(c.group->max_ns), 3),
               fixed(ns_to_ms(c.group->stall_ns), 3), std::to_string(c.group->example)});
  }
  return table;
}

Table HostSyncAnalyzer::kind_table(const Tally& t) {
  Table kinds("Blocking synchronization by kind", {"Kind", "Calls", "Total (ms)", "GPU idle (ms)"});
  for (int k = 0; k < kSyncKindCount; ++k) {
    kinds.row({kKindProse[k], std::to_string(t.kind_calls[k]), fixed(ns_to_ms(t.kind_ns[k]), 3),
               fixed(ns_to_ms(t.kind_stall_ns[k]), 3)});
  }
  return kinds;
}

// Every blocking wait, longest first (ties: earlier row), up to kMaxEvidenceRows.
std::vector<Row> HostSyncAnalyzer::longest_waits(const EventView& ev, const Waits& waits) {
  std::vector<Row> rows;
  for (const Wait& w : waits.list) rows.push_back(w.row);
  system::sort_longest_first(ev, rows);
  if (rows.size() > kMaxEvidenceRows) rows.resize(kMaxEvidenceRows);
  return rows;
}

std::string HostSyncAnalyzer::insight(const Waits& waits, const EndToEnd& span, const Tally& t,
                                      const CallSite& top) {
  return "The host waits in " + count_of(waits.list.size(), "blocking synchronization call") +
         " for " + ms(t.in_span_ms) + " of the " + ms(span.us / 1e3) +
         " end-to-end span, and during " + ms(t.stall_ms) + " of those waits (" +
         percent_adaptive(t.stall_percent) +
         " of the span) the GPU has no work either; the largest caller is `" + top.key->first +
         "` under `" + top.key->second + "` (" + count_of(top.group->calls, "call") + ", " +
         ms(ns_to_ms(top.group->total_ns)) + ").";
}

std::string HostSyncAnalyzer::identification(const Waits& waits, const Tally& t,
                                             bool stalls) const {
  const std::string why =
      stalls ? "keeps the host waiting while the GPU is idle for " +
                   percent_adaptive(t.stall_percent) + " of the end-to-end span, above the " +
                   percent_adaptive(threshold_percent_) +
                   " threshold; waits while the GPU is busy do not count toward it"
             : "occurs " + count_of(waits.list.size(), "time") + ", at least the " +
                   std::to_string(repeated_count_) +
                   " repeated waits reported whatever their share (" +
                   percent_adaptive(t.stall_percent) + " of the span with the GPU idle too)";
  return "Blocking synchronization (device, stream and event synchronize calls, and the scalar "
         "reads aten::item and aten::_local_scalar_dense) " +
         why +
         "; a synchronize call nested in a scalar read counts once. (source: `findings.json` -> "
         "`figures.host-sync.sync`)";
}

std::string HostSyncAnalyzer::reasoning(const Tally& t) {
  std::string per_kind;
  for (int k = 0; k < kSyncKindCount; ++k) {
    if (t.kind_calls[k] == 0) continue;
    if (!per_kind.empty()) per_kind += ", ";
    per_kind += std::string(kKindProse[k]) + " " + count_of(t.kind_calls[k], "call") + " (" +
                ms(ns_to_ms(t.kind_ns[k])) + ")";
  }
  return "A blocking call returns only when the GPU has finished the awaited work, so the host "
         "queues nothing while it waits. Once the GPU drains its queue, both sides wait: the GPU "
         "for new work, the host for the call to return. After the call the GPU stays idle until "
         "the host launches again. The waits split into " +
         per_kind + ".";
}

std::string HostSyncAnalyzer::title(const Waits& waits, const Tally& t, bool stalls) {
  if (stalls) {
    return "Host synchronization leaves the GPU idle for " + percent_adaptive(t.stall_percent) +
           " of end-to-end time";
  }
  return "Repeated host-device synchronization: " + count_of(waits.list.size(), "blocking wait") +
         " (" + ms(t.in_span_ms) + ")";
}

}  // namespace traceprism::plugins::host_sync
