#include "memcpy_analyzer.hpp"

#include <algorithm>
#include <cctype>
#include <string_view>
#include <utility>

#include <traceprism/support.hpp>

namespace traceprism_memcpy {
namespace {

using traceprism::Context;
using traceprism::EventView;
using traceprism::GpuClass;
using traceprism::Kind;
using traceprism::kNoRow;
using traceprism::Row;
using traceprism::Severity;
using traceprism::Table;
using traceprism::Tier;
using traceprism::support::compact;
using traceprism::support::count_of;
using traceprism::support::fixed;
using traceprism::support::py_round;
namespace support = traceprism::support;

bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The reference's direction of a copy, from its lower-cased event name (spec 3.7).
enum DirectionIndex { kD2H = 0, kH2D = 1, kD2D = 2, kOther = 3 };
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

// Rows by duration, longest first; ties by row.
void sort_by_duration(const EventView& ev, std::vector<Row>& rows) {
  std::sort(rows.begin(), rows.end(), [&](Row a, Row b) {
    if (ev.dur_ns(a) != ev.dur_ns(b)) return ev.dur_ns(a) > ev.dur_ns(b);
    return a < b;
  });
}

double sum_us(const EventView& ev, const std::vector<Row>& rows) {
  double total = 0;
  for (Row r : rows) total += ev.dur_us(r);
  return total;
}

// Up to three distinct launching API names, quoted, in first-seen order.
template <class LauncherOf>
std::string api_names(const EventView& ev, const std::vector<Row>& rows, LauncherOf launcher_of) {
  std::vector<std::string_view> names;
  for (Row r : rows) {
    Row l = launcher_of(r);
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

}  // namespace

MemcpyAnalyzer::MemcpyAnalyzer(Context& ctx)
    : direction_percent_threshold_(ctx.option("DirectionPercentThreshold", 5.0)),
      direction_count_threshold_(ctx.option("DirectionCountThreshold", std::int64_t{10})),
      sync_h2d_min_bytes_(ctx.option("SyncH2DMinBytes", std::int64_t{65536})),
      table_rows_(ctx.option("TableRows", std::int64_t{10})),
      max_evidence_rows_(ctx.option("MaxEvidenceRows", std::int64_t{200})) {}

void MemcpyAnalyzer::summarize(Context& ctx, Direction& d) const {
  const EventView ev = ctx.events();
  double sum = 0, max = 0, bytes = 0;
  bool any_bytes = false;
  for (std::size_t i = 0; i < d.rows.size(); ++i) {
    const double dur = ev.dur_us(d.rows[i]);
    sum += dur;
    if (i == 0 || dur > max) max = dur;
    auto args = ctx.gpu_args(d.rows[i]);
    if (args && args->bytes > 0) {
      bytes += static_cast<double>(args->bytes);
      any_bytes = true;
    }
  }
  const double n = static_cast<double>(d.rows.size());
  d.total_us = py_round(sum, 2);
  d.avg_us = py_round(sum / n, 2);
  d.max_us = py_round(max, 2);
  d.total_bytes = bytes;
  d.avg_bytes = any_bytes ? py_round(bytes / n, 2) : 0.0;
}

Table MemcpyAnalyzer::copy_table(const Context& ctx, const std::vector<Row>& sorted_rows) const {
  const EventView ev = ctx.events();
  Table table("Longest copies",
              {"Name", "Direction", "Bytes", "Duration (µs)", "Launched by", "Op"});
  const std::size_t limit = std::min(
      sorted_rows.size(), static_cast<std::size_t>(std::max<std::int64_t>(0, table_rows_)));
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

void MemcpyAnalyzer::report_rule(Context& ctx, const std::string& key, const std::string& title,
                                 std::vector<Row> rows, double e2e_us, Severity severity,
                                 const std::string& insight, const std::string& action,
                                 const std::string& identification, const std::string& reasoning,
                                 const std::string& resolution) const {
  const EventView ev = ctx.events();
  const double time_us = sum_us(ev, rows);
  sort_by_duration(ev, rows);
  auto finding = ctx.report(Tier::kSystem, "memcpy", title)
                     .key(key)
                     .severity(severity)
                     .insight(insight)
                     .action(action)
                     .identification(identification)
                     .reasoning(reasoning)
                     .resolution(resolution)
                     .metric("count", static_cast<double>(rows.size()))
                     .metric("time_us", time_us);
  // Capped at 100: copies outside the (linked) timeline can outlast its span.
  if (e2e_us > 0) finding.share_percent(std::min(100.0, time_us / e2e_us * 100.0));
  const std::size_t evidence = std::min(
      rows.size(), static_cast<std::size_t>(std::max<std::int64_t>(0, max_evidence_rows_)));
  for (std::size_t i = 0; i < evidence; ++i) finding.evidence(rows[i]);
  finding.table(copy_table(ctx, rows));
  finding.emit();
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

void MemcpyAnalyzer::report_direction(Context& ctx, const Direction& d, double percent,
                                      double e2e_us, bool by_percent, bool by_count) const {
  const bool d2h = std::string_view(d.label) == "D2H";
  const std::size_t n = d.rows.size();
  const double time_ms = d.total_us / 1000.0;
  const std::string what = d2h ? "device-to-host" : "host-to-device";
  const std::string why = flag_reason(by_percent, by_count);
  std::string insight = std::to_string(n) + " " + what + " " +
                        (n == 1 ? "copy takes " : "copies take ") + fixed(time_ms, 3) + " ms, " +
                        fixed(percent, 2) + "% of the end-to-end GPU span";
  if (d.avg_bytes > 0) insight += ", " + fixed(d.avg_bytes, 0) + " bytes on average";
  insight += ".";
  std::string action, reasoning, resolution;
  if (d2h) {
    action =
        "Keep results on the GPU: replace `.item()`, `.cpu()`, scalar reads and hot-path logging "
        "with device-side reductions, and batch the host reads that remain into one transfer. "
        "Expect fewer device-to-host transfers and less GPU idle time after them.";
    reasoning =
        "A device-to-host copy of a value the host needs makes the host wait until the GPU has "
        "finished the work queued before it. The host launches nothing while it waits, so the GPU "
        "runs dry after each such read.";
    resolution =
        "Device-side reductions keep intermediate values in GPU memory. One batched read per step "
        "replaces many small synchronizing reads, so the launch queue stays full.";
  } else {
    action =
        "Pin host memory (`pin_memory=True` in the data loader), pre-allocate device tensors "
        "instead of creating them from host data on the fly, and copy with `non_blocking=True`. "
        "Expect fewer host-to-device transfers and the remaining ones to overlap compute.";
    reasoning =
        "Host-to-device copies on the compute stream serialize with kernels. Copies from pageable "
        "host memory are staged by the driver and block the host until staged.";
    resolution =
        "Pinned buffers let the copy engine read host memory directly, so an asynchronous copy "
        "returns at once. Tensors created once on the device need no per-step transfer.";
  }
  std::string identification = std::to_string(n) + " " + what + " " +
                               (n == 1 ? "copy was" : "copies were") +
                               " found among the memory copies linked to a launch (direction "
                               "read from the event name); flagged because " +
                               why +
                               " (source: `multi_kernel_metrics.json` → `memcpy_assessment."
                               "issues[]`, `memcpy_summary.by_direction`).";
  std::vector<Row> rows = d.rows;
  const EventView ev = ctx.events();
  sort_by_duration(ev, rows);
  auto finding =
      ctx.report(Tier::kSystem, "memcpy",
                 std::string(d2h ? "Device-to-host" : "Host-to-device") + " memory copies (" +
                     count_of(n, "transfer", "transfers") + ", " + fixed(percent, 2) + "% of E2E)")
          .key(d2h ? "d2h" : "h2d")
          .severity(Severity::kWarning)
          .insight(insight)
          .action(action)
          .identification(identification)
          .reasoning(reasoning)
          .resolution(resolution)
          .metric("count", static_cast<double>(n))
          .metric("time_ms", py_round(time_ms, 3))
          .metric("percent_of_total", py_round(percent, 2))
          .metric("avg_bytes", d.avg_bytes);
  if (e2e_us > 0) finding.share_percent(std::min(100.0, percent));
  const std::size_t evidence = std::min(
      rows.size(), static_cast<std::size_t>(std::max<std::int64_t>(0, max_evidence_rows_)));
  for (std::size_t i = 0; i < evidence; ++i) finding.evidence(rows[i]);
  finding.table(copy_table(ctx, rows));
  finding.emit();
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

traceprism::Status MemcpyAnalyzer::run(Context& ctx) {
  const EventView ev = ctx.events();

  // The memcpy bucket of the GPU timeline: gpu_memcpy events and ROCm legacy copy kernels,
  // linked to a launch or not, as in the reference's multi_kernel_data.json; file order, as the
  // reference walks its event list.
  std::vector<Row> copies;
  for (Kind kind : {Kind::kMemcpy, Kind::kKernel}) {
    for (Row r : ctx.rows(kind)) {
      if (ev.gpu_class(r) == GpuClass::kMemcpy) copies.push_back(r);
    }
  }
  std::sort(copies.begin(), copies.end());

  // memcpy_summary (multi_kernel_data.json).
  Direction dirs[4];
  static const char* const kLabels[] = {"D2H", "H2D", "D2D", "other"};
  for (int i = 0; i < 4; ++i) dirs[i].label = kLabels[i];
  for (Row r : copies) dirs[direction_of(ev.name(r))].rows.push_back(r);
  double summary_total_us = 0;
  for (Direction& d : dirs) {
    if (d.rows.empty()) continue;
    summarize(ctx, d);
    const std::string p = std::string("memcpy_summary.by_direction.") + d.label + ".";
    ctx.record(p + "count", static_cast<double>(d.rows.size()));
    ctx.record(p + "total_time_us", d.total_us);
    ctx.record(p + "avg_time_us", d.avg_us);
    ctx.record(p + "max_time_us", d.max_us);
    ctx.record(p + "total_bytes", d.total_bytes);
    ctx.record(p + "avg_bytes", d.avg_bytes);
    summary_total_us += d.total_us;
  }
  summary_total_us = py_round(summary_total_us, 2);
  ctx.record("memcpy_summary.total_count", static_cast<double>(copies.size()));
  ctx.record("memcpy_summary.total_time_us", summary_total_us);

  // overlap_analysis, memcpy half (the comm analyzer records the rest), over every GPU event:
  // copy time that neither compute nor communication hides.
  const support::GpuClassIntervals all = support::all_gpu_event_intervals(ctx);
  if (all.events > 0) {
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

  // E2E: the perf report's gpu_timeline total (linked GPU events unless the run includes the
  // unlinked ones), which the reference's multi_kernel_metrics.json reads as T.
  const auto timeline = ctx.timeline();
  const double e2e_us = timeline && timeline->gpu_event_count > 0 ? timeline->total_us : 0.0;

  // memcpy_assessment (multi_kernel_metrics.json, spec 8.1); T = gpu_timeline total_time in ms.
  const double total_ms = e2e_us / 1000.0;
  bool flagged = false;
  struct Flag {
    const Direction* d;
    double percent;
    bool by_percent, by_count;
  };
  std::vector<Flag> flags;
  if (total_ms > 0) {
    const double memcpy_ms = summary_total_us / 1000.0;
    const double memcpy_pct = (memcpy_ms / total_ms) * 100.0;
    for (int i : {kD2H, kH2D}) {
      const Direction& d = dirs[i];
      if (d.rows.empty()) continue;
      const double dir_ms = d.total_us / 1000.0;
      const double dir_pct = (dir_ms / total_ms) * 100.0;
      const bool by_percent = dir_pct > direction_percent_threshold_;
      const bool by_count = static_cast<std::int64_t>(d.rows.size()) > direction_count_threshold_;
      const std::string p = std::string("memcpy_assessment.");
      ctx.record(p + "by_direction." + d.label + ".flagged", by_percent || by_count ? 1.0 : 0.0);
      if (!(by_percent || by_count)) continue;
      flagged = true;
      flags.push_back({&d, dir_pct, by_percent, by_count});
      const std::string q = p + "issues." + d.label + ".";
      ctx.record(q + "count", static_cast<double>(d.rows.size()));
      ctx.record(q + "time_ms", py_round(dir_ms, 3));
      ctx.record(q + "percent_of_total", py_round(dir_pct, 2));
      ctx.record(q + "avg_bytes", d.avg_bytes);
    }
    ctx.record("memcpy_assessment.total_count", static_cast<double>(copies.size()));
    ctx.record("memcpy_assessment.total_time_ms", py_round(memcpy_ms, 3));
    ctx.record("memcpy_assessment.percent_of_total", py_round(memcpy_pct, 2));
  }
  ctx.record("memcpy_assessment.flagged", flagged ? 1.0 : 0.0);
  // Nsight-style rules over every copy and memset with a known launching call (spec peers §2).
  index_launch_calls(ctx);
  std::vector<Row> pageable_async, sync_memcpy, sync_memset;
  std::size_t sync_memset_host_blocking = 0;
  for (Row r : copies) {
    const Row launcher = launcher_of(ev, r);
    if (launcher == kNoRow) continue;
    const std::string_view api = ev.name(launcher);
    auto args = ctx.gpu_args(r);
    if (contains(api, "Async")) {
      if (args && (args->copy_source == TRACEPRISM_MEMORY_PAGEABLE ||
                   args->copy_destination == TRACEPRISM_MEMORY_PAGEABLE))
        pageable_async.push_back(r);
    } else if (is_memcpy_api(api)) {
      bool h2d = args && args->copy_direction == TRACEPRISM_COPY_HTOD;
      if (!args || args->copy_direction == TRACEPRISM_COPY_UNKNOWN)
        h2d = direction_of(ev.name(r)) == kH2D;
      const bool small = args && args->bytes >= 0 && args->bytes <= sync_h2d_min_bytes_;
      if (!(h2d && small)) sync_memcpy.push_back(r);
    }
  }
  for (Row r : ctx.rows(Kind::kMemset)) {
    const Row launcher = launcher_of(ev, r);
    if (launcher == kNoRow) continue;
    const std::string_view api = ev.name(launcher);
    if (!is_memset_api(api) || contains(api, "Async")) continue;
    sync_memset.push_back(r);
    auto args = ctx.gpu_args(r);
    if (args && (args->copy_destination == TRACEPRISM_MEMORY_PINNED ||
                 args->copy_destination == TRACEPRISM_MEMORY_MANAGED ||
                 args->copy_destination == TRACEPRISM_MEMORY_HOST))
      ++sync_memset_host_blocking;
  }
  ctx.record("rules.pageable_async.count", static_cast<double>(pageable_async.size()));
  ctx.record("rules.sync_memcpy.count", static_cast<double>(sync_memcpy.size()));
  ctx.record("rules.sync_memset.count", static_cast<double>(sync_memset.size()));

  // A flagged direction whose copies are exactly the copies of a rule is the same issue (spec
  // 8.2: merge cards with the same mechanism): the rule's finding, which names the cause, carries
  // it, and the direction gets no finding of its own.
  auto same_rows = [](std::vector<Row> a, std::vector<Row> b) {
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    return a == b;
  };
  std::string pageable_note, sync_note;
  for (const Flag& f : flags) {
    std::string* note = nullptr;
    if (!pageable_async.empty() && same_rows(pageable_async, f.d->rows))
      note = &pageable_note;
    else if (!sync_memcpy.empty() && same_rows(sync_memcpy, f.d->rows))
      note = &sync_note;
    if (!note) {
      report_direction(ctx, *f.d, f.percent, e2e_us, f.by_percent, f.by_count);
      continue;
    }
    const bool d2h = std::string_view(f.d->label) == "D2H";
    *note = " They are all the " + std::string(d2h ? "device-to-host" : "host-to-device") +
            " copies of the trace, which the per-direction check flags too because " +
            flag_reason(f.by_percent, f.by_count) + "; they take " + fixed(f.percent, 2) +
            "% of E2E.";
  }
  // Puts a merge note before the closing (source: ...) of an identification.
  auto with_note = [](std::string identification, const std::string& note) {
    if (note.empty()) return identification;
    const std::size_t at = identification.rfind(" (source:");
    if (at == std::string::npos) return identification + note;
    std::string tail = identification.substr(at);  // " (source: ...)."
    identification.erase(at);
    if (!identification.empty() && identification.back() == '.') identification.pop_back();
    return identification + "." + note.substr(0, note.size() - 1) + tail;
  };

  auto resolve = [&](Row r) { return launcher_of(ev, r); };
  auto share_text = [&](const std::vector<Row>& rows) {
    const double us = sum_us(ev, rows);
    std::string s = fixed(us / 1000.0, 3) + " ms of copy time";
    if (e2e_us > 0) s += " (" + fixed(us / e2e_us * 100.0, 2) + "% of E2E)";
    return s;
  };

  if (!pageable_async.empty()) {
    const std::size_t n = pageable_async.size();
    report_rule(
        ctx, "pageable-async", "Asynchronous copies from pageable host memory", pageable_async,
        e2e_us, Severity::kWarning,
        count_of(n, "copy", "copies") + " issued with an asynchronous API (" +
            api_names(ev, pageable_async, resolve) + ") " + (n == 1 ? "uses" : "use") +
            " pageable host memory: " + share_text(pageable_async) + ".",
        "Allocate the host side in pinned memory (`pin_memory=True` in the data loader, "
        "`tensor.pin_memory()`) and keep `non_blocking=True` on the copy. Expect these copies to "
        "stop blocking the host and to overlap compute.",
        with_note("The memory kinds in the copy names read pageable on the host side, and the "
                  "launching runtime call is an asynchronous memcpy API (source: `gpu_memcpy` "
                  "event name, launching runtime call).",
                  pageable_note),
        "The copy engine cannot read pageable memory directly. The driver first stages the data "
        "through a pinned buffer, so the asynchronous call behaves synchronously for the host.",
        "Page-locked host buffers let the copy engine transfer directly. The call then returns at "
        "once and the transfer overlaps kernels on other streams.");
  }
  if (!sync_memcpy.empty()) {
    const std::size_t n = sync_memcpy.size();
    report_rule(
        ctx, "sync-memcpy", "Synchronous memory copies", sync_memcpy, e2e_us, Severity::kWarning,
        count_of(n, "copy", "copies") + " issued with a synchronous API (" +
            api_names(ev, sync_memcpy, resolve) + ") block the host: " + share_text(sync_memcpy) +
            "; host-to-device copies of " + std::to_string(sync_h2d_min_bytes_) +
            " bytes or less are not counted.",
        "Issue these copies asynchronously on a stream (`non_blocking=True`, with pinned host "
        "memory) and synchronize only where the host consumes the data. Expect fewer host stalls "
        "and less GPU idle time after the copies.",
        with_note("The launching call is a memcpy API without `Async` in its name "
                  "(`hipMemcpyWithStream` included); host-to-device copies of known size up to the "
                  "threshold are excluded, as the driver returns before they complete (source: "
                  "launching runtime call, `bytes`).",
                  sync_note),
        "A synchronous copy returns only after the transfer has completed. The host issues no "
        "work meanwhile, so the GPU idles once its queue drains.",
        "An asynchronous copy lets the host keep launching kernels. A stream or event wait where "
        "the result is consumed keeps the ordering.");
  }
  if (!sync_memset.empty()) {
    const std::size_t n = sync_memset.size();
    std::string insight = count_of(n, "memset", "memsets") + " issued with a synchronous API (" +
                          api_names(ev, sync_memset, resolve) + "): " + share_text(sync_memset);
    insight += sync_memset_host_blocking > 0
                   ? "; " + std::to_string(sync_memset_host_blocking) +
                         " of them target pinned or managed memory and block the host."
                   : "; none targets pinned or managed memory.";
    report_rule(
        ctx, "sync-memset", "Synchronous memsets", sync_memset, e2e_us,
        sync_memset_host_blocking > 0 ? Severity::kWarning : Severity::kInfo, insight,
        "Use the asynchronous memset on the work stream (`cudaMemsetAsync` / `hipMemsetAsync`), "
        "or fill on the device (`torch.zeros(..., device=...)`). Expect fewer host stalls.",
        "The launching call is a memset API without `Async` in its name (source: launching "
        "runtime call, `gpu_memset` event name).",
        "A synchronous memset runs on the legacy default stream and orders with all work before "
        "it. On pinned or managed memory it also blocks the host until it completes.",
        "The asynchronous variant enqueues the fill on the given stream and returns. Events keep "
        "the ordering with other streams.");
  }
  return traceprism::Status::kOk;
}

}  // namespace traceprism_memcpy
