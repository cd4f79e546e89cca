#include "memcpy_analyzer.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>
#include <utility>

#include <traceprism/support.hpp>

#include "../common/system_support.hpp"

namespace traceprism::plugins::memcpy {
namespace {

using support::compact;
using support::count_of;
using support::fixed;
using support::py_round;
using system::contains;
using system::starts_with;

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The reference's direction of a copy, from its lower-cased event name (spec 3.7).
enum DirectionIndex { kD2H = 0, kH2D = 1, kD2D = 2, kOther = 3, kDirectionCount = 4 };
DirectionIndex direction_of(std::string_view name) {
  const std::string n = lower(name);
  if (contains(n, "dtoh") || contains(n, "device -> host") || contains(n, "devicetohost"))
    return kD2H;
  if (contains(n, "htod") || contains(n, "host -> device") || contains(n, "hosttodevice"))
    return kH2D;
  if (contains(n, "dtod") || contains(n, "device -> device") || contains(n, "devicetodevice"))
    return kD2D;
  return kOther;
}

const char* copy_direction_text(std::int32_t direction) {
  switch (direction) {
    case TRACEPRISM_COPY_HTOD:
      return "HtoD";
    case TRACEPRISM_COPY_DTOH:
      return "DtoH";
    case TRACEPRISM_COPY_DTOD:
      return "DtoD";
    case TRACEPRISM_COPY_HTOH:
      return "HtoH";
    case TRACEPRISM_COPY_PTOP:
      return "PtoP";
    default:
      return nullptr;
  }
}

// Memcpy API names: runtime (cuda*/hip*) and driver (cu*) spellings.
bool is_memcpy_api(std::string_view name) {
  return starts_with(name, "cudaMemcpy") || starts_with(name, "hipMemcpy") ||
         starts_with(name, "cuMemcpy");
}

bool is_memset_api(std::string_view name) {
  return starts_with(name, "cudaMemset") || starts_with(name, "hipMemset") ||
         starts_with(name, "cuMemset");
}

// The nearest cpu_op above the launching call (the op that asked for the copy).
Row nearest_cpu_op(const EventView& ev, Row launcher) {
  if (launcher == kNoRow) return kNoRow;
  Row r = ev.parent(launcher);
  for (int depth = 0; r != kNoRow && depth < 4096; ++depth) {
    if (ev.kind(r) == Kind::kCpuOp) return r;
    r = ev.parent(r);
  }
  return kNoRow;
}

bool same_rows(std::vector<Row> a, std::vector<Row> b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return a == b;
}

// Puts a merge note before the closing (source: ...) of an identification.
std::string with_note(std::string identification, const std::string& note) {
  if (note.empty()) return identification;
  const std::size_t at = identification.rfind(" (source:");
  if (at == std::string::npos) return identification + note;
  std::string tail = identification.substr(at);  // " (source: ...)."
  identification.erase(at);
  if (!identification.empty() && identification.back() == '.') identification.pop_back();
  return identification + "." + note.substr(0, note.size() - 1) + tail;
}

std::string copy_time_text(const EventView& ev, const std::vector<Row>& rows, double e2e_us) {
  const double us = system::durations(ev, rows).total_us;
  std::string s = fixed(us / 1000.0, 3) + " ms of copy time";
  if (e2e_us > 0) s += " (" + fixed(us / e2e_us * 100.0, 2) + "% of E2E)";
  return s;
}

std::string direction_words(bool d2h) {
  return d2h ? "device-to-host" : "host-to-device";
}

// What to do about a flagged direction, why it costs time, and why the fix works.
void advise_on_direction(FindingBuilder& finding, bool d2h) {
  if (d2h) {
    finding
        .action(
            "Keep results on the GPU: replace `.item()`, `.cpu()`, scalar reads and hot-path "
            "logging with device-side reductions, and batch the host reads that remain into one "
            "transfer. Expect fewer device-to-host transfers and less GPU idle time after them.")
        .reasoning(
            "A device-to-host copy of a value the host needs makes the host wait until the GPU "
            "has finished the work queued before it. The host launches nothing while it waits, "
            "so the GPU runs dry after each such read.")
        .resolution(
            "Device-side reductions keep intermediate values in GPU memory. One batched read per "
            "step replaces many small synchronizing reads, so the launch queue stays full.");
  } else {
    finding
        .action(
            "Pin host memory (`pin_memory=True` in the data loader), pre-allocate device tensors "
            "instead of creating them from host data on the fly, and copy with "
            "`non_blocking=True`. Expect fewer host-to-device transfers and the remaining ones "
            "to overlap compute.")
        .reasoning(
            "Host-to-device copies on the compute stream serialize with kernels. Copies from "
            "pageable host memory are staged by the driver and block the host until staged.")
        .resolution(
            "Pinned buffers let the copy engine read host memory directly, so an asynchronous "
            "copy returns at once. Tensors created once on the device need no per-step "
            "transfer.");
  }
}

}  // namespace

struct MemcpyAnalyzer::Direction {
  const char* label = "";  // "D2H", "H2D", "D2D", "other"
  std::vector<Row> rows;
  double total_us = 0;  // rounded to 2 decimals, as the reference stores it
  double avg_us = 0;
  double max_us = 0;
  double total_bytes = 0;
  double avg_bytes = 0;
  bool d2h() const { return std::string_view(label) == "D2H"; }
};

struct MemcpyAnalyzer::Summary {
  std::size_t count = 0;
  std::array<Direction, kDirectionCount> by_direction;  // by DirectionIndex
  double total_us = 0;  // of the rounded direction totals, rounded again
};

struct MemcpyAnalyzer::Flag {
  const Direction* d;
  double percent;  // of E2E
  bool by_percent, by_count;
};

struct MemcpyAnalyzer::RuleRows {
  std::vector<Row> pageable_async, sync_memcpy, sync_memset;
  std::size_t sync_memset_host_blocking = 0;
};

struct MemcpyAnalyzer::MergeNotes {
  std::string pageable_async, sync_memcpy;
};

MemcpyAnalyzer::MemcpyAnalyzer(Context& ctx)
    : direction_percent_threshold_(
          ctx.declared_option<double>("DirectionPercentThreshold", kMemcpyOptions)),
      direction_count_threshold_(
          ctx.declared_option<std::int64_t>("DirectionCountThreshold", kMemcpyOptions)),
      sync_h2d_min_bytes_(ctx.declared_option<std::int64_t>("SyncH2DMinBytes", kMemcpyOptions)),
      table_rows_(ctx.declared_option<std::int64_t>("TableRows", kMemcpyOptions)),
      max_evidence_rows_(ctx.declared_option<std::int64_t>("MaxEvidenceRows", kMemcpyOptions)) {}

Status MemcpyAnalyzer::run(Context& ctx) {
  // The memcpy bucket of the GPU timeline: gpu_memcpy events and ROCm legacy copy kernels.
  const std::vector<Row> copies =
      system::rows_of_class(ctx, {Kind::kMemcpy, Kind::kKernel}, GpuClass::kMemcpy);
  const Summary summary = summarize(ctx, copies);
  record_overlap(ctx);
  // E2E: the perf report's gpu_timeline total, which multi_kernel_metrics.json reads as T.
  const double e2e_us = system::e2e_us(ctx);
  const std::vector<Flag> flags = assess(ctx, summary, e2e_us);

  // Nsight-style rules over every copy and memset with a known launching call (spec peers §2).
  index_launch_calls(ctx);
  const RuleRows rules = match_rules(ctx, copies);
  const MergeNotes notes = report_directions(ctx, flags, rules, e2e_us);
  report_pageable_async(ctx, rules, notes.pageable_async, e2e_us);
  report_sync_memcpy(ctx, rules, notes.sync_memcpy, e2e_us);
  report_sync_memset(ctx, rules, e2e_us);
  return Status::kOk;
}

// memcpy_summary (multi_kernel_data.json).
MemcpyAnalyzer::Summary MemcpyAnalyzer::summarize(Context& ctx, const std::vector<Row>& copies) {
  const EventView ev = ctx.events();
  static const char* const kLabels[] = {"D2H", "H2D", "D2D", "other"};
  Summary s;
  s.count = copies.size();
  for (int i = 0; i < kDirectionCount; ++i) s.by_direction[i].label = kLabels[i];
  for (Row r : copies) s.by_direction[direction_of(ev.name(r))].rows.push_back(r);
  for (Direction& d : s.by_direction) {
    if (d.rows.empty()) continue;
    const system::Durations t = system::durations(ev, d.rows);
    double bytes = 0;
    bool any_bytes = false;
    for (Row r : d.rows) {
      auto args = ctx.gpu_args(r);
      if (args && args->bytes > 0) {
        bytes += static_cast<double>(args->bytes);
        any_bytes = true;
      }
    }
    const double n = static_cast<double>(d.rows.size());
    d.total_us = py_round(t.total_us, 2);
    d.avg_us = py_round(t.total_us / n, 2);
    d.max_us = py_round(t.max_us, 2);
    d.total_bytes = bytes;
    d.avg_bytes = any_bytes ? py_round(bytes / n, 2) : 0.0;
    const std::string p = std::string("memcpy_summary.by_direction.") + d.label + ".";
    ctx.record(p + "count", n);
    ctx.record(p + "total_time_us", d.total_us);
    ctx.record(p + "avg_time_us", d.avg_us);
    ctx.record(p + "max_time_us", d.max_us);
    ctx.record(p + "total_bytes", d.total_bytes);
    ctx.record(p + "avg_bytes", d.avg_bytes);
    s.total_us += d.total_us;
  }
  s.total_us = py_round(s.total_us, 2);
  ctx.record("memcpy_summary.total_count", static_cast<double>(s.count));
  ctx.record("memcpy_summary.total_time_us", s.total_us);
  return s;
}

// overlap_analysis, memcpy half (the comm analyzer records the rest), over every GPU event:
// copy time that neither compute nor communication hides.
void MemcpyAnalyzer::record_overlap(Context& ctx) {
  const support::GpuClassIntervals all = support::all_gpu_event_intervals(ctx);
  if (all.events == 0) return;
  const double total_memcpy = support::total_length(all.copy);
  const double exposed = support::total_length(
      support::subtract(support::subtract(all.copy, all.computation), all.communication));
  ctx.record("overlap_analysis.total_memcpy_time_us", py_round(total_memcpy, 2));
  ctx.record("overlap_analysis.exposed_memcpy_time_us", py_round(exposed, 2));
  if (total_memcpy > 0)
    ctx.record("overlap_analysis.memcpy_overlap_ratio", py_round(1 - exposed / total_memcpy, 4));
  ctx.record("overlap_analysis.memcpy_percent_of_total",
             all.span_us > 0 ? py_round(exposed / all.span_us * 100, 2) : 0.0);
}

// memcpy_assessment (multi_kernel_metrics.json, spec 8.1); T = gpu_timeline total_time in ms.
std::vector<MemcpyAnalyzer::Flag> MemcpyAnalyzer::assess(Context& ctx, const Summary& summary,
                                                         double e2e_us) const {
  const double total_ms = e2e_us / 1000.0;
  std::vector<Flag> flags;
  if (total_ms > 0) {
    for (int i : {kD2H, kH2D}) {
      const Direction& d = summary.by_direction[i];
      if (d.rows.empty()) continue;
      const double dir_ms = d.total_us / 1000.0;
      const double dir_pct = (dir_ms / total_ms) * 100.0;
      const bool by_percent = dir_pct > direction_percent_threshold_;
      const bool by_count = static_cast<std::int64_t>(d.rows.size()) > direction_count_threshold_;
      const std::string p = std::string("memcpy_assessment.");
      ctx.record(p + "by_direction." + d.label + ".flagged", by_percent || by_count ? 1.0 : 0.0);
      if (!(by_percent || by_count)) continue;
      flags.push_back({&d, dir_pct, by_percent, by_count});
      const std::string q = p + "issues." + d.label + ".";
      ctx.record(q + "count", static_cast<double>(d.rows.size()));
      ctx.record(q + "time_ms", py_round(dir_ms, 3));
      ctx.record(q + "percent_of_total", py_round(dir_pct, 2));
      ctx.record(q + "avg_bytes", d.avg_bytes);
    }
    const double memcpy_ms = summary.total_us / 1000.0;
    ctx.record("memcpy_assessment.total_count", static_cast<double>(summary.count));
    ctx.record("memcpy_assessment.total_time_ms", py_round(memcpy_ms, 3));
    ctx.record("memcpy_assessment.percent_of_total", py_round((memcpy_ms / total_ms) * 100.0, 2));
  }
  ctx.record("memcpy_assessment.flagged", flags.empty() ? 0.0 : 1.0);
  return flags;
}

void MemcpyAnalyzer::index_launch_calls(const Context& ctx) {
  const EventView ev = ctx.events();
  bool needed = false;
  for (Kind kind : {Kind::kMemcpy, Kind::kMemset})
    for (Row r : ctx.rows(kind)) needed = needed || ev.launcher(r) == kNoRow;
  if (!needed) return;
  for (Kind kind : {Kind::kRuntime, Kind::kDriver}) {
    for (Row r : ctx.rows(kind)) {
      const std::string_view name = ev.name(r);
      if (ev.correlation(r) != 0 && (is_memcpy_api(name) || is_memset_api(name)))
        call_by_correlation_.emplace(ev.correlation(r), r);
    }
  }
}

Row MemcpyAnalyzer::launcher_of(const EventView& ev, Row r) const {
  const Row linked = ev.launcher(r);
  if (linked != kNoRow || call_by_correlation_.empty() || ev.correlation(r) == 0) return linked;
  auto it = call_by_correlation_.find(ev.correlation(r));
  return it != call_by_correlation_.end() ? it->second : kNoRow;
}

MemcpyAnalyzer::RuleRows MemcpyAnalyzer::match_rules(Context& ctx,
                                                     const std::vector<Row>& copies) const {
  const EventView ev = ctx.events();
  RuleRows rules;
  for (Row r : copies) {
    const Row launcher = launcher_of(ev, r);
    if (launcher == kNoRow) continue;
    const std::string_view api = ev.name(launcher);
    auto args = ctx.gpu_args(r);
    if (contains(api, "Async")) {
      if (args && (args->copy_source == TRACEPRISM_MEMORY_PAGEABLE ||
                   args->copy_destination == TRACEPRISM_MEMORY_PAGEABLE))
        rules.pageable_async.push_back(r);
    } else if (is_memcpy_api(api)) {
      bool h2d = args && args->copy_direction == TRACEPRISM_COPY_HTOD;
      if (!args || args->copy_direction == TRACEPRISM_COPY_UNKNOWN)
        h2d = direction_of(ev.name(r)) == kH2D;
      // The driver returns before a small host-to-device copy completes: it blocks nothing.
      const bool small = args && args->bytes >= 0 && args->bytes <= sync_h2d_min_bytes_;
      if (!(h2d && small)) rules.sync_memcpy.push_back(r);
    }
  }
  for (Row r : ctx.rows(Kind::kMemset)) {
    const Row launcher = launcher_of(ev, r);
    if (launcher == kNoRow) continue;
    const std::string_view api = ev.name(launcher);
    if (!is_memset_api(api) || contains(api, "Async")) continue;
    rules.sync_memset.push_back(r);
    auto args = ctx.gpu_args(r);
    if (args && (args->copy_destination == TRACEPRISM_MEMORY_PINNED ||
                 args->copy_destination == TRACEPRISM_MEMORY_MANAGED ||
                 args->copy_destination == TRACEPRISM_MEMORY_HOST))
      ++rules.sync_memset_host_blocking;
  }
  ctx.record("rules.pageable_async.count", static_cast<double>(rules.pageable_async.size()));
  ctx.record("rules.sync_memcpy.count", static_cast<double>(rules.sync_memcpy.size()));
  ctx.record("rules.sync_memset.count", static_cast<double>(rules.sync_memset.size()));
  return rules;
}

// A flagged direction whose copies are exactly the copies of a rule is the same issue (spec
// 8.2: merge cards with the same mechanism): the rule's finding, which names the cause, carries
// it, and the direction gets no finding of its own.
MemcpyAnalyzer::MergeNotes MemcpyAnalyzer::report_directions(Context& ctx,
                                                             const std::vector<Flag>& flags,
                                                             const RuleRows& rules,
                                                             double e2e_us) const {
  MergeNotes notes;
  for (const Flag& f : flags) {
    std::string* note = nullptr;
    if (!rules.pageable_async.empty() && same_rows(rules.pageable_async, f.d->rows))
      note = &notes.pageable_async;
    else if (!rules.sync_memcpy.empty() && same_rows(rules.sync_memcpy, f.d->rows))
      note = &notes.sync_memcpy;
    if (!note) {
      report_direction(ctx, f, e2e_us);
      continue;
    }
    *note = " They are all the " + direction_words(f.d->d2h()) +
            " copies of the trace, which the per-direction check flags too because " +
            flag_reason(f.by_percent, f.by_count) + "; they take " + fixed(f.percent, 2) +
            "% of E2E.";
  }
  return notes;
}

void MemcpyAnalyzer::report_pageable_async(Context& ctx, const RuleRows& rules,
                                           const std::string& note, double e2e_us) const {
  const std::vector<Row>& rows = rules.pageable_async;
  if (rows.empty()) return;
  const EventView ev = ctx.events();
  const std::size_t n = rows.size();
  report_rule(
      ctx, "pageable-async", "Asynchronous copies from pageable host memory", rows, e2e_us,
      Severity::kWarning,
      count_of(n, "copy", "copies") + " issued with an asynchronous API (" + api_names(ev, rows) +
          ") " + (n == 1 ? "uses" : "use") +
          " pageable host memory: " + copy_time_text(ev, rows, e2e_us) + ".",
      "Allocate the host side in pinned memory (`pin_memory=True` in the data loader, "
      "`tensor.pin_memory()`) and keep `non_blocking=True` on the copy. Expect these copies to "
      "stop blocking the host and to overlap compute.",
      with_note("The memory kinds in the copy names read pageable on the host side, and the "
                "launching runtime call is an asynchronous memcpy API (source: `gpu_memcpy` "
                "event name, launching runtime call).",
                note),
      "The copy engine cannot read pageable memory directly. The driver first stages the data "
      "through a pinned buffer, so the asynchronous call behaves synchronously for the host.",
      "Page-locked host buffers let the copy engine transfer directly. The call then returns at "
      "once and the transfer overlaps kernels on other streams.");
}

void MemcpyAnalyzer::report_sync_memcpy(Context& ctx, const RuleRows& rules,
                                        const std::string& note, double e2e_us) const {
  const std::vector<Row>& rows = rules.sync_memcpy;
  if (rows.empty()) return;
  const EventView ev = ctx.events();
  const std::size_t n = rows.size();
  report_rule(
      ctx, "sync-memcpy", "Synchronous memory copies", rows, e2e_us, Severity::kWarning,
      count_of(n, "copy", "copies") + " issued with a synchronous API (" + api_names(ev, rows) +
          ") block the host: " + copy_time_text(ev, rows, e2e_us) + "; host-to-device copies of " +
          std::to_string(sync_h2d_min_bytes_) + " bytes or less are not counted.",
      "Issue these copies asynchronously on a stream (`non_blocking=True`, with pinned host "
      "memory) and synchronize only where the host consumes the data. Expect fewer host stalls "
      "and less GPU idle time after the copies.",
      with_note("The launching call is a memcpy API without `Async` in its name "
                "(`hipMemcpyWithStream` included); host-to-device copies of known size up to the "
                "threshold are excluded, as the driver returns before they complete (source: "
                "launching runtime call, `bytes`).",
                note),
      "A synchronous copy returns only after the transfer has completed. The host issues no "
      "work meanwhile, so the GPU idles once its queue drains.",
      "An asynchronous copy lets the host keep launching kernels. A stream or event wait where "
      "the result is consumed keeps the ordering.");
}

void MemcpyAnalyzer::report_sync_memset(Context& ctx, const RuleRows& rules, double e2e_us) const {
  const std::vector<Row>& rows = rules.sync_memset;
  if (rows.empty()) return;
  const EventView ev = ctx.events();
  const std::size_t blocking = rules.sync_memset_host_blocking;
  std::string insight = count_of(rows.size(), "memset", "memsets") +
                        " issued with a synchronous API (" + api_names(ev, rows) +
                        "): " + copy_time_text(ev, rows, e2e_us);
  insight += blocking > 0 ? "; " + std::to_string(blocking) +
                                " of them target pinned or managed memory and block the host."
                          : "; none targets pinned or managed memory.";
  report_rule(
      ctx, "sync-memset", "Synchronous memsets", rows, e2e_us,
      blocking > 0 ? Severity::kWarning : Severity::kInfo, insight,
      "Use the asynchronous memset on the work stream (`cudaMemsetAsync` / `hipMemsetAsync`), "
      "or fill on the device (`torch.zeros(..., device=...)`). Expect fewer host stalls.",
      "The launching call is a memset API without `Async` in its name (source: launching "
      "runtime call, `gpu_memset` event name).",
      "A synchronous memset runs on the legacy default stream and orders with all work before "
      "it. On pinned or managed memory it also blocks the host until it completes.",
      "The asynchronous variant enqueues the fill on the given stream and returns. Events keep "
      "the ordering with other streams.");
}

void MemcpyAnalyzer::report_direction(Context& ctx, const Flag& f, double e2e_us) const {
  const Direction& d = *f.d;
  const bool d2h = d.d2h();
  const std::size_t n = d.rows.size();
  const double time_ms = d.total_us / 1000.0;
  const std::string what = direction_words(d2h);
  std::string insight = std::to_string(n) + " " + what + " " +
                        (n == 1 ? "copy takes " : "copies take ") + fixed(time_ms, 3) + " ms, " +
                        fixed(f.percent, 2) + "% of the end-to-end GPU span";
  if (d.avg_bytes > 0) insight += ", " + fixed(d.avg_bytes, 0) + " bytes on average";
  insight += ".";
  std::string identification = std::to_string(n) + " " + what + " " +
                               (n == 1 ? "copy was" : "copies were") +
                               " found among the memory copies linked to a launch (direction "
                               "read from the event name); flagged because " +
                               flag_reason(f.by_percent, f.by_count) +
                               " (source: `multi_kernel_metrics.json` → `memcpy_assessment."
                               "issues[]`, `memcpy_summary.by_direction`).";
  FindingBuilder finding =
      ctx.report(Tier::kSystem, "memcpy",
                 std::string(d2h ? "Device-to-host" : "Host-to-device") + " memory copies (" +
                     count_of(n, "transfer", "transfers") + ", " + fixed(f.percent, 2) +
                     "% of E2E)")
          .key(d2h ? "d2h" : "h2d")
          .severity(Severity::kWarning)
          .insight(insight)
          .identification(identification)
          .metric("count", static_cast<double>(n))
          .metric("time_ms", py_round(time_ms, 3))
          .metric("percent_of_total", py_round(f.percent, 2))
          .metric("avg_bytes", d.avg_bytes);
  advise_on_direction(finding, d2h);
  if (e2e_us > 0) finding.share_percent(std::min(100.0, f.percent));
  attach_copies(ctx, finding, d.rows);
  finding.emit();
}

void MemcpyAnalyzer::report_rule(Context& ctx, const std::string& key, const std::string& title,
                                 std::vector<Row> rows, double e2e_us, Severity severity,
                                 const std::string& insight, const std::string& action,
                                 const std::string& identification, const std::string& reasoning,
                                 const std::string& resolution) const {
  const double time_us = system::durations(ctx.events(), rows).total_us;
  FindingBuilder finding = ctx.report(Tier::kSystem, "memcpy", title)
                               .key(key)
                               .severity(severity)
                               .insight(insight)
                               .action(action)
                               .identification(identification)
                               .reasoning(reasoning)
                               .resolution(resolution)
                               .metric("count", static_cast<double>(rows.size()))
                               .metric("time_us", time_us);
  system::share_of_e2e(finding, time_us, e2e_us);
  attach_copies(ctx, finding, std::move(rows));
  finding.emit();
}

// Evidence and the table of longest copies: the longest first, each capped by its option.
void MemcpyAnalyzer::attach_copies(const Context& ctx, FindingBuilder& finding,
                                   std::vector<Row> rows) const {
  system::sort_longest_first(ctx.events(), rows);
  const std::size_t evidence = system::capped(rows.size(), max_evidence_rows_);
  for (std::size_t i = 0; i < evidence; ++i) finding.evidence(rows[i]);
  finding.table(copy_table(ctx, rows));
}

Table MemcpyAnalyzer::copy_table(const Context& ctx, const std::vector<Row>& sorted_rows) const {
  const EventView ev = ctx.events();
  Table table("Longest copies",
              {"Name", "Direction", "Bytes", "Duration (µs)", "Launched by", "Op"});
  const std::size_t limit = system::capped(sorted_rows.size(), table_rows_);
  for (std::size_t i = 0; i < limit; ++i) {
    const Row r = sorted_rows[i];
    auto args = ctx.gpu_args(r);
    const char* dir = args ? copy_direction_text(args->copy_direction) : nullptr;
    static const char* const kLabels[] = {"DtoH", "HtoD", "DtoD", "—"};
    std::string direction = dir ? dir : kLabels[direction_of(ev.name(r))];
    std::string bytes = args && args->bytes >= 0 ? std::to_string(args->bytes) : "—";
    const Row launcher = launcher_of(ev, r);
    std::string launched_by = launcher != kNoRow ? std::string(ev.name(launcher)) : "—";
    const Row op = nearest_cpu_op(ev, launcher);
    std::string op_name = op != kNoRow ? std::string(ev.name(op)) : "—";
    table.row(
        {std::string(ev.name(r)), direction, bytes, compact(ev.dur_us(r)), launched_by, op_name});
  }
  return table;
}

std::string MemcpyAnalyzer::flag_reason(bool by_percent, bool by_count) const {
  std::string why;
  if (by_percent)
    why = "their time is above " + compact(direction_percent_threshold_) + "% of the E2E span";
  if (by_count) {
    if (!why.empty()) why += " and ";
    why += "there are more than " + std::to_string(direction_count_threshold_) + " of them";
  }
  return why;
}

// Up to three distinct launching API names, quoted, in first-seen order.
std::string MemcpyAnalyzer::api_names(const EventView& ev, const std::vector<Row>& rows) const {
  std::vector<std::string_view> names;
  for (Row r : rows) {
    Row l = launcher_of(ev, r);
    if (l == kNoRow) continue;
    std::string_view n = ev.name(l);
    if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  }
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < 3; ++i) {
    if (i) out += ", ";
    out += "`" + std::string(names[i]) + "`";
  }
  if (names.size() > 3) out += " and " + std::to_string(names.size() - 3) + " more";
  return out;
}

}  // namespace traceprism::plugins::memcpy
