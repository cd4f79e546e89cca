#include "comm_analyzer.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include <traceprism/support.hpp>

#include "../common/system_support.hpp"

namespace traceprism::plugins::comm {
namespace {

using support::compact;
using support::fixed;
using support::py_round;

bool contains_ci(std::string_view text, std::string_view part) {
  auto it = std::search(text.begin(), text.end(), part.begin(), part.end(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) ==
           std::tolower(static_cast<unsigned char>(b));
  });
  return it != text.end();
}

// Longest first. Stable, so that equal durations keep file order, as the reference's sort does.
std::vector<Row> longest_first(const EventView& ev, std::vector<Row> rows) {
  std::stable_sort(rows.begin(), rows.end(),
                   [&](Row a, Row b) { return ev.dur_us(a) > ev.dur_us(b); });
  return rows;
}

}  // namespace

struct CommAnalyzer::Overlap {
  // Rounded to 2 decimals: the assessments read the rounded figures, as the reference does.
  double total_comm_us = 0;
  double exposed_comm_us = 0;   // the part no compute kernel hides
  double comm_percent = 0;      // exposed share of the span
  std::optional<double> ratio;  // hidden share of the communication; none without any
};

struct CommAnalyzer::Checks {
  bool blocking = false;
  bool poor_overlap = false;
};

struct CommAnalyzer::Narrative {
  std::vector<Row> evidence;  // the longest collectives
  std::string counts;         // "N collective kernels"
  std::string target;         // the overlap target, in percent
  double overlap_percent = 0;
  std::string overlap_action;
  std::string overlap_identification;
};

CommAnalyzer::CommAnalyzer(Context& ctx)
    : exposed_percent_threshold_(
          ctx.declared_option<double>("ExposedCommPercentThreshold", kCommOptions)),
      overlap_ratio_threshold_(ctx.declared_option<double>("OverlapRatioThreshold", kCommOptions)),
      min_comm_time_us_(ctx.declared_option<double>("MinCommTimeUs", kCommOptions)),
      top_collectives_(ctx.declared_option<std::int64_t>("TopCollectives", kCommOptions)) {}

Status CommAnalyzer::run(Context& ctx) {
  const std::vector<Row> collectives =
      system::rows_of_class(ctx, {Kind::kKernel, Kind::kMemset}, GpuClass::kCommunication);
  const std::vector<Row> longest = longest_first(ctx.events(), collectives);
  record_summary(ctx, collectives, longest);
  const Overlap overlap = record_overlap(ctx);
  const Checks checks = assess(ctx, overlap);
  if (!checks.blocking && !checks.poor_overlap) return Status::kOk;

  const Narrative story = narrate(ctx, collectives, longest, overlap);
  // Both checks look at the same collectives; when both fire they make one finding (spec 8.2:
  // merge cards with the same mechanism), keyed exposed-comm, that carries the overlap too.
  if (checks.blocking) {
    report_exposed_comm(ctx, overlap, checks.poor_overlap, story);
  } else {
    report_poor_overlap(ctx, overlap, story);
  }
  return Status::kOk;
}

// nccl_summary (multi_kernel_data.json): every collective, linked to a launch or not.
void CommAnalyzer::record_summary(Context& ctx, const std::vector<Row>& collectives,
                                  const std::vector<Row>& longest) {
  const EventView ev = ctx.events();
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
  // The reference lists ten, whatever TopCollectives says.
  for (std::size_t i = 0; i < longest.size() && i < 10; ++i) {
    const std::string p = "nccl_summary.top_ops." + std::to_string(i) + ".";
    ctx.record(p + "duration_us", py_round(ev.dur_us(longest[i]), 2));
    if (ev.stream(longest[i]) >= 0) ctx.record(p + "stream", ev.stream(longest[i]));
  }
}

// overlap_analysis, comm half (the memcpy analyzer records the rest), over every GPU event.
CommAnalyzer::Overlap CommAnalyzer::record_overlap(Context& ctx) {
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

// nccl_blocking_assessment and overlap_assessment (multi_kernel_metrics.json, spec 8.1).
CommAnalyzer::Checks CommAnalyzer::assess(Context& ctx, const Overlap& o) const {
  Checks checks;
  if (o.total_comm_us != 0) {
    checks.blocking = o.comm_percent > exposed_percent_threshold_;
    ctx.record("nccl_blocking_assessment.exposed_comm_time_ms",
               py_round(o.exposed_comm_us / 1000, 3));
    ctx.record("nccl_blocking_assessment.total_comm_time_ms", py_round(o.total_comm_us / 1000, 3));
    ctx.record("nccl_blocking_assessment.exposed_percent_of_total", py_round(o.comm_percent, 2));
  }
  ctx.record("nccl_blocking_assessment.flagged", checks.blocking ? 1.0 : 0.0);
  if (o.ratio && o.total_comm_us >= min_comm_time_us_) {
    checks.poor_overlap = *o.ratio < overlap_ratio_threshold_;
    ctx.record("overlap_assessment.overlap_ratio", py_round(*o.ratio, 4));
    ctx.record("overlap_assessment.overlap_percent", py_round(*o.ratio * 100, 2));
    ctx.record("overlap_assessment.target_percent", py_round(overlap_ratio_threshold_ * 100, 6));
  }
  ctx.record("overlap_assessment.flagged", checks.poor_overlap ? 1.0 : 0.0);
  return checks;
}

CommAnalyzer::Narrative CommAnalyzer::narrate(const Context& ctx,
                                              const std::vector<Row>& collectives,
                                              const std::vector<Row>& longest,
                                              const Overlap& o) const {
  Narrative n;
  n.evidence.assign(longest.begin(), longest.begin() + static_cast<std::ptrdiff_t>(system::capped(
                                                           longest.size(), top_collectives_)));
  n.counts = std::to_string(collectives.size()) +
             (collectives.size() == 1 ? " collective kernel" : " collective kernels");
  n.target = compact(overlap_ratio_threshold_ * 100);
  n.overlap_percent = o.ratio ? *o.ratio * 100 : 0;
  // Training overlaps the gradient all-reduce with backward; inference has no backward pass.
  n.overlap_action =
      looks_like_training(ctx)
          ? "Overlap communication with compute: launch the gradient all-reduce asynchronously "
            "during the backward pass, with gradient bucketing and micro-batch pipelining. "
          : "Overlap communication with compute: run tensor-parallel collectives on a separate "
            "communication stream, overlap prefill and decode phases, and consider compressed or "
            "quantized all-reduce. ";
  n.overlap_identification =
      "The overlap ratio is the share of communication time during which a compute kernel also "
      "runs; it is below " +
      n.target + "% with " + fixed(o.total_comm_us, 2) + " µs of communication in " + n.counts;
  return n;
}

void CommAnalyzer::report_exposed_comm(Context& ctx, const Overlap& o, bool poor_overlap,
                                       const Narrative& n) const {
  std::string title = "Exposed collective communication (" + fixed(o.comm_percent, 1) + "% of E2E";
  if (poor_overlap) title += ", " + fixed(n.overlap_percent, 1) + "% overlapped";
  title += ")";
  std::string insight = "Collective communication that no compute hides takes " +
                        fixed(o.exposed_comm_us / 1000, 3) + " ms, " + fixed(o.comm_percent, 1) +
                        "% of the end-to-end GPU span, out of " + fixed(o.total_comm_us / 1000, 3) +
                        " ms of communication in " + n.counts;
  if (poor_overlap)
    insight += "; only " + fixed(n.overlap_percent, 1) + "% of it overlaps compute (target above " +
               n.target + "%)";
  insight += ".";
  std::string action =
      "Remove debug and device-wide synchronizations around the collectives and wait on stream "
      "events instead. Bucket or fuse small collectives so fewer of them sit on the critical "
      "path. ";
  if (poor_overlap) action += n.overlap_action;
  action += poor_overlap ? "Expect lower exposed communication time and an overlap ratio above " +
                               n.target + "%."
                         : std::string("Expect lower exposed communication time.");
  std::string identification =
      "Exposed communication is the communication time with no compute kernel running at the "
      "same time; it is above " +
      compact(exposed_percent_threshold_) + "% of the end-to-end GPU span";
  if (poor_overlap) identification += ". " + n.overlap_identification;
  identification += " (source: `multi_kernel_metrics.json` → `nccl_blocking_assessment`" +
                    std::string(poor_overlap ? ", `overlap_assessment`" : "") +
                    ", `overlap_analysis.exposed_comm_time_us`).";
  FindingBuilder finding =
      ctx.report(Tier::kSystem, "comm", title)
          .key("exposed-comm")
          .severity(o.comm_percent > 20 ? Severity::kCritical : Severity::kWarning)
          .insight(insight)
          .action(action)
          .identification(identification)
          .reasoning(
              "While a collective runs alone the compute units wait for it. Every exposed "
              "microsecond adds directly to the step time.")
          .resolution(
              "Stream events order compute after a collective without stalling the host. Larger "
              "buckets amortize the fixed latency of each collective, and collectives issued as "
              "soon as their inputs are ready run alongside independent compute.")
          .metric("exposed_comm_time_ms", py_round(o.exposed_comm_us / 1000, 3))
          .metric("total_comm_time_ms", py_round(o.total_comm_us / 1000, 3))
          .metric("exposed_percent_of_total", o.comm_percent)
          .evidence_rows(n.evidence)
          .table(collective_table(ctx, n.evidence));
  if (poor_overlap) finding.metric("overlap_ratio", *o.ratio);
  system::share_of_e2e(finding, o.exposed_comm_us, system::e2e_us(ctx));
  finding.emit();
}

void CommAnalyzer::report_poor_overlap(Context& ctx, const Overlap& o, const Narrative& n) const {
  FindingBuilder finding =
      ctx.report(Tier::kSystem, "comm",
                 "Low compute/communication overlap (" + fixed(n.overlap_percent, 1) +
                     "%, target > " + n.target + "%)")
          .key("poor-overlap")
          .severity(Severity::kWarning)
          .insight("Only " + fixed(n.overlap_percent, 1) + "% of the " +
                   fixed(o.total_comm_us / 1000, 3) +
                   " ms of collective communication runs under compute (target above " + n.target +
                   "%); the exposed rest takes " + fixed(o.exposed_comm_us / 1000, 3) + " ms.")
          .action(n.overlap_action + "Expect the overlap ratio to rise above " + n.target +
                  "% and exposed communication to fall.")
          .identification(n.overlap_identification +
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
          .metric("overlap_ratio", *o.ratio)
          .metric("total_comm_time_us", o.total_comm_us)
          .metric("exposed_comm_time_us", o.exposed_comm_us)
          .evidence_rows(n.evidence)
          .table(collective_table(ctx, n.evidence));
  system::share_of_e2e(finding, o.exposed_comm_us, system::e2e_us(ctx));
  finding.emit();
}

Table CommAnalyzer::collective_table(const Context& ctx, const std::vector<Row>& rows) {
  const EventView ev = ctx.events();
  Table table("Longest collectives", {"Name", "Duration (µs)", "Stream"});
  for (Row r : rows) {
    table.row({std::string(ev.name(r)), compact(ev.dur_us(r)),
               ev.stream(r) >= 0 ? std::to_string(ev.stream(r)) : "—"});
  }
  return table;
}

// Training when the host side shows backward ops (autograd); inference otherwise.
bool CommAnalyzer::looks_like_training(const Context& ctx) {
  const EventView ev = ctx.events();
  std::unordered_map<StringId, bool> seen;  // by interned name: each name is tested once
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

}  // namespace traceprism::plugins::comm
