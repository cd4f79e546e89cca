#include "reference_figures.hpp"

#include <traceprism/support.hpp>

#include <array>
#include <cctype>
#include <string>
#include <string_view>

#include "../common/system_support.hpp"

namespace traceprism::plugins::memcpy {
namespace {

using support::py_round;
using system::contains;

// The reference's direction of a copy, from its lower-cased event name (spec 3.7).
enum Label { kD2H = 0, kH2D = 1, kD2D = 2, kOther = 3, kLabelCount = 4 };
constexpr const char* kLabels[kLabelCount] = {"D2H", "H2D", "D2D", "other"};

Label label_of(std::string_view name) {
  std::string n(name);
  for (char& c : n) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (contains(n, "dtoh") || contains(n, "device -> host") || contains(n, "devicetohost"))
    return kD2H;
  if (contains(n, "htod") || contains(n, "host -> device") || contains(n, "hosttodevice"))
    return kH2D;
  if (contains(n, "dtod") || contains(n, "device -> device") || contains(n, "devicetodevice"))
    return kD2D;
  return kOther;
}

struct DirectionSummary {
  std::size_t count = 0;
  double total_us = 0;  // rounded to 2 decimals, as the reference stores it
  double avg_bytes = 0;
};

// memcpy_summary (multi_kernel_data.json); returns the per-label summaries.
std::array<DirectionSummary, kLabelCount> record_summary(Context& ctx,
                                                         const std::vector<Row>& copies) {
  const EventView ev = ctx.events();
  std::array<std::vector<Row>, kLabelCount> rows;
  for (Row r : copies) rows[label_of(ev.name(r))].push_back(r);
  std::array<DirectionSummary, kLabelCount> out;
  double total_us = 0;
  for (int i = 0; i < kLabelCount; ++i) {
    if (rows[i].empty()) continue;
    const system::Durations t = system::durations(ev, rows[i]);
    double bytes = 0;
    bool any_bytes = false;
    for (Row r : rows[i]) {
      const auto args = ctx.gpu_args(r);
      if (args && args->bytes > 0) bytes += static_cast<double>(args->bytes), any_bytes = true;
    }
    const double n = static_cast<double>(rows[i].size());
    DirectionSummary& d = out[i];
    d.count = rows[i].size();
    d.total_us = py_round(t.total_us, 2);
    d.avg_bytes = any_bytes ? py_round(bytes / n, 2) : 0.0;
    const std::string p = std::string("memcpy_summary.by_direction.") + kLabels[i] + ".";
    ctx.record(p + "count", n);
    ctx.record(p + "total_time_us", d.total_us);
    ctx.record(p + "avg_time_us", py_round(t.total_us / n, 2));
    ctx.record(p + "max_time_us", py_round(t.max_us, 2));
    ctx.record(p + "total_bytes", bytes);
    ctx.record(p + "avg_bytes", d.avg_bytes);
    total_us += d.total_us;
  }
  ctx.record("memcpy_summary.total_count", static_cast<double>(copies.size()));
  ctx.record("memcpy_summary.total_time_us", py_round(total_us, 2));
  return out;
}

// overlap_analysis, memcpy half (the comm analyzer records the rest), over every GPU event:
// copy time that neither compute nor communication hides.
void record_overlap(Context& ctx) {
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
void record_assessment(Context& ctx, const std::array<DirectionSummary, kLabelCount>& summary,
                       std::size_t count, double e2e_us, const AssessmentThresholds& limits) {
  const double total_ms = e2e_us / 1000.0;
  bool flagged = false;
  if (total_ms > 0) {
    double memcpy_us = 0;
    for (const DirectionSummary& d : summary) memcpy_us += d.total_us;
    for (int i : {kD2H, kH2D}) {
      const DirectionSummary& d = summary[i];
      if (d.count == 0) continue;
      const double dir_ms = d.total_us / 1000.0;
      const double dir_pct = (dir_ms / total_ms) * 100.0;
      const bool flag = dir_pct > limits.percent_threshold ||
                        static_cast<std::int64_t>(d.count) > limits.count_threshold;
      const std::string p = std::string("memcpy_assessment.");
      ctx.record(p + "by_direction." + kLabels[i] + ".flagged", flag ? 1.0 : 0.0);
      if (!flag) continue;
      flagged = true;
      const std::string q = p + "issues." + kLabels[i] + ".";
      ctx.record(q + "count", static_cast<double>(d.count));
      ctx.record(q + "time_ms", py_round(dir_ms, 3));
      ctx.record(q + "percent_of_total", py_round(dir_pct, 2));
      ctx.record(q + "avg_bytes", d.avg_bytes);
    }
    const double memcpy_ms = py_round(memcpy_us, 2) / 1000.0;
    ctx.record("memcpy_assessment.total_count", static_cast<double>(count));
    ctx.record("memcpy_assessment.total_time_ms", py_round(memcpy_ms, 3));
    ctx.record("memcpy_assessment.percent_of_total", py_round((memcpy_ms / total_ms) * 100.0, 2));
  }
  ctx.record("memcpy_assessment.flagged", flagged ? 1.0 : 0.0);
}

}  // namespace

void record_reference_figures(Context& ctx, const std::vector<Row>& copies, double e2e_us,
                              const AssessmentThresholds& thresholds) {
  const auto summary = record_summary(ctx, copies);
  record_overlap(ctx);
  record_assessment(ctx, summary, copies.size(), e2e_us, thresholds);
}

}  // namespace traceprism::plugins::memcpy
