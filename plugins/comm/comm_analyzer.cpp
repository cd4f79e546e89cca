#include "comm_analyzer.hpp"

#include <traceprism/support.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "../common/system_support.hpp"
#include "comm_advice.hpp"
#include "reference_figures.hpp"

namespace traceprism::plugins::comm {
namespace {

using support::fixed;
using support::py_round;

// Recoverable share of the exposed time the action addresses (docs/analyzers/comm/comm.md).
constexpr double kImpactLow = 0.30, kImpactMid = 0.50, kImpactHigh = 0.70;

bool contains_ci(std::string_view text, std::string_view part) {
  auto it = std::search(text.begin(), text.end(), part.begin(), part.end(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) ==
           std::tolower(static_cast<unsigned char>(b));
  });
  return it != text.end();
}

std::string percent_of(double part, double whole) {
  return support::percent_adaptive(whole > 0 ? part / whole * 100 : 0);
}

std::string ms_of(double us) {
  return support::ms(us / 1000);
}

// "LL" / "RING", "—" when no kernel names one.
std::string protocol_cell(const TypeStats& t) {
  const char* p = collective::protocol_name(t.main_protocol());
  return *p ? p : "—";
}

std::string algorithm_cell(const TypeStats& t) {
  const std::string a = t.main_algorithm();
  return a.empty() ? "—" : a;
}

std::string per_step_cell(const TypeStats& t, const std::vector<Step>& steps) {
  if (steps.empty()) return "—";
  const double n = per_step(t, steps);
  return n == std::floor(n) ? fixed(n, 0) : fixed(n, 1);
}

// The title's name for the most exposed type.
// "8.0 MB", "—" when the trace gives no message size.
std::string message_cell(const TypeStats& t) {
  const std::optional<double> size = t.median_message_bytes();
  return size ? support::bytes_text(*size) : "\u2014";
}

std::string leader(const TypeStats& t) {
  if (t.type == collective::Type::kUnknown) return "collectives of unknown type";
  return collective::type_name(t.type);
}

// "AllReduce: 24 kernels (8 per step over 3 steps), 1.20 ms, 0.80 ms exposed, mostly LL / RING."
std::string type_summary(const TypeStats& t, const std::vector<Step>& steps) {
  std::string s = std::string(collective::type_name(t.type)) + ": " +
                  support::count_of(t.count(), "kernel") + " (" + per_step_text(t, steps) + "), " +
                  ms_of(t.time_us) + ", " + ms_of(t.exposed_us) + " exposed";
  const char* protocol = collective::protocol_name(t.main_protocol());
  const std::string algorithm = t.main_algorithm();
  if (*protocol || !algorithm.empty()) {
    s += ", mostly ";
    s += *protocol ? protocol : "";
    s += *protocol && !algorithm.empty() ? " / " : "";
    s += algorithm;
  }
  if (const std::optional<double> size = t.median_message_bytes())
    s += ", median message " + support::bytes_text(*size);
  return s + ".";
}

Table type_table(const CollectiveStats& stats, double e2e_us) {
  Table table("Collectives by type",
              {"Type", "Kernels", "Per step", "Time (ms)", "Exposed (ms)", "Exposed % of E2E",
               "Mean (µs)", "Protocol", "Algorithm", "Median message"});
  for (const TypeStats& t : stats.types) {
    table.row({collective::type_name(t.type), std::to_string(t.count()),
               per_step_cell(t, stats.steps), fixed(t.time_us / 1000, 3),
               fixed(t.exposed_us / 1000, 3), percent_of(t.exposed_us, e2e_us),
               support::compact(t.mean_us()), protocol_cell(t), algorithm_cell(t),
               message_cell(t)});
  }
  return table;
}

// The longest collectives of the addressed types, most exposed type first.
std::vector<std::pair<Row, collective::Type>> evidence(const EventView& ev, const Advice& advice,
                                                       std::int64_t limit) {
  std::vector<std::pair<Row, collective::Type>> rows;
  for (const TypeStats* t : advice.addressed) {
    std::vector<Row> longest = t->rows;
    system::sort_longest_first(ev, longest);
    for (Row r : longest) rows.emplace_back(r, t->type);
  }
  rows.resize(system::capped(rows.size(), limit));
  return rows;
}

Table longest_table(const EventView& ev,
                    const std::vector<std::pair<Row, collective::Type>>& rows) {
  Table table("Longest collectives", {"Name", "Type", "Duration (µs)", "Stream"});
  for (const auto& [r, type] : rows) {
    table.row({support::shorten(ev.name(r)), collective::type_name(type),
               support::compact(ev.dur_us(r)),
               ev.stream(r) >= 0 ? std::to_string(ev.stream(r)) : "—"});
  }
  return table;
}

}  // namespace

CommAnalyzer::CommAnalyzer(Context& ctx)
    : material_percent_(ctx.declared_option<double>("MaterialExposedPercent", kCommOptions)),
      many_per_step_(ctx.declared_option<double>("ManyCollectivesPerStep", kCommOptions)),
      top_collectives_(ctx.declared_option<std::int64_t>("TopCollectives", kCommOptions)) {}

Status CommAnalyzer::run(Context& ctx) {
  record_reference_figures(ctx);
  const std::optional<Timeline> timeline = ctx.timeline();
  if (!timeline || timeline->gpu_event_count == 0 || timeline->total_us <= 0) return Status::kOk;
  const CollectiveStats stats = measure_collectives(ctx);
  record_types(ctx, stats, timeline->total_us);
  const double exposed_percent = timeline->exposed_comm_us / timeline->total_us * 100;
  if (stats.types.empty() || timeline->exposed_comm_us <= 0 || exposed_percent < material_percent_)
    return Status::kOk;
  report_exposed(ctx, stats, *timeline);
  return Status::kOk;
}

// collectives.*: per type, over the GPU timeline's event set.
void CommAnalyzer::record_types(Context& ctx, const CollectiveStats& stats, double e2e_us) {
  ctx.record("collectives.steps", static_cast<double>(stats.steps.size()));
  for (const TypeStats& t : stats.types) {
    const std::string p = std::string("collectives.") + collective::type_name(t.type) + ".";
    ctx.record(p + "count", static_cast<double>(t.count()));
    ctx.record(p + "time_us", py_round(t.time_us, 3));
    ctx.record(p + "exposed_us", py_round(t.exposed_us, 3));
    ctx.record(p + "exposed_percent_of_e2e", py_round(t.exposed_us / e2e_us * 100, 4));
    ctx.record(p + "mean_us", py_round(t.mean_us(), 3));
    if (!stats.steps.empty()) {
      ctx.record(p + "per_step", py_round(per_step(t, stats.steps), 4));
      const auto [lo, hi] = std::minmax_element(t.per_step.begin(), t.per_step.end());
      ctx.record(p + "per_step_min", static_cast<double>(*lo));
      ctx.record(p + "per_step_max", static_cast<double>(*hi));
    }
    for (std::size_t i = 1; i < 4; ++i) {
      if (t.protocol_count[i] == 0) continue;
      const char* name = collective::protocol_name(static_cast<collective::Protocol>(i));
      ctx.record(p + "protocol." + name, static_cast<double>(t.protocol_count[i]));
    }
    for (const auto& [name, n] : t.algorithm_count)
      ctx.record(p + "algorithm." + name, static_cast<double>(n));
  }
}

void CommAnalyzer::report_exposed(Context& ctx, const CollectiveStats& stats,
                                  const Timeline& t) const {
  const double e2e = t.total_us;
  const AdviceContext context{looks_like_training(ctx), many_per_step_,
                              material_percent_ / 100 * e2e};
  const Advice advice = advise(stats, context);
  double addressed_us = 0;
  for (const TypeStats* a : advice.addressed) addressed_us += a->exposed_us;
  // Types that run at the same time on two streams share exposed time: never claim more than the
  // timeline's exposed communication.
  const double recoverable_percent = std::min(addressed_us, t.exposed_comm_us) / e2e * 100;
  const double exposed_percent = t.exposed_comm_us / e2e * 100;
  const TypeStats& top = *advice.addressed.front();

  std::string insight = "Collective kernels run " + ms_of(t.total_comm_us) + " (" +
                        percent_of(t.total_comm_us, e2e) + " of the " + ms_of(e2e) + " window); " +
                        ms_of(t.exposed_comm_us) + " of it (" +
                        support::percent_adaptive(exposed_percent) +
                        " of E2E) runs with no computation kernel on the GPU, so " +
                        percent_of(t.total_comm_us - t.exposed_comm_us, t.total_comm_us) +
                        " of the communication is hidden under compute.";
  for (const TypeStats& type : stats.types) insight += " " + type_summary(type, stats.steps);

  const EventView ev = ctx.events();
  const auto rows = evidence(ev, advice, top_collectives_);
  FindingBuilder finding =
      ctx.report(Tier::kSystem, "comm",
                 "Exposed communication: " + support::percent_adaptive(exposed_percent) +
                     " of E2E (" + ms_of(t.exposed_comm_us) + "), led by " + leader(top))
          .key("exposed-comm")
          .cause("exposed_comm")
          .severity(exposed_percent > 20 ? Severity::kCritical : Severity::kWarning)
          .insight(insight)
          .action(advice.action)
          .identification(
              "Exposed communication is the time collective kernels run with no computation "
              "kernel at the same time, over the GPU timeline's window and events (those linked "
              "to a launch); this finding needs at least " +
              support::plain(material_percent_) +
              "% of E2E. Types, protocols and algorithms come from the kernel names (NCCL/RCCL "
              "`ncclDevKernel_<Type>_…`, and the other collectives: `multimem_all_reduce`, "
              "`one_shot_all_reduce`, `cross_device_reduce_*`, ...); a generic NCCL kernel takes "
              "the type of the collective op that launches it. Impact: " +
              fixed(kImpactLow * 100, 0) + " / " + fixed(kImpactMid * 100, 0) + " / " +
              fixed(kImpactHigh * 100, 0) + "% of the exposed time the action addresses (" +
              ms_of(std::min(addressed_us, t.exposed_comm_us)) + ").")
          .reasoning(
              "While a collective runs with nothing else on the GPU, the compute units wait for "
              "it: every exposed microsecond adds to the step time.")
          .resolution(
              "Collectives issued as soon as their inputs are ready, on their own stream, run "
              "under independent compute; fewer, larger collectives pay the fixed latency of "
              "each one fewer times.")
          .impact(kImpactLow * recoverable_percent, kImpactMid * recoverable_percent,
                  kImpactHigh * recoverable_percent, /*heuristic=*/true)
          .metric("exposed_comm_time_ms", py_round(t.exposed_comm_us / 1000, 3))
          .metric("total_comm_time_ms", py_round(t.total_comm_us / 1000, 3))
          .metric("exposed_percent_of_e2e", py_round(exposed_percent, 2))
          .metric("addressed_exposed_ms", py_round(addressed_us / 1000, 3))
          .table(type_table(stats, e2e))
          .table(longest_table(ev, rows));
  if (t.total_comm_us > 0)
    finding.metric("overlap_ratio", py_round(1 - t.exposed_comm_us / t.total_comm_us, 4));
  for (const auto& [r, type] : rows) finding.evidence(r);
  system::share_of_e2e(finding, t.exposed_comm_us, e2e);
  finding.emit();
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
