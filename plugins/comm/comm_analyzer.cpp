#include "comm_analyzer.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <string_view>
#include <unordered_map>

#include <traceprism/support.hpp>

namespace traceprism_comm {
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
using traceprism::support::fixed;
using traceprism::support::py_round;
namespace support = traceprism::support;

bool contains_ci(std::string_view text, std::string_view part) {
  auto it = std::search(text.begin(), text.end(), part.begin(), part.end(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) ==
           std::tolower(static_cast<unsigned char>(b));
  });
  return it != text.end();
}

}  // namespace

CommAnalyzer::CommAnalyzer(Context& ctx)
    : exposed_percent_threshold_(ctx.option("ExposedCommPercentThreshold", 5.0)),
      overlap_ratio_threshold_(ctx.option("OverlapRatioThreshold", 0.70)),
      min_comm_time_us_(ctx.option("MinCommTimeUs", 100.0)),
      top_collectives_(ctx.option("TopCollectives", std::int64_t{10})) {}

Table CommAnalyzer::collective_table(const Context& ctx, const std::vector<Row>& top) const {
  const EventView ev = ctx.events();
  Table table("Longest collectives", {"Name", "Duration (µs)", "Stream"});
  for (Row r : top) {
    table.row({std::string(ev.name(r)), compact(ev.dur_us(r)),
               ev.stream(r) >= 0 ? std::to_string(ev.stream(r)) : "—"});
  }
  return table;
}

// Training when the host side shows backward ops (autograd); inference otherwise.
bool CommAnalyzer::looks_like_training(const Context& ctx) {
  const EventView ev = ctx.events();
  std::unordered_map<traceprism::StringId, bool> seen;
  for (Kind kind : {Kind::kCpuOp, Kind::kPythonFunction, Kind::kUserAnnotation}) {
    for (Row r : ctx.rows(kind)) {
      auto [it, inserted] = seen.emplace(ev.name_id(r), false);
      if (inserted) {
        const std::string_view name = ev.name(r);
        it->second = contains_ci(name, "backward") || contains_ci(name, "autograd::engine");
      }
      if (it->second) return true;
    }
  }
  return false;
}

traceprism::Status CommAnalyzer::run(Context& ctx) {
  const EventView ev = ctx.events();

  // Communication kernels (and memsets), linked to a launch or not as in the reference's
  // multi_kernel_data.json, in file order.
  std::vector<Row> comm;
  for (Kind kind : {Kind::kKernel, Kind::kMemset}) {
    for (Row r : ctx.rows(kind)) {
      if (ev.gpu_class(r) == GpuClass::kCommunication) comm.push_back(r);
    }
  }
  std::sort(comm.begin(), comm.end());

  // nccl_summary (multi_kernel_data.json).
  std::vector<Row> top = comm;
  std::stable_sort(top.begin(), top.end(),
                   [&](Row a, Row b) { return ev.dur_us(a) > ev.dur_us(b); });
  const std::size_t top_n =
      std::min(top.size(), static_cast<std::size_t>(std::max<std::int64_t>(0, top_collectives_)));
  ctx.record("nccl_summary.total_count", static_cast<double>(comm.size()));
  double comm_sum_us = 0;
  if (comm.empty()) {
    ctx.record("nccl_summary.total_time_us", 0.0);
  } else {
    double max = 0;
    for (std::size_t i = 0; i < comm.size(); ++i) {
      const double dur = ev.dur_us(comm[i]);
      comm_sum_us += dur;
      if (i == 0 || dur > max) max = dur;
    }
    ctx.record("nccl_summary.total_time_us", py_round(comm_sum_us, 2));
    ctx.record("nccl_summary.avg_time_us",
               py_round(comm_sum_us / static_cast<double>(comm.size()), 2));
    ctx.record("nccl_summary.max_time_us", py_round(max, 2));
    for (std::size_t i = 0; i < top.size() && i < 10; ++i) {
      const std::string p = "nccl_summary.top_ops." + std::to_string(i) + ".";
      ctx.record(p + "duration_us", py_round(ev.dur_us(top[i]), 2));
      if (ev.stream(top[i]) >= 0) ctx.record(p + "stream", ev.stream(top[i]));
    }
  }

  // overlap_analysis, comm half (the memcpy analyzer records the rest), over every GPU event.
  const support::GpuClassIntervals all = support::all_gpu_event_intervals(ctx);
  double total_comm_us = 0, exposed_comm_us = 0, comm_percent = 0;
  std::optional<double> overlap_ratio;
  if (all.events > 0) {
    const double total = all.span_us;
    const double total_comm = support::total_length(all.communication);
    const double exposed =
        support::total_length(support::subtract(all.communication, all.computation));
    total_comm_us = py_round(total_comm, 2);
    exposed_comm_us = py_round(exposed, 2);
    comm_percent = total > 0 ? py_round(exposed / total * 100, 2) : 0.0;
    ctx.record("overlap_analysis.total_time_us", py_round(total, 2));
    ctx.record("overlap_analysis.computation_time_us",
               py_round(support::total_length(all.computation), 2));
    ctx.record("overlap_analysis.total_comm_time_us", total_comm_us);
    ctx.record("overlap_analysis.exposed_comm_time_us", exposed_comm_us);
    if (total_comm > 0) {
      overlap_ratio = py_round(1 - exposed / total_comm, 4);
      ctx.record("overlap_analysis.comm_overlap_ratio", *overlap_ratio);
    }
    ctx.record("overlap_analysis.comm_percent_of_total", comm_percent);
  }

  // E2E for share_percent: the perf report's gpu_timeline total.
  const auto timeline = ctx.timeline();
  const double e2e_us = timeline && timeline->gpu_event_count > 0 ? timeline->total_us : 0.0;

  // nccl_blocking_assessment and overlap_assessment (multi_kernel_metrics.json, spec 8.1); both
  // read the rounded overlap_analysis values, as the reference does.
  bool blocking = false;
  if (total_comm_us != 0) {
    blocking = comm_percent > exposed_percent_threshold_;
    ctx.record("nccl_blocking_assessment.exposed_comm_time_ms",
               py_round(exposed_comm_us / 1000, 3));
    ctx.record("nccl_blocking_assessment.total_comm_time_ms", py_round(total_comm_us / 1000, 3));
    ctx.record("nccl_blocking_assessment.exposed_percent_of_total", py_round(comm_percent, 2));
  }
  ctx.record("nccl_blocking_assessment.flagged", blocking ? 1.0 : 0.0);
  bool poor_overlap = false;
  if (overlap_ratio && total_comm_us >= min_comm_time_us_) {
    poor_overlap = *overlap_ratio < overlap_ratio_threshold_;
    ctx.record("overlap_assessment.overlap_ratio", py_round(*overlap_ratio, 4));
    ctx.record("overlap_assessment.overlap_percent", py_round(*overlap_ratio * 100, 2));
    ctx.record("overlap_assessment.target_percent", py_round(overlap_ratio_threshold_ * 100, 6));
  }
  ctx.record("overlap_assessment.flagged", poor_overlap ? 1.0 : 0.0);

  if (!blocking && !poor_overlap) return traceprism::Status::kOk;

  const std::vector<Row> evidence(top.begin(), top.begin() + static_cast<std::ptrdiff_t>(top_n));
  const std::string counts = std::to_string(comm.size()) +
                             (comm.size() == 1 ? " collective kernel" : " collective kernels");
  const std::string target = compact(overlap_ratio_threshold_ * 100);
  const double overlap_percent = overlap_ratio ? *overlap_ratio * 100 : 0;
  const std::string overlap_action =
      looks_like_training(ctx)
          ? "Overlap communication with compute: launch the gradient all-reduce asynchronously "
            "during the backward pass, with gradient bucketing and micro-batch pipelining. "
          : "Overlap communication with compute: run tensor-parallel collectives on a separate "
            "communication stream, overlap prefill and decode phases, and consider compressed or "
            "quantized all-reduce. ";
  const std::string overlap_identification =
      "The overlap ratio is the share of communication time during which a compute kernel also "
      "runs; it is below " +
      target + "% with " + fixed(total_comm_us, 2) + " µs of communication in " + counts;

  // Both checks look at the same collectives; when both fire they make one finding (spec 8.2:
  // merge cards with the same mechanism), keyed exposed-comm, that carries the overlap too.
  if (blocking) {
    std::string title = "Exposed collective communication (" + fixed(comm_percent, 1) + "% of E2E";
    if (poor_overlap) title += ", " + fixed(overlap_percent, 1) + "% overlapped";
    title += ")";
    std::string insight = "Collective communication that no compute hides takes " +
                          fixed(exposed_comm_us / 1000, 3) + " ms, " + fixed(comm_percent, 1) +
                          "% of the end-to-end GPU span, out of " + fixed(total_comm_us / 1000, 3) +
                          " ms of communication in " + counts;
    if (poor_overlap)
      insight += "; only " + fixed(overlap_percent, 1) + "% of it overlaps compute (target above " +
                 target + "%)";
    insight += ".";
    std::string action =
        "Remove debug and device-wide synchronizations around the collectives and wait on stream "
        "events instead. Bucket or fuse small collectives so fewer of them sit on the critical "
        "path. ";
    if (poor_overlap) action += overlap_action;
    action += poor_overlap ? "Expect lower exposed communication time and an overlap ratio above " +
                                 target + "%."
                           : std::string("Expect lower exposed communication time.");
    std::string identification =
        "Exposed communication is the communication time with no compute kernel running at the "
        "same time; it is above " +
        compact(exposed_percent_threshold_) + "% of the end-to-end GPU span";
    if (poor_overlap) identification += ". " + overlap_identification;
    identification += " (source: `multi_kernel_metrics.json` → `nccl_blocking_assessment`" +
                      std::string(poor_overlap ? ", `overlap_assessment`" : "") +
                      ", `overlap_analysis.exposed_comm_time_us`).";
    auto finding = ctx.report(Tier::kSystem, "comm", title)
                       .key("exposed-comm")
                       .severity(comm_percent > 20 ? Severity::kCritical : Severity::kWarning)
                       .insight(insight)
                       .action(action)
                       .identification(identification)
                       .reasoning(
                           "While a collective runs alone the compute units wait for it. Every "
                           "exposed microsecond adds directly to the step time.")
                       .resolution(
                           "Stream events order compute after a collective without stalling the "
                           "host. Larger buckets amortize the fixed latency of each collective, "
                           "and collectives issued as soon as their inputs are ready run "
                           "alongside independent compute.")
                       .metric("exposed_comm_time_ms", py_round(exposed_comm_us / 1000, 3))
                       .metric("total_comm_time_ms", py_round(total_comm_us / 1000, 3))
                       .metric("exposed_percent_of_total", comm_percent)
                       .evidence_rows(evidence)
                       .table(collective_table(ctx, evidence));
    if (poor_overlap) finding.metric("overlap_ratio", *overlap_ratio);
    if (e2e_us > 0) finding.share_percent(std::min(100.0, exposed_comm_us / e2e_us * 100));
    finding.emit();
    return traceprism::Status::kOk;
  }

  auto finding =
      ctx.report(Tier::kSystem, "comm",
                 "Low compute/communication overlap (" + fixed(overlap_percent, 1) +
                     "%, target > " + target + "%)")
          .key("poor-overlap")
          .severity(Severity::kWarning)
          .insight("Only " + fixed(overlap_percent, 1) + "% of the " +
                   fixed(total_comm_us / 1000, 3) +
                   " ms of collective communication runs under compute (target above " + target +
                   "%); the exposed rest takes " + fixed(exposed_comm_us / 1000, 3) + " ms.")
          .action(overlap_action + "Expect the overlap ratio to rise above " + target +
                  "% and exposed communication to fall.")
          .identification(overlap_identification +
                          " (source: `multi_kernel_metrics.json` → `overlap_assessment`, "
                          "`overlap_analysis.comm_overlap_ratio`).")
          .reasoning(
              "Collectives that start only after the compute they depend on has ended leave the "
              "compute units idle. The workload then pays for communication and compute one "
              "after the other.")
          .resolution(
              "Issuing collectives as soon as their inputs are ready, on their own stream, lets "
              "independent compute run meanwhile. Only the last bucket's communication then "
              "stays exposed.")
          .metric("overlap_ratio", *overlap_ratio)
          .metric("total_comm_time_us", total_comm_us)
          .metric("exposed_comm_time_us", exposed_comm_us)
          .evidence_rows(evidence)
          .table(collective_table(ctx, evidence));
  if (e2e_us > 0) finding.share_percent(std::min(100.0, exposed_comm_us / e2e_us * 100));
  finding.emit();
  return traceprism::Status::kOk;
}

}  // namespace traceprism_comm
