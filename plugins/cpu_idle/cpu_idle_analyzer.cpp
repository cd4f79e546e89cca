#include "cpu_idle_analyzer.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <traceprism/sorted_runs.hpp>
#include <traceprism/support.hpp>

#include "../common/system_support.hpp"

namespace traceprism::plugins::cpu_idle {
namespace {

using support::py_round;

// The reference's D2H flag (multi-kernel memcpy_assessment): > 5% of E2E or > 10 copies.
constexpr double kD2hPercent = 5.0;
constexpr std::uint64_t kD2hCount = 10;

enum Cause { kHostWait = 0, kKernelWait = 1, kOther = 2, kCauseCount = 3 };
constexpr const char* kCauseNames[kCauseCount] = {"host_wait", "kernel_wait", "other"};

struct ByTime {
  const EventView* ev;
  bool operator()(Row a, Row b) const {
    std::int64_t ta = ev->ts_ns(a), tb = ev->ts_ns(b);
    return ta != tb ? ta < tb : a < b;
  }
};

// HTA's idle cause of the gap before GPU event `next` (peers spec §1.3): host_wait when its
// launch call started after the previous GPU work ended; else kernel_wait when the gap is shorter
// than the consecutive-kernel delay (overlaps, negative gaps, land here too); else other.
Cause classify(const EventView& ev, Row next, std::int64_t prev_end_ns, std::int64_t gap_ns,
               double delay_us) {
  Row launcher = ev.launcher(next);
  if (launcher != kNoRow && ev.ts_ns(launcher) > prev_end_ns) return kHostWait;
  if (static_cast<double>(gap_ns) < delay_us * 1000.0) return kKernelWait;
  return kOther;
}

struct Gap {
  std::int64_t start_ns;
  std::int64_t length_ns;
  Row next;
  Cause cause;
};

struct OpGroup {
  double kernel_us = 0;
  double duration_us = 0;
};

struct CategorySignal {
  double gpu_kernel_ms = 0;
  double cpu_duration_ms = 0;
  double sync_ms = 0;
  std::int64_t sync_ops = 0;
  bool bottleneck = false;
};

// A figure-key segment: dots and spaces would split or blur the dotted key.
std::string key_segment(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c == '.' || c == ' ' || c == '\t') c = '_';
  }
  return out.empty() ? std::string("other") : out;
}

double share(double part, double whole) {
  return whole > 0 ? part / whole * 100.0 : 0.0;
}

// Every kernel, memcpy and memset, linked to a launch or not.
std::vector<Row> all_gpu_rows(const Context& ctx) {
  std::vector<Row> rows;
  for (Kind kind : system::kGpuKinds) {
    for (Row r : ctx.rows(kind)) rows.push_back(r);
  }
  return rows;
}

// The GPU events linked to a launch (the timeline's event set), in (ts, row) order.
std::vector<Row> linked_in_time_order(const EventView& ev, const std::vector<Row>& rows) {
  std::vector<Row> linked;
  for (Row r : rows) {
    if (ev.launcher(r) != kNoRow) linked.push_back(r);
  }
  // The GPU rows come as each kind's list in start order, one after another: a few sorted
  // runs, merged in linear passes rather than sorted (millions of rows on a serving trace).
  sort_in_runs(linked, ByTime{&ev});
  return linked;
}

}  // namespace

struct CpuIdleAnalyzer::Utilization {
  double total_us = 0;
  double total_ms = 0, idle_ms = 0;
  double idle_pct = 0, comp_pct = 0, comm_pct = 0, memcpy_pct = 0;
  bool flagged = false;
};

struct CpuIdleAnalyzer::Kernels {
  std::uint64_t count = 0, short_count = 0;
  double avg_us = 0;
  double short_share = 0;  // percent of the kernels
};

struct CpuIdleAnalyzer::SyncSignals {
  std::map<std::string, CategorySignal> by_category;
  bool any_bottleneck = false;
};

struct CpuIdleAnalyzer::D2hCopies {
  std::uint64_t count = 0;
  double us = 0;
  bool flagged = false;
};

struct CpuIdleAnalyzer::StreamSplit {
  std::int32_t device;
  std::int32_t stream;
  std::int64_t ns[kCauseCount] = {0, 0, 0};
  std::uint64_t events = 0;
};

struct CpuIdleAnalyzer::Launches {
  std::uint64_t count = 0, graph_launched = 0;
  std::uint64_t delay_outliers = 0, runtime_outliers = 0, short_count = 0;
  double mean_delay_us = 0;
};

struct CpuIdleAnalyzer::IdleGaps {
  std::vector<Gap> list;  // in time order
  std::int64_t ns[kCauseCount] = {0, 0, 0};
  std::int64_t span_start_ns = 0;
  double total_us = 0;
  int dominant = kHostWait;  // the cause with the most idle time; the first among equals
};

struct CpuIdleAnalyzer::Measures {
  Utilization util;
  Kernels kernels;
  SyncSignals sync;
  D2hCopies d2h;
  std::vector<StreamSplit> streams;
  Launches launches;
  IdleGaps gaps;
};

CpuIdleAnalyzer::CpuIdleAnalyzer(Context& ctx)
    : idle_threshold_percent_(ctx.declared_option<double>("IdleThresholdPercent", kOptions)),
      short_kernel_us_(ctx.declared_option<double>("ShortKernelUs", kOptions)),
      consecutive_kernel_delay_us_(
          ctx.declared_option<double>("ConsecutiveKernelDelayUs", kOptions)),
      launch_delay_outlier_us_(ctx.declared_option<double>("LaunchDelayOutlierUs", kOptions)),
      runtime_outlier_us_(ctx.declared_option<double>("RuntimeOutlierUs", kOptions)),
      sync_ratio_(ctx.declared_option<double>("SyncRatio", kOptions)),
      sync_min_ms_(ctx.declared_option<double>("SyncMinMs", kOptions)),
      sync_share_of_gpu_(ctx.declared_option<double>("SyncShareOfGpu", kOptions)),
      evidence_gaps_(ctx.declared_option<std::int64_t>("EvidenceGaps", kOptions)) {
  cause_options_.min_percent = ctx.declared_option<double>("MinCausePercent", kOptions);
  cause_options_.evidence_gaps = evidence_gaps_;
  cause_options_.host_op_rows = ctx.declared_option<std::int64_t>("HostOpRows", kOptions);
}

Status CpuIdleAnalyzer::run(Context& ctx) {
  const std::optional<Timeline> timeline = ctx.timeline();
  if (!timeline) {
    ctx.info("no GPU events: nothing to measure");
    return Status::kSkipped;
  }
  const std::vector<Row> gpu_rows = all_gpu_rows(ctx);
  const std::vector<Row> linked = linked_in_time_order(ctx.events(), gpu_rows);

  Measures m;
  m.util = measure_utilization(ctx, *timeline, idle_threshold_percent_);
  m.kernels = count_kernels(ctx);
  m.sync = measure_sync_signals(ctx);
  m.d2h = count_d2h_copies(ctx, timeline->total_us);
  m.streams = split_idle_per_stream(ctx, gpu_rows);
  m.launches = measure_launches(ctx, linked);
  m.gaps = find_idle_gaps(ctx, linked);
  const std::optional<IdleAttribution> idle = ctx.idle_attribution();
  if (!idle) {
    ctx.warn("the host gives no idle attribution (ABI 1.6): idle time is not reported by cause");
    return Status::kOk;
  }
  IdleCauseFindings(ctx, *idle, trace_facts(ctx, m.kernels), cause_options_).emit_all();
  return Status::kOk;
}

// Exactly as the reference's cpu_idle_analysis.py (analysis spec §7.1): percent = x / total *
// 100, ms = us / 1e3, then Python round (times 3, percents 2).
CpuIdleAnalyzer::Utilization CpuIdleAnalyzer::measure_utilization(Context& ctx, const Timeline& t,
                                                                  double threshold) {
  Utilization u;
  u.total_us = t.total_us;
  u.total_ms = t.total_us / 1e3;
  u.idle_ms = t.idle_us / 1e3;
  u.idle_pct = share(t.idle_us, t.total_us);
  u.comp_pct = share(t.computation_us, t.total_us);
  u.comm_pct = share(t.exposed_comm_us, t.total_us);
  u.memcpy_pct = share(t.exposed_memcpy_us, t.total_us);
  u.flagged = u.idle_pct > threshold;
  ctx.record("gpu_utilization.total_time_ms", py_round(u.total_ms, 3));
  ctx.record("gpu_utilization.idle_time_ms", py_round(u.idle_ms, 3));
  ctx.record("gpu_utilization.idle_time_percent", py_round(u.idle_pct, 2));
  ctx.record("gpu_utilization.computation_percent", py_round(u.comp_pct, 2));
  ctx.record("gpu_utilization.communication_percent", py_round(u.comm_pct, 2));
  ctx.record("gpu_utilization.memcpy_percent", py_round(u.memcpy_pct, 2));
  ctx.record("idle_flagged", u.flagged ? 1.0 : 0.0);
  // The unrounded object of metadata/cpu_idle_metadata.json (analysis spec §3.2).
  ctx.record("metadata.gpu_utilization.total_time_ms", u.total_ms);
  ctx.record("metadata.gpu_utilization.computation_time_percent", u.comp_pct);
  ctx.record("metadata.gpu_utilization.exposed_comm_time_percent", u.comm_pct);
  ctx.record("metadata.gpu_utilization.exposed_memcpy_time_percent", u.memcpy_pct);
  ctx.record("metadata.gpu_utilization.idle_time_percent", u.idle_pct);
  return u;
}

// The reference's kernel_analysis, computed for real (§7.1 QUIRK), over launched kernels.
CpuIdleAnalyzer::Kernels CpuIdleAnalyzer::count_kernels(Context& ctx) const {
  const EventView ev = ctx.events();
  Kernels k;
  double sum_us = 0;
  for (Row r : ctx.rows(Kind::kKernel)) {
    if (ev.launcher(r) == kNoRow) continue;
    ++k.count;
    sum_us += ev.dur_us(r);
    if (ev.dur_us(r) < short_kernel_us_) ++k.short_count;
  }
  k.avg_us = k.count ? sum_us / static_cast<double>(k.count) : 0;
  k.short_share =
      k.count ? share(static_cast<double>(k.short_count), static_cast<double>(k.count)) : 0.0;
  ctx.record("kernel_analysis.total_kernel_count", static_cast<double>(k.count));
  ctx.record("kernel_analysis.short_kernel_count", static_cast<double>(k.short_count));
  ctx.record("kernel_analysis.avg_kernel_time_us", k.avg_us);
  return k;
}

// Per op category: kernel counts, and the host-sync signal (analysis spec §3.4, §7.2): an op
// group whose host time far exceeds its GPU kernel time spends the rest waiting on the GPU.
CpuIdleAnalyzer::SyncSignals CpuIdleAnalyzer::measure_sync_signals(Context& ctx) const {
  const EventView ev = ctx.events();
  const OpInstances ops = ctx.op_instances();
  std::map<std::string, std::uint64_t> kernels_by_category;
  std::map<std::string, std::map<std::string, OpGroup, std::less<>>> groups;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    std::string category(ctx.string(ops.category_id(i)));
    if (category.empty()) category = "other";
    std::uint64_t n = 0;
    for (Row k : ops.kernels(i)) {
      if (ev.kind(k) == Kind::kKernel) ++n;
    }
    kernels_by_category[category] += n;
    OpGroup& g = groups[category][std::string(ev.name(ops.row(i)))];
    g.kernel_us += ops.direct_busy_us(i);
    g.duration_us += ev.dur_us(ops.row(i));
  }
  for (const auto& [category, n] : kernels_by_category) {
    ctx.record("kernel_analysis.kernel_count_by_category." + key_segment(category),
               static_cast<double>(n));
  }
  SyncSignals signals;
  for (const auto& [category, by_name] : groups) {
    CategorySignal s;
    double gpu_us = 0, cpu_us = 0;
    for (const auto& [name, g] : by_name) {
      gpu_us += g.kernel_us;
      cpu_us += g.duration_us;
      if (g.kernel_us > 0 && g.duration_us > sync_ratio_ * g.kernel_us) {
        s.sync_ms += (g.duration_us - g.kernel_us) / 1000.0;
        ++s.sync_ops;
      }
    }
    s.gpu_kernel_ms = gpu_us / 1000.0;
    s.cpu_duration_ms = cpu_us / 1000.0;
    s.bottleneck = s.sync_ms > sync_share_of_gpu_ * s.gpu_kernel_ms && s.sync_ms > sync_min_ms_;
    signals.any_bottleneck = signals.any_bottleneck || s.bottleneck;
    const std::string prefix = "host_sync_signal." + key_segment(category) + ".";
    ctx.record(prefix + "gpu_kernel_time_ms", py_round(s.gpu_kernel_ms, 3));
    ctx.record(prefix + "cpu_duration_ms", py_round(s.cpu_duration_ms, 3));
    ctx.record(prefix + "sync_time_ms", py_round(s.sync_ms, 3));
    ctx.record(prefix + "sync_ops_count", static_cast<double>(s.sync_ops));
    ctx.record(prefix + "has_sync_bottleneck", s.bottleneck ? 1.0 : 0.0);
    signals.by_category.emplace(category, s);
  }
  ctx.record("has_sync_bottleneck", signals.any_bottleneck ? 1.0 : 0.0);
  return signals;
}

// Device-to-host copies: each one makes the host wait for the GPU when synchronous.
CpuIdleAnalyzer::D2hCopies CpuIdleAnalyzer::count_d2h_copies(Context& ctx, double total_us) {
  const EventView ev = ctx.events();
  D2hCopies d;
  for (Row r : ctx.rows(Kind::kMemcpy)) {
    if (ev.launcher(r) == kNoRow) continue;
    std::optional<GpuArgs> args = ctx.gpu_args(r);
    if (args && args->copy_direction == TRACEPRISM_COPY_DTOH) {
      ++d.count;
      d.us += ev.dur_us(r);
    }
  }
  // Flagged as the reference's memcpy_assessment flags a direction (analysis spec §8.1).
  d.flagged = d.count > 0 && (share(d.us, total_us) > kD2hPercent || d.count > kD2hCount);
  ctx.record("d2h_copy.count", static_cast<double>(d.count));
  ctx.record("d2h_copy.total_us", d.us);
  ctx.record("d2h_copy.flagged", d.flagged ? 1.0 : 0.0);
  return d;
}

// HTA's idle time breakdown per stream (peers spec §1.3): every kernel/memcpy/memset of a stream
// in (ts, row) order; the gap before each event is ts - end of the previous event.
std::vector<CpuIdleAnalyzer::StreamSplit> CpuIdleAnalyzer::split_idle_per_stream(
    Context& ctx, const std::vector<Row>& rows) const {
  const EventView ev = ctx.events();
  std::map<std::pair<std::int32_t, std::int32_t>, std::vector<Row>> by_stream;
  for (Row r : rows) by_stream[{ev.device(r), ev.stream(r)}].push_back(r);
  std::vector<StreamSplit> streams;
  std::int64_t total[kCauseCount] = {0, 0, 0};
  for (auto& [key, stream_rows] : by_stream) {
    sort_in_runs(stream_rows, ByTime{&ev});  // a few start-ordered runs, as above
    StreamSplit s;
    s.device = key.first;
    s.stream = key.second;
    s.events = stream_rows.size();
    for (std::size_t i = 1; i < stream_rows.size(); ++i) {
      const std::int64_t prev_end = ev.end_ns(stream_rows[i - 1]);
      const std::int64_t gap = ev.ts_ns(stream_rows[i]) - prev_end;
      s.ns[classify(ev, stream_rows[i], prev_end, gap, consecutive_kernel_delay_us_)] += gap;
    }
    for (int c = 0; c < kCauseCount; ++c) total[c] += s.ns[c];
    streams.push_back(s);
  }
  ctx.record("idle_split.stream_count", static_cast<double>(streams.size()));
  for (int c = 0; c < kCauseCount; ++c) {
    ctx.record(std::string("idle_split.") + kCauseNames[c] + "_us",
               static_cast<double>(total[c]) / 1000.0);
  }
  return streams;
}

// HTA's kernel launch statistics (peers spec §1.3), over every launch call that is not a graph
// launch, for both vendors' runtimes.
CpuIdleAnalyzer::Launches CpuIdleAnalyzer::measure_launches(Context& ctx,
                                                            const std::vector<Row>& linked) const {
  const EventView ev = ctx.events();
  Launches l;
  double delay_sum_us = 0;
  for (Row r : linked) {
    const Row call = ev.launcher(r);
    if (system::contains(ev.name(call), "GraphLaunch")) {
      ++l.graph_launched;
      continue;
    }
    const double cpu_us = ev.dur_us(call), gpu_us = ev.dur_us(r);
    const double delay_us =
        std::max<double>(0.0, static_cast<double>(ev.ts_ns(r) - ev.end_ns(call)) / 1000.0);
    ++l.count;
    delay_sum_us += delay_us;
    if (delay_us > launch_delay_outlier_us_) ++l.delay_outliers;
    if (cpu_us > runtime_outlier_us_) ++l.runtime_outliers;
    if (cpu_us <= runtime_outlier_us_ && gpu_us < cpu_us) ++l.short_count;
  }
  l.mean_delay_us = l.count ? delay_sum_us / static_cast<double>(l.count) : 0;
  ctx.record("launch.count", static_cast<double>(l.count));
  ctx.record("launch.graph_launched_events", static_cast<double>(l.graph_launched));
  ctx.record("launch.mean_delay_us", l.mean_delay_us);
  ctx.record("launch.delay_outliers", static_cast<double>(l.delay_outliers));
  ctx.record("launch.runtime_outliers", static_cast<double>(l.runtime_outliers));
  ctx.record("launch.short_kernels", static_cast<double>(l.short_count));
  return l;
}

// Device-level idle gaps over the linked GPU events (the timeline's idle time), each classified
// like HTA's per-stream gaps by the GPU event that ends it.
CpuIdleAnalyzer::IdleGaps CpuIdleAnalyzer::find_idle_gaps(Context& ctx,
                                                          const std::vector<Row>& linked) const {
  const EventView ev = ctx.events();
  IdleGaps gaps;
  if (!linked.empty()) {
    gaps.span_start_ns = ev.ts_ns(linked.front());
    std::int64_t busy_until = ev.end_ns(linked.front());
    for (std::size_t i = 1; i < linked.size(); ++i) {
      const Row r = linked[i];
      if (ev.ts_ns(r) > busy_until) {
        const std::int64_t length = ev.ts_ns(r) - busy_until;
        const Cause cause = classify(ev, r, busy_until, length, consecutive_kernel_delay_us_);
        gaps.list.push_back({busy_until, length, r, cause});
        gaps.ns[cause] += length;
      }
      busy_until = std::max(busy_until, ev.end_ns(r));
    }
  }
  gaps.total_us =
      static_cast<double>(gaps.ns[kHostWait] + gaps.ns[kKernelWait] + gaps.ns[kOther]) / 1000.0;
  for (int c = 1; c < kCauseCount; ++c) {
    if (gaps.ns[c] > gaps.ns[gaps.dominant]) gaps.dominant = c;
  }
  ctx.record("gaps.count", static_cast<double>(gaps.list.size()));
  for (int c = 0; c < kCauseCount; ++c) {
    ctx.record(std::string("gaps.") + kCauseNames[c] + "_us",
               static_cast<double>(gaps.ns[c]) / 1000.0);
  }
  return gaps;
}

// The facts the idle findings' actions depend on.
TraceFacts CpuIdleAnalyzer::trace_facts(Context& ctx, const Kernels& kernels) {
  const EventView ev = ctx.events();
  TraceFacts facts;
  facts.kernels = kernels.count;
  for (Kind kind : {Kind::kRuntime, Kind::kDriver})
    for (Row r : ctx.rows(kind))
      if (system::contains(ev.name(r), "GraphLaunch")) ++facts.graph_launches;
  for (Row r : ctx.rows(Kind::kMemcpy)) {
    const std::optional<GpuArgs> args = ctx.gpu_args(r);
    if (args && (args->copy_source == TRACEPRISM_MEMORY_PAGEABLE ||
                 args->copy_destination == TRACEPRISM_MEMORY_PAGEABLE))
      ++facts.pageable_host_copies;
  }
  for (Row r : ctx.rows(Kind::kUserAnnotation)) {
    if (system::starts_with(ev.name(r), "ProfilerStep#")) facts.steps.push_back(r);
    // Outermost only: the rows come by start, so a nested one starts inside the last kept.
    if (names_warmup_region(ev.name(r)) &&
        (facts.warmup_regions.empty() || ev.ts_ns(r) >= ev.end_ns(facts.warmup_regions.back())))
      facts.warmup_regions.push_back(r);
  }
  std::vector<Row> cpu_ops;
  for (Row r : ctx.rows(Kind::kCpuOp)) cpu_ops.push_back(r);
  facts.first_call_outliers = first_call_outliers(ev, cpu_ops);
  // Op instances come in time order; their distinct rows are put in row order through a bit
  // per row rather than a comparison sort.
  const OpInstances ops = ctx.op_instances();
  std::size_t row_count = 0;
  for (std::size_t i = 0; i < ops.size(); ++i)
    row_count = std::max(row_count, std::size_t{ops.row(i)} + 1);
  std::vector<bool> launches(row_count);
  for (std::size_t i = 0; i < ops.size(); ++i) launches[ops.row(i)] = true;
  for (Row r = 0; r < launches.size(); ++r)
    if (launches[r]) facts.launching_ops.push_back(r);
  return facts;
}

}  // namespace traceprism::plugins::cpu_idle
