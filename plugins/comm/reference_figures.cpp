#include "reference_figures.hpp"

#include <traceprism/support.hpp>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "../common/system_support.hpp"

namespace traceprism::plugins::comm {
namespace {

using support::py_round;

struct Overlap {
  // Rounded to 2 decimals: the assessments read the rounded figures, as the reference does.
  double total_comm_us = 0;
  double exposed_comm_us = 0;   // the part no compute kernel hides
  double comm_percent = 0;      // exposed share of the span
  std::optional<double> ratio;  // hidden share of the communication; none without any
};

// nccl_summary: every collective, linked to a launch or not, the longest ten in file order on
// equal durations (the reference's stable sort).
void record_summary(Context& ctx) {
  const EventView ev = ctx.events();
  std::vector<Row> collectives =
      system::rows_of_class(ctx, {Kind::kKernel, Kind::kMemset}, GpuClass::kCommunication);
  ctx.record("nccl_summary.total_count", static_cast<double>(collectives.size()));
  if (collectives.empty()) {
    ctx.record("nccl_summary.total_time_us", 0.0);
    return;
  }
  const system::Durations d = system::durations(ev, collectives);
  ctx.record("nccl_summary.total_time_us", py_round(d.total_us, 2));
  ctx.record("nccl_summary.avg_time_us",
             py_round(d.total_us / static_cast<double>(collectives.size()), 2));
  ctx.record("nccl_summary.max_time_us", py_round(d.max_us, 2));
  std::stable_sort(collectives.begin(), collectives.end(),
                   [&](Row a, Row b) { return ev.dur_us(a) > ev.dur_us(b); });
  for (std::size_t i = 0; i < collectives.size() && i < 10; ++i) {
    const std::string p = "nccl_summary.top_ops." + std::to_string(i) + ".";
    ctx.record(p + "duration_us", py_round(ev.dur_us(collectives[i]), 2));
    if (ev.stream(collectives[i]) >= 0) ctx.record(p + "stream", ev.stream(collectives[i]));
  }
}

// overlap_analysis, comm half (the memcpy analyzer records the rest), over every GPU event.
Overlap record_overlap(Context& ctx) {
  Overlap o;
  const support::GpuClassIntervals all = support::all_gpu_event_intervals(ctx);
  if (all.events == 0) return o;
  const double total = all.span_us;
  const double total_comm = support::total_length(all.communication);
  const double exposed =
      support::total_length(support::subtract(all.communication, all.computation));
  o.total_comm_us = py_round(total_comm, 2);
  o.exposed_comm_us = py_round(exposed, 2);
  o.comm_percent = total > 0 ? py_round(exposed / total * 100, 2) : 0.0;
  ctx.record("overlap_analysis.total_time_us", py_round(total, 2));
  ctx.record("overlap_analysis.computation_time_us",
             py_round(support::total_length(all.computation), 2));
  ctx.record("overlap_analysis.total_comm_time_us", o.total_comm_us);
  ctx.record("overlap_analysis.exposed_comm_time_us", o.exposed_comm_us);
  if (total_comm > 0) {
    o.ratio = py_round(1 - exposed / total_comm, 4);
    ctx.record("overlap_analysis.comm_overlap_ratio", *o.ratio);
  }
  ctx.record("overlap_analysis.comm_percent_of_total", o.comm_percent);
  return o;
}

// nccl_blocking_assessment and overlap_assessment (multi_kernel_metrics.json).
void record_assessments(Context& ctx, const Overlap& o) {
  bool blocking = false, poor_overlap = false;
  if (o.total_comm_us != 0) {
    blocking = o.comm_percent > kReferenceExposedPercent;
    ctx.record("nccl_blocking_assessment.exposed_comm_time_ms",
               py_round(o.exposed_comm_us / 1000, 3));
    ctx.record("nccl_blocking_assessment.total_comm_time_ms", py_round(o.total_comm_us / 1000, 3));
    ctx.record("nccl_blocking_assessment.exposed_percent_of_total", py_round(o.comm_percent, 2));
  }
  ctx.record("nccl_blocking_assessment.flagged", blocking ? 1.0 : 0.0);
  if (o.ratio && o.total_comm_us >= kReferenceMinCommUs) {
    poor_overlap = *o.ratio < kReferenceOverlapRatio;
    ctx.record("overlap_assessment.overlap_ratio", py_round(*o.ratio, 4));
    ctx.record("overlap_assessment.overlap_percent", py_round(*o.ratio * 100, 2));
    ctx.record("overlap_assessment.target_percent", py_round(kReferenceOverlapRatio * 100, 6));
  }
  ctx.record("overlap_assessment.flagged", poor_overlap ? 1.0 : 0.0);
}

}  // namespace

void record_reference_figures(Context& ctx) {
  record_summary(ctx);
  record_assessments(ctx, record_overlap(ctx));
}

}  // namespace traceprism::plugins::comm
