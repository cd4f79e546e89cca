#include "host_sync_analyzer.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <traceprism/support.hpp>

namespace host_sync {

using traceprism::Context;
using traceprism::EventView;
using traceprism::Kind;
using traceprism::kNoRow;
using traceprism::kNoString;
using traceprism::Row;
using traceprism::Severity;
using traceprism::Status;
using traceprism::StringId;
using traceprism::Table;
using traceprism::Tier;
using traceprism::support::count_of;
using traceprism::support::fixed;
using traceprism::support::ms;
using traceprism::support::percent_adaptive;

namespace {

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
constexpr Kind kGpuKinds[] = {Kind::kKernel, Kind::kMemcpy, Kind::kMemset};

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

struct Sync {
  Row row;
  SyncKind kind;
  Row trigger;  // the nearest enclosing op that is not itself a sync op, or kNoRow
};

struct Group {
  std::uint64_t calls = 0;
  std::int64_t total_ns = 0;
  std::int64_t stall_ns = 0;
  std::int64_t max_ns = -1;
  Row example = kNoRow;
};

// Length of [lo, hi) covered by `busy` (disjoint, sorted intervals).
std::int64_t covered(const std::vector<std::pair<std::int64_t, std::int64_t>>& busy,
                     std::int64_t lo, std::int64_t hi) {
  std::int64_t sum = 0;
  auto it = std::upper_bound(busy.begin(), busy.end(), lo,
                             [](std::int64_t t, const auto& iv) { return t < iv.second; });
  for (; it != busy.end() && it->first < hi; ++it) {
    sum += std::min(hi, it->second) - std::max(lo, it->first);
  }
  return sum;
}

}  // namespace

constexpr std::size_t kMaxEvidenceRows = 200;

HostSyncAnalyzer::HostSyncAnalyzer(Context& ctx)
    : threshold_percent_(ctx.option("StallThresholdPercent", 1.0)),
      repeated_count_(ctx.option("RepeatedSyncCount", static_cast<std::int64_t>(10))),
      max_table_rows_(ctx.option("MaxTableRows", static_cast<std::int64_t>(20))) {}

Status HostSyncAnalyzer::run(Context& ctx) {
  const EventView ev = ctx.events();
  const SyncMatcher matcher(ctx);

  // ---- Blocking intervals: each sync row not nested inside another sync row (a
  // cudaStreamSynchronize inside aten::item is the same wait, counted once as aten::item).
  std::vector<Sync> syncs;
  std::uint64_t nested = 0;
  if (!matcher.empty()) {
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
          ++nested;
          continue;
        }
        syncs.push_back({r, *k, trigger != kNoRow ? trigger : fallback});
      }
    }
  }
  std::sort(syncs.begin(), syncs.end(), [&](const Sync& a, const Sync& b) {
    return ev.ts_ns(a.row) != ev.ts_ns(b.row) ? ev.ts_ns(a.row) < ev.ts_ns(b.row) : a.row < b.row;
  });

  // ---- The end-to-end span: the GPU timeline (first to last launched GPU event) when the trace
  // has one, else the span of the host events. `busy`: the union of the launched GPU events.
  std::int64_t span_begin = std::numeric_limits<std::int64_t>::max();
  std::int64_t span_end = std::numeric_limits<std::int64_t>::min();
  std::vector<std::pair<std::int64_t, std::int64_t>> busy;
  const std::optional<traceprism::Timeline> timeline = ctx.timeline();
  double span_us = 0;
  bool gpu_span = false;
  if (timeline && timeline->total_us > 0) {
    std::vector<std::pair<std::int64_t, std::int64_t>> intervals;
    for (Kind kind : kGpuKinds) {
      for (Row r : ctx.rows(kind)) {
        if (ev.launcher(r) == kNoRow) continue;
        intervals.emplace_back(ev.ts_ns(r), ev.end_ns(r));
      }
    }
    std::sort(intervals.begin(), intervals.end());
    for (const auto& iv : intervals) {
      if (!busy.empty() && iv.first <= busy.back().second) {
        busy.back().second = std::max(busy.back().second, iv.second);
      } else {
        busy.push_back(iv);
      }
    }
    if (!busy.empty()) {
      span_begin = busy.front().first;
      span_end = busy.back().second;
    }
    gpu_span = span_begin < span_end;
    span_us = timeline->total_us;
  }
  if (!gpu_span) {
    busy.clear();
    span_begin = std::numeric_limits<std::int64_t>::max();
    span_end = std::numeric_limits<std::int64_t>::min();
    for (Kind kind : kHostKinds) {
      for (Row r : ctx.rows(kind)) {
        span_begin = std::min(span_begin, ev.ts_ns(r));
        span_end = std::max(span_end, ev.end_ns(r));
      }
    }
    span_us = span_begin < span_end ? static_cast<double>(span_end - span_begin) / 1e3 : 0.0;
  }

  // ---- Totals, per kind, and per (sync call, triggering op). A wait's stall is the part of
  // it inside the span during which no GPU event runs: host and GPU both wait.
  std::int64_t total_ns = 0, in_span_ns = 0, stall_ns = 0, max_ns = 0;
  std::uint64_t kind_calls[kSyncKindCount] = {0, 0, 0, 0};
  std::int64_t kind_ns[kSyncKindCount] = {0, 0, 0, 0};
  std::int64_t kind_stall_ns[kSyncKindCount] = {0, 0, 0, 0};
  std::map<std::pair<std::string, std::string>, Group> groups;
  for (const Sync& s : syncs) {
    const std::int64_t dur = std::max<std::int64_t>(0, ev.dur_ns(s.row));
    total_ns += dur;
    max_ns = std::max(max_ns, dur);
    const std::int64_t lo = std::max(ev.ts_ns(s.row), span_begin);
    const std::int64_t hi = std::min(ev.ts_ns(s.row) + dur, span_end);
    std::int64_t stall = 0;
    if (hi > lo) {
      in_span_ns += hi - lo;
      if (gpu_span) stall = (hi - lo) - covered(busy, lo, hi);
    }
    stall_ns += stall;
    ++kind_calls[s.kind];
    kind_ns[s.kind] += dur;
    kind_stall_ns[s.kind] += stall;
    std::string trigger = s.trigger != kNoRow ? std::string(ev.name(s.trigger)) : "(none)";
    Group& g = groups[{std::string(ev.name(s.row)), std::move(trigger)}];
    ++g.calls;
    g.total_ns += dur;
    g.stall_ns += stall;
    if (dur > g.max_ns || (dur == g.max_ns && s.row < g.example)) {
      g.max_ns = dur;
      g.example = s.row;
    }
  }
  const double total_ms = static_cast<double>(total_ns) / 1e6;
  const double in_span_ms = static_cast<double>(in_span_ns) / 1e6;
  const double stall_ms = static_cast<double>(stall_ns) / 1e6;
  const double percent_of_span = span_us > 0 ? in_span_ms * 1e3 / span_us * 100.0 : 0.0;
  const double stall_percent = span_us > 0 ? stall_ms * 1e3 / span_us * 100.0 : 0.0;
  ctx.record("sync.count", static_cast<double>(syncs.size()));
  ctx.record("sync.total_ms", total_ms);
  ctx.record("sync.max_ms", static_cast<double>(max_ns) / 1e6);
  ctx.record("sync.in_span_ms", in_span_ms);
  ctx.record("sync.span_ms", span_us / 1e3);
  ctx.record("sync.span_is_gpu_timeline", gpu_span ? 1.0 : 0.0);
  ctx.record("sync.percent_of_span", percent_of_span);
  ctx.record("sync.stall_ms", stall_ms);
  ctx.record("sync.stall_percent_of_span", stall_percent);
  ctx.record("sync.nested_calls", static_cast<double>(nested));
  for (int k = 0; k < kSyncKindCount; ++k) {
    const std::string prefix = std::string("sync.") + kKindKeys[k] + ".";
    ctx.record(prefix + "count", static_cast<double>(kind_calls[k]));
    ctx.record(prefix + "total_ms", static_cast<double>(kind_ns[k]) / 1e6);
    ctx.record(prefix + "stall_ms", static_cast<double>(kind_stall_ns[k]) / 1e6);
  }

  const bool stalls = stall_percent > threshold_percent_;
  const bool repeated =
      repeated_count_ > 0 && syncs.size() >= static_cast<std::size_t>(repeated_count_);
  if (!gpu_span || syncs.empty() || !(stalls || repeated)) return Status::kOk;

  // ---- The finding.
  struct Entry {
    const std::pair<std::string, std::string>* key;
    const Group* group;
  };
  std::vector<Entry> ranked;
  for (const auto& [key, g] : groups) ranked.push_back({&key, &g});
  std::sort(ranked.begin(), ranked.end(), [](const Entry& a, const Entry& b) {
    if (a.group->total_ns != b.group->total_ns) return a.group->total_ns > b.group->total_ns;
    return *a.key < *b.key;
  });
  const Entry top = ranked.front();
  if (max_table_rows_ >= 1 && ranked.size() > static_cast<std::size_t>(max_table_rows_)) {
    ranked.resize(static_cast<std::size_t>(max_table_rows_));
  }

  Table table("Blocking synchronization by call site",
              {"Sync call", "Triggering op", "Calls", "Total (ms)", "Max (ms)", "GPU idle (ms)",
               "Example row"});
  // Evidence: every blocking wait, longest first (ties: earlier row), up to kMaxEvidenceRows.
  std::vector<Row> evidence;
  for (const Sync& s : syncs) evidence.push_back(s.row);
  std::stable_sort(evidence.begin(), evidence.end(), [&](Row a, Row b) {
    return ev.dur_ns(a) != ev.dur_ns(b) ? ev.dur_ns(a) > ev.dur_ns(b) : a < b;
  });
  if (evidence.size() > kMaxEvidenceRows) evidence.resize(kMaxEvidenceRows);
  for (const Entry& e : ranked) {
    table.row({e.key->first, e.key->second, std::to_string(e.group->calls),
               fixed(static_cast<double>(e.group->total_ns) / 1e6, 3),
               fixed(static_cast<double>(e.group->max_ns) / 1e6, 3),
               fixed(static_cast<double>(e.group->stall_ns) / 1e6, 3),
               std::to_string(e.group->example)});
  }
  Table kinds("Blocking synchronization by kind", {"Kind", "Calls", "Total (ms)", "GPU idle (ms)"});
  for (int k = 0; k < kSyncKindCount; ++k) {
    kinds.row({kKindProse[k], std::to_string(kind_calls[k]),
               fixed(static_cast<double>(kind_ns[k]) / 1e6, 3),
               fixed(static_cast<double>(kind_stall_ns[k]) / 1e6, 3)});
  }

  const std::string insight =
      "The host waits in " + count_of(syncs.size(), "blocking synchronization call") + " for " +
      ms(in_span_ms) + " of the " + ms(span_us / 1e3) + " end-to-end span, and during " +
      ms(stall_ms) + " of those waits (" + percent_adaptive(stall_percent) +
      " of the span) the GPU has no work either; the largest caller is `" + top.key->first +
      "` under `" + top.key->second + "` (" + count_of(top.group->calls, "call") + ", " +
      ms(static_cast<double>(top.group->total_ns) / 1e6) + ").";
  const std::string action =
      "Keep device synchronization out of the hot path: avoid .item(), .cpu(), .tolist() and "
      "printing GPU tensors inside the step, and check values on the GPU or read them one step "
      "later. Where the host needs a result, copy it with non_blocking=True into pinned memory "
      "and wait on an event recorded after the copy, and order streams with event waits instead "
      "of device-wide synchronization.";
  const std::string why =
      stalls
          ? "keeps the host waiting while the GPU is idle for " + percent_adaptive(stall_percent) +
                " of the end-to-end span, above the " + percent_adaptive(threshold_percent_) +
                " threshold; waits while the GPU is busy do not count toward it"
          : "occurs " + count_of(syncs.size(), "time") + ", at least the " +
                std::to_string(repeated_count_) +
                " repeated waits reported whatever their share (" +
                percent_adaptive(stall_percent) + " of the span with the GPU idle too)";
  const std::string identification =
      "Blocking synchronization (device, stream and event synchronize calls, and the scalar reads "
      "aten::item and aten::_local_scalar_dense) " +
      why +
      "; a synchronize call nested in a scalar read counts once. (source: `findings.json` -> "
      "`figures.host-sync.sync`)";
  std::string per_kind;
  for (int k = 0; k < kSyncKindCount; ++k) {
    if (kind_calls[k] == 0) continue;
    if (!per_kind.empty()) per_kind += ", ";
    per_kind += std::string(kKindProse[k]) + " " + count_of(kind_calls[k], "call") + " (" +
                ms(static_cast<double>(kind_ns[k]) / 1e6) + ")";
  }
  const std::string reasoning =
      "A blocking call returns only when the GPU has finished the awaited work, so the host "
      "queues nothing while it waits. Once the GPU drains its queue, both sides wait: the GPU "
      "for new work, the host for the call to return. After the call the GPU stays idle until "
      "the host launches again. The waits split into " +
      per_kind + ".";
  const std::string resolution =
      "Without a blocking wait the host keeps launching while the GPU works, so the launch queue "
      "never drains. An event wait blocks only the stream that needs the result, not the host.";

  const std::string title =
      stalls ? "Host synchronization leaves the GPU idle for " + percent_adaptive(stall_percent) +
                   " of end-to-end time"
             : "Repeated host-device synchronization: " + count_of(syncs.size(), "blocking wait") +
                   " (" + ms(in_span_ms) + ")";
  ctx.report(Tier::kSystem, "host_sync", title)
      .key("device-sync")
      .severity(!stalls                 ? Severity::kInfo
                : stall_percent >= 10.0 ? Severity::kCritical
                                        : Severity::kWarning)
      .insight(insight)
      .action(action)
      .identification(identification)
      .reasoning(reasoning)
      .resolution(resolution)
      .share_percent(std::min(stall_percent, 100.0))
      .evidence_rows(evidence)
      .metric("sync_count", static_cast<double>(syncs.size()))
      .metric("sync_total_ms", total_ms)
      .metric("sync_in_span_ms", in_span_ms)
      .metric("sync_percent_of_span", percent_of_span)
      .metric("sync_stall_ms", stall_ms)
      .metric("sync_stall_percent_of_span", stall_percent)
      .table(std::move(table))
      .table(std::move(kinds))
      .emit();
  return Status::kOk;
}

}  // namespace host_sync
