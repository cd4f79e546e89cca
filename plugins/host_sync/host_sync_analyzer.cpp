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

enum SyncKind { kDevice = 0, kStream = 1, kEvent = 2, kScalarRead = 3, kSyncKindCount = 4 };
constexpr const char* kKindKeys[kSyncKindCount] = {"device_synchronize", "stream_synchronize",
                                                   "event_synchronize", "item"};

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

// Measures only: the GPU idle time these waits cause is reported once, by cpu-idle's findings
// for the idle causes "sync" and "blocking_copy" (diagnosis.md §1.5); a wait while the GPU
// stays busy costs nothing, so it is no finding.
Status HostSyncAnalyzer::run(Context& ctx) {
  const Waits waits = find_waits(ctx);
  const EndToEnd span = end_to_end(ctx);
  const Tally t = tally(ctx.events(), waits, span);
  record(ctx, waits, span, t);
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
    support::add_ns(t.total_ns, dur);
    t.max_ns = std::max(t.max_ns, dur);
    const std::int64_t lo = std::max(ev.ts_ns(w.row), span.begin_ns);
    const std::int64_t hi = std::min(ev.ts_ns(w.row) + dur, span.end_ns);
    std::int64_t stall = 0;
    if (hi > lo) {
      support::add_ns(t.in_span_ns, hi - lo);
      if (span.gpu) stall = (hi - lo) - covered(span.busy, lo, hi);
    }
    support::add_ns(t.stall_ns, stall);
    ++t.kind_calls[w.kind];
    support::add_ns(t.kind_ns[w.kind], dur);
    support::add_ns(t.kind_stall_ns[w.kind], stall);
    std::string trigger = w.trigger != kNoRow ? std::string(ev.name(w.trigger)) : "(none)";
    Group& g = t.groups[{std::string(ev.name(w.row)), std::move(trigger)}];
    ++g.calls;
    support::add_ns(g.total_ns, dur);
    support::add_ns(g.stall_ns, stall);
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

}  // namespace traceprism::plugins::host_sync
