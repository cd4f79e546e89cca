#include "cpu_idle_analyzer.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <traceprism/support.hpp>

namespace cpu_idle {

using traceprism::Context;
using traceprism::EventView;
using traceprism::GpuClass;
using traceprism::Kind;
using traceprism::kNoRow;
using traceprism::Row;
using traceprism::Severity;
using traceprism::Status;
using traceprism::Table;
using traceprism::Tier;
using traceprism::support::count_of;
using traceprism::support::fixed;
using traceprism::support::ms;
using traceprism::support::percent;
using traceprism::support::plain;
using traceprism::support::py_round;
using traceprism::support::shorten;
using traceprism::support::us;

namespace {

constexpr Kind kGpuKinds[] = {Kind::kKernel, Kind::kMemcpy, Kind::kMemset};
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

struct StreamSplit {
  std::int32_t device;
  std::int32_t stream;
  std::int64_t ns[kCauseCount] = {0, 0, 0};
  std::uint64_t events = 0;
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

std::string stream_label(std::int32_t device, std::int32_t stream) {
  return "stream " + std::to_string(stream) + " (GPU " + std::to_string(device) + ")";
}

std::string yes_no(bool flagged) {
  return flagged ? "true" : "false";
}

double share(double part, double whole) {
  return whole > 0 ? part / whole * 100.0 : 0.0;
}

}  // namespace

CpuIdleAnalyzer::CpuIdleAnalyzer(Context& ctx)
    : idle_threshold_percent_(ctx.option("IdleThresholdPercent", 15.0)),
      short_kernel_us_(ctx.option("ShortKernelUs", 10.0)),
      consecutive_kernel_delay_us_(ctx.option("ConsecutiveKernelDelayUs", 30.0)),
      launch_delay_outlier_us_(ctx.option("LaunchDelayOutlierUs", 100.0)),
      runtime_outlier_us_(ctx.option("RuntimeOutlierUs", 50.0)),
      sync_ratio_(ctx.option("SyncRatio", 5.0)),
      sync_min_ms_(ctx.option("SyncMinMs", 1.0)),
      sync_share_of_gpu_(ctx.option("SyncShareOfGpu", 0.1)),
      evidence_gaps_(ctx.option("EvidenceGaps", static_cast<std::int64_t>(10))) {}

Status CpuIdleAnalyzer::run(Context& ctx) {
  const std::optional<traceprism::Timeline> timeline = ctx.timeline();
  if (!timeline) {
    ctx.info("no GPU events: nothing to measure");
    return Status::kSkipped;
  }
  const EventView ev = ctx.events();
  const ByTime by_time{&ev};

  // ---- GPU utilization, exactly as the reference's cpu_idle_analysis.py (analysis spec §7.1):
  // percent = x / total * 100, ms = us / 1e3, then Python round (times 3, percents 2).
  const traceprism::Timeline& t = *timeline;
  const double total_ms = t.total_us / 1e3;
  const double idle_ms = t.idle_us / 1e3;
  const double idle_pct = share(t.idle_us, t.total_us);
  const double comp_pct = share(t.computation_us, t.total_us);
  const double comm_pct = share(t.exposed_comm_us, t.total_us);
  const double memcpy_pct = share(t.exposed_memcpy_us, t.total_us);
  const bool idle_flagged = idle_pct > idle_threshold_percent_;
  ctx.record("gpu_utilization.total_time_ms", py_round(total_ms, 3));
  ctx.record("gpu_utilization.idle_time_ms", py_round(idle_ms, 3));
  ctx.record("gpu_utilization.idle_time_percent", py_round(idle_pct, 2));
  ctx.record("gpu_utilization.computation_percent", py_round(comp_pct, 2));
  ctx.record("gpu_utilization.communication_percent", py_round(comm_pct, 2));
  ctx.record("gpu_utilization.memcpy_percent", py_round(memcpy_pct, 2));
  ctx.record("idle_flagged", idle_flagged ? 1.0 : 0.0);
  // The unrounded object of metadata/cpu_idle_metadata.json (analysis spec §3.2).
  ctx.record("metadata.gpu_utilization.total_time_ms", total_ms);
  ctx.record("metadata.gpu_utilization.computation_time_percent", comp_pct);
  ctx.record("metadata.gpu_utilization.exposed_comm_time_percent", comm_pct);
  ctx.record("metadata.gpu_utilization.exposed_memcpy_time_percent", memcpy_pct);
  ctx.record("metadata.gpu_utilization.idle_time_percent", idle_pct);

  // ---- Linked GPU events (the timeline's event set), in (ts, row) order.
  std::vector<Row> linked;
  std::vector<Row> all_gpu;
  for (Kind kind : kGpuKinds) {
    for (Row r : ctx.rows(kind)) {
      all_gpu.push_back(r);
      if (ev.launcher(r) != kNoRow) linked.push_back(r);
    }
  }
  std::sort(linked.begin(), linked.end(), by_time);

  // ---- Kernel statistics (the reference's kernel_analysis, computed for real: §7.1 QUIRK).
  std::uint64_t kernel_count = 0, short_kernels = 0;
  double kernel_us_sum = 0;
  for (Row r : ctx.rows(Kind::kKernel)) {
    if (ev.launcher(r) == kNoRow) continue;
    ++kernel_count;
    kernel_us_sum += ev.dur_us(r);
    if (ev.dur_us(r) < short_kernel_us_) ++short_kernels;
  }
  const double avg_kernel_us = kernel_count ? kernel_us_sum / static_cast<double>(kernel_count) : 0;
  ctx.record("kernel_analysis.total_kernel_count", static_cast<double>(kernel_count));
  ctx.record("kernel_analysis.short_kernel_count", static_cast<double>(short_kernels));
  ctx.record("kernel_analysis.avg_kernel_time_us", avg_kernel_us);

  // ---- Per op category: kernel counts and the host-sync signal (analysis spec §3.4, §7.2).
  const traceprism::OpInstances ops = ctx.op_instances();
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
  std::map<std::string, CategorySignal> signals;
  bool any_sync_bottleneck = false;
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
    any_sync_bottleneck = any_sync_bottleneck || s.bottleneck;
    const std::string prefix = "host_sync_signal." + key_segment(category) + ".";
    ctx.record(prefix + "gpu_kernel_time_ms", py_round(s.gpu_kernel_ms, 3));
    ctx.record(prefix + "cpu_duration_ms", py_round(s.cpu_duration_ms, 3));
    ctx.record(prefix + "sync_time_ms", py_round(s.sync_ms, 3));
    ctx.record(prefix + "sync_ops_count", static_cast<double>(s.sync_ops));
    ctx.record(prefix + "has_sync_bottleneck", s.bottleneck ? 1.0 : 0.0);
    signals.emplace(category, s);
  }
  ctx.record("has_sync_bottleneck", any_sync_bottleneck ? 1.0 : 0.0);

  // ---- Device-to-host copies (each one makes the host wait for the GPU when synchronous).
  std::uint64_t d2h_count = 0;
  double d2h_us = 0;
  for (Row r : ctx.rows(Kind::kMemcpy)) {
    if (ev.launcher(r) == kNoRow) continue;
    std::optional<traceprism::GpuArgs> args = ctx.gpu_args(r);
    if (args && args->copy_direction == TRACEPRISM_COPY_DTOH) {
      ++d2h_count;
      d2h_us += ev.dur_us(r);
    }
  }
  // Flagged as the reference's memcpy_assessment flags a direction (analysis spec §8.1): more than
  // 5% of E2E or more than 10 copies.
  const bool d2h_flagged =
      d2h_count > 0 && (share(d2h_us, t.total_us) > kD2hPercent || d2h_count > kD2hCount);
  ctx.record("d2h_copy.count", static_cast<double>(d2h_count));
  ctx.record("d2h_copy.total_us", d2h_us);
  ctx.record("d2h_copy.flagged", d2h_flagged ? 1.0 : 0.0);

  // ---- HTA idle time breakdown per stream (peers spec §1.3): every kernel/memcpy/memset of a
  // stream in (ts, row) order; the gap before each event is ts - end of the previous event.
  std::map<std::pair<std::int32_t, std::int32_t>, std::vector<Row>> by_stream;
  for (Row r : all_gpu) by_stream[{ev.device(r), ev.stream(r)}].push_back(r);
  std::vector<StreamSplit> streams;
  std::int64_t split_total[kCauseCount] = {0, 0, 0};
  for (auto& [key, rows] : by_stream) {
    std::sort(rows.begin(), rows.end(), by_time);
    StreamSplit s;
    s.device = key.first;
    s.stream = key.second;
    s.events = rows.size();
    for (std::size_t i = 1; i < rows.size(); ++i) {
      const std::int64_t prev_end = ev.end_ns(rows[i - 1]);
      const std::int64_t gap = ev.ts_ns(rows[i]) - prev_end;
      s.ns[classify(ev, rows[i], prev_end, gap, consecutive_kernel_delay_us_)] += gap;
    }
    for (int c = 0; c < kCauseCount; ++c) split_total[c] += s.ns[c];
    streams.push_back(s);
  }
  ctx.record("idle_split.stream_count", static_cast<double>(streams.size()));
  for (int c = 0; c < kCauseCount; ++c) {
    ctx.record(std::string("idle_split.") + kCauseNames[c] + "_us",
               static_cast<double>(split_total[c]) / 1000.0);
  }

  // ---- HTA kernel launch statistics (peers spec §1.3), over every launch call that is not a
  // graph launch, for both vendors' runtimes.
  std::uint64_t launches = 0, delay_outliers = 0, runtime_outliers = 0, launch_short = 0;
  std::uint64_t graph_launched = 0;
  double delay_sum_us = 0;
  for (Row r : linked) {
    const Row l = ev.launcher(r);
    if (ev.name(l).find("GraphLaunch") != std::string_view::npos) {
      ++graph_launched;
      continue;
    }
    const double cpu_us = ev.dur_us(l), gpu_us = ev.dur_us(r);
    const double delay_us =
        std::max<double>(0.0, static_cast<double>(ev.ts_ns(r) - ev.end_ns(l)) / 1000.0);
    ++launches;
    delay_sum_us += delay_us;
    if (delay_us > launch_delay_outlier_us_) ++delay_outliers;
    if (cpu_us > runtime_outlier_us_) ++runtime_outliers;
    if (cpu_us <= runtime_outlier_us_ && gpu_us < cpu_us) ++launch_short;
  }
  const double mean_delay_us = launches ? delay_sum_us / static_cast<double>(launches) : 0;
  ctx.record("launch.count", static_cast<double>(launches));
  ctx.record("launch.graph_launched_events", static_cast<double>(graph_launched));
  ctx.record("launch.mean_delay_us", mean_delay_us);
  ctx.record("launch.delay_outliers", static_cast<double>(delay_outliers));
  ctx.record("launch.runtime_outliers", static_cast<double>(runtime_outliers));
  ctx.record("launch.short_kernels", static_cast<double>(launch_short));

  // ---- Device-level idle gaps over the linked GPU events (the timeline's idle time), each
  // classified like HTA's per-stream gaps by the GPU event that ends it.
  std::vector<Gap> gaps;
  std::int64_t gap_ns[kCauseCount] = {0, 0, 0};
  std::int64_t span_start_ns = linked.empty() ? 0 : ev.ts_ns(linked.front());
  if (!linked.empty()) {
    std::int64_t busy_until = ev.end_ns(linked.front());
    for (std::size_t i = 1; i < linked.size(); ++i) {
      const Row r = linked[i];
      if (ev.ts_ns(r) > busy_until) {
        const std::int64_t length = ev.ts_ns(r) - busy_until;
        const Cause cause = classify(ev, r, busy_until, length, consecutive_kernel_delay_us_);
        gaps.push_back({busy_until, length, r, cause});
        gap_ns[cause] += length;
      }
      busy_until = std::max(busy_until, ev.end_ns(r));
    }
  }
  const double gap_total_us =
      static_cast<double>(gap_ns[kHostWait] + gap_ns[kKernelWait] + gap_ns[kOther]) / 1000.0;
  ctx.record("gaps.count", static_cast<double>(gaps.size()));
  for (int c = 0; c < kCauseCount; ++c) {
    ctx.record(std::string("gaps.") + kCauseNames[c] + "_us",
               static_cast<double>(gap_ns[c]) / 1000.0);
  }

  if (!idle_flagged) return Status::kOk;

  // ---- The finding: one card, action chosen by evidence (analysis spec §7.3).
  const double short_share =
      kernel_count ? share(static_cast<double>(short_kernels), static_cast<double>(kernel_count))
                   : 0.0;
  const bool many_short =
      kernel_count > 0 && (short_share > 50.0 || avg_kernel_us < short_kernel_us_);
  const bool sync_evidence = any_sync_bottleneck || d2h_flagged;

  int dominant = kHostWait;
  for (int c = 1; c < kCauseCount; ++c) {
    if (gap_ns[c] > gap_ns[dominant]) dominant = c;
  }
  const double dominant_share = share(static_cast<double>(gap_ns[dominant]) / 1000.0, gap_total_us);
  const std::string delay_text = us(consecutive_kernel_delay_us_);
  std::string cause_clause;
  switch (dominant) {
    case kHostWait:
      cause_clause = "precedes GPU work that the host launched only after the GPU had gone idle";
      break;
    case kKernelWait:
      cause_clause = "is in gaps shorter than " + delay_text +
                     " between back-to-back GPU work (launch latency)";
      break;
    default:
      cause_clause =
          "is in longer gaps before GPU work that was already queued (waits on synchronization "
          "or dependencies)";
      break;
  }

  std::string insight = "The GPU is idle for " + percent(idle_pct) + " of the " + ms(total_ms) +
                        " end-to-end span (" + ms(idle_ms) + ")";
  if (gap_total_us > 0) {
    insight += ", and " + percent(dominant_share) + " of that idle time " + cause_clause;
  }
  insight += ".";

  const std::string graph_sentence =
      "Capture the repeated step as a GPU graph (for example torch.compile with "
      "mode=\"reduce-overhead\") so that one launch replays its " +
      std::to_string(kernel_count) +
      " kernels, and fuse chains of small kernels to cut the launch count.";
  const std::string sync_sentence =
      "Remove host-device synchronizations from the step: avoid .item(), .cpu() and printing "
      "GPU tensors in the hot path, and copy results to pinned host memory with "
      "non_blocking=True.";
  const std::string overlap_sentence =
      "Overlap host work with GPU execution: prepare inputs in background data-loader workers "
      "with prefetching and pinned memory, and compile or graph-capture the step to cut "
      "per-launch host overhead.";
  std::string action;
  std::string resolution;
  if (many_short) {
    action = graph_sentence;
    resolution =
        "A GPU graph records the kernel sequence once and replays it with a single launch, so "
        "the host no longer pays a launch call per kernel. Fusing small kernels removes launches "
        "and memory round trips at the same time.";
    if (sync_evidence) {
      action += " " + sync_sentence;
      resolution +=
          " Without synchronizations the host can queue the next kernels while the GPU is still "
          "busy, so the launch queue stays ahead of the GPU.";
    }
  } else if (sync_evidence) {
    action = sync_sentence;
    resolution =
        "Each synchronization stops the host until the GPU drains its queue, so the GPU then "
        "waits for the host to queue new work. Asynchronous copies and deferred reads let the "
        "host keep the launch queue ahead of the GPU.";
  } else {
    action = overlap_sentence;
    resolution =
        "When the host queues work ahead of the GPU, each kernel starts as soon as the previous "
        "one ends. Moving host work off the launching thread and prefetching inputs keeps that "
        "queue full.";
  }

  const std::string identification =
      "GPU idle time is " + percent(idle_pct) + " of the end-to-end span, above the " +
      percent(idle_threshold_percent_) +
      " threshold; the span runs from the first to the last GPU event that has a host launch, "
      "and idle time is the part of it with no GPU event running. (source: `findings.json` -> "
      "`figures.cpu-idle.gpu_utilization`, `figures.cpu-idle.gaps`)";

  std::string reasoning = "The GPU has " + count_of(gaps.size(), "idle gap") + ": " +
                          ms(static_cast<double>(gap_ns[kHostWait]) / 1e6) + " host wait, " +
                          ms(static_cast<double>(gap_ns[kKernelWait]) / 1e6) +
                          " launch latency and " + ms(static_cast<double>(gap_ns[kOther]) / 1e6) +
                          " other.";
  if (kernel_count > 0) {
    reasoning += " The trace runs " + count_of(kernel_count, "kernel") + "; " +
                 std::to_string(short_kernels) + " of them (" + percent(short_share) +
                 ") are shorter than " + us(short_kernel_us_) + ", and the average kernel takes " +
                 us(avg_kernel_us) + ".";
  }
  if (launches > 0) {
    reasoning += " GPU work starts on average " + us(mean_delay_us) +
                 " after its launch call returns, and the launch delay exceeds " +
                 us(launch_delay_outlier_us_) + " for " + std::to_string(delay_outliers) + " of " +
                 count_of(launches, "launch", "launches") + ".";
  }
  if (any_sync_bottleneck) {
    std::string names;
    for (const auto& [category, s] : signals) {
      if (!s.bottleneck) continue;
      if (!names.empty()) names += ", ";
      names += category + " (" + ms(s.sync_ms) + ")";
    }
    reasoning +=
        " Host time exceeds " + plain(sync_ratio_) +
        "x the GPU kernel time in these op categories, a sign of host synchronization: " + names +
        ".";
  }
  if (d2h_flagged) {
    reasoning += " The trace has " +
                 count_of(d2h_count, "device-to-host copy", "device-to-host copies") +
                 "; a copy the host waits on stalls the launch queue.";
  }

  // Tables: utilization (system block, analysis spec §10.6), largest gaps, per-stream split,
  // per-category host-sync signal.
  Table utilization("Utilization", {"Metric", "Value", "Flagged"});
  utilization.row(
      {"GPU idle time", ms(idle_ms) + " (" + percent(idle_pct) + ")", yes_no(idle_flagged)});
  utilization.row({"Computation", percent(comp_pct), "false"});
  utilization.row({"Exposed communication", percent(comm_pct), "false"});
  utilization.row({"Exposed memory copy", percent(memcpy_pct), "false"});
  utilization.row({"End-to-end span", ms(total_ms), "false"});
  utilization.row({"Idle before host-launched work (host wait)",
                   ms(static_cast<double>(gap_ns[kHostWait]) / 1e6) + " (" +
                       percent(share(static_cast<double>(gap_ns[kHostWait]) / 1e3, t.total_us)) +
                       ")",
                   yes_no(dominant == kHostWait && gap_ns[kHostWait] > 0)});
  utilization.row({"Launch latency between kernels (kernel wait)",
                   ms(static_cast<double>(gap_ns[kKernelWait]) / 1e6) + " (" +
                       percent(share(static_cast<double>(gap_ns[kKernelWait]) / 1e3, t.total_us)) +
                       ")",
                   yes_no(dominant == kKernelWait && gap_ns[kKernelWait] > 0)});
  utilization.row({"Other idle gaps",
                   ms(static_cast<double>(gap_ns[kOther]) / 1e6) + " (" +
                       percent(share(static_cast<double>(gap_ns[kOther]) / 1e3, t.total_us)) + ")",
                   yes_no(dominant == kOther && gap_ns[kOther] > 0)});
  utilization.row({"GPU kernels", std::to_string(kernel_count), "false"});
  utilization.row({"Short kernels (< " + us(short_kernel_us_) + ")",
                   std::to_string(short_kernels) + " (" + percent(short_share) + ")",
                   yes_no(short_share > 50.0)});
  utilization.row({"Average kernel time", us(avg_kernel_us),
                   yes_no(kernel_count > 0 && avg_kernel_us < short_kernel_us_)});
  utilization.row(
      {"Mean launch delay", us(mean_delay_us), yes_no(mean_delay_us > launch_delay_outlier_us_)});
  utilization.row({"Device-to-host copies", std::to_string(d2h_count) + " (" + us(d2h_us) + ")",
                   yes_no(d2h_flagged)});
  utilization.row(
      {"Host sync bottleneck", any_sync_bottleneck ? "yes" : "no", yes_no(any_sync_bottleneck)});

  std::vector<Gap> largest = gaps;
  std::sort(largest.begin(), largest.end(), [](const Gap& a, const Gap& b) {
    return a.length_ns != b.length_ns ? a.length_ns > b.length_ns : a.next < b.next;
  });
  if (evidence_gaps_ >= 0 && largest.size() > static_cast<std::size_t>(evidence_gaps_)) {
    largest.resize(static_cast<std::size_t>(evidence_gaps_));
  }
  Table gap_table("Largest idle gaps",
                  {"Gap start (ms)", "Gap (\xC2\xB5s)", "Next GPU event", "Stream", "Cause"});
  std::vector<Row> evidence;
  for (const Gap& g : largest) {
    gap_table.row({fixed(static_cast<double>(g.start_ns - span_start_ns) / 1e6, 3),
                   fixed(static_cast<double>(g.length_ns) / 1e3, 1), shorten(ev.name(g.next)),
                   stream_label(ev.device(g.next), ev.stream(g.next)), kCauseNames[g.cause]});
    evidence.push_back(g.next);
  }

  Table stream_table("Idle time per stream",
                     {"Stream", "GPU events", "Host wait (ms)", "Kernel wait (ms)", "Other (ms)"});
  for (const StreamSplit& s : streams) {
    stream_table.row({stream_label(s.device, s.stream), std::to_string(s.events),
                      fixed(static_cast<double>(s.ns[kHostWait]) / 1e6, 3),
                      fixed(static_cast<double>(s.ns[kKernelWait]) / 1e6, 3),
                      fixed(static_cast<double>(s.ns[kOther]) / 1e6, 3)});
  }

  auto builder = ctx.report(Tier::kSystem, "cpu_idle",
                            "GPU idle " + percent(idle_pct) + " of end-to-end time");
  builder.key("gpu-idle")
      .severity(idle_pct >= 50.0 ? Severity::kCritical : Severity::kWarning)
      .insight(insight)
      .action(action)
      .identification(identification)
      .reasoning(reasoning)
      .resolution(resolution)
      .share_percent(idle_pct)
      .evidence_rows(evidence)
      .metric("idle_time_percent", idle_pct)
      .metric("idle_time_ms", idle_ms)
      .metric("total_time_ms", total_ms)
      .metric("host_wait_ms", static_cast<double>(gap_ns[kHostWait]) / 1e6)
      .metric("kernel_wait_ms", static_cast<double>(gap_ns[kKernelWait]) / 1e6)
      .metric("other_idle_ms", static_cast<double>(gap_ns[kOther]) / 1e6)
      .metric("short_kernel_share_percent", short_share)
      .metric("avg_kernel_time_us", avg_kernel_us)
      .table(std::move(utilization))
      .table(std::move(gap_table))
      .table(std::move(stream_table));
  if (!signals.empty()) {
    Table sync_table("Host time against GPU kernel time per op category",
                     {"Category", "GPU kernel time (ms)", "Host duration (ms)", "Sync time (ms)",
                      "Sync op groups", "Flagged"});
    for (const auto& [category, s] : signals) {
      sync_table.row({category, fixed(s.gpu_kernel_ms, 3), fixed(s.cpu_duration_ms, 3),
                      fixed(s.sync_ms, 3), std::to_string(s.sync_ops), yes_no(s.bottleneck)});
    }
    builder.table(std::move(sync_table));
  }
  builder.emit();
  return Status::kOk;
}

}  // namespace cpu_idle
