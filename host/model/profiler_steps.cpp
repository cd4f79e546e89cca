#include "model/profiler_steps.hpp"

#include <charconv>

#include <algorithm>
#include <set>
#include <string>

namespace traceprism::model {

namespace {

std::int64_t overlap(std::int64_t a0, std::int64_t a1, std::int64_t b0, std::int64_t b1) {
  return std::max<std::int64_t>(0, std::min(a1, b1) - std::max(a0, b0));
}

// Idle by cause and busy time over [begin, end) of the timeline.
void add_idle(StepFigures& step, const IdleAttribution& idle, std::int64_t begin,
              std::int64_t end) {
  // Parts are in time order: skip those that end before the span, stop after it.
  for (std::size_t i = idle.parts.first_ending_after(begin);
       i < idle.parts.size() && idle.parts.start_ns()[i] < end; ++i) {
    const IdlePart part = idle.parts[i];
    const std::int64_t ns = overlap(part.start_ns, part.start_ns + part.dur_ns, begin, end);
    step.idle_by_cause_ns[static_cast<std::size_t>(part.cause)] += ns;
    step.idle_ns += ns;
  }
  const std::int64_t in_window = overlap(begin, end, idle.window_start_ns, idle.window_end_ns);
  step.gpu_busy_ns = in_window - step.idle_ns;
}

StepFigures step_of(const index::EventIndex& index, Row row) {
  StepFigures step;
  step.row = row;
  step.start_ns = index.ts_ns(row);
  step.dur_ns = index.dur_ns(row);
  return step;
}

// Serving engines launch asynchronously: a step's GPU work is what the runtime calls in its
// host span, on its thread, launched.
void add_launched_spans(std::vector<StepFigures>& steps, const index::EventIndex& index,
                        const LaunchLinks& links) {
  for (index::EventKind kind : {index::EventKind::kCudaRuntime, index::EventKind::kCudaDriver})
    for (Row call : index.rows_of_kind(kind)) {
      const std::span<const Row> launched = links.launched(call);
      if (launched.empty()) continue;
      const std::int64_t ts = index.ts_ns(call);
      auto it =
          std::upper_bound(steps.begin(), steps.end(), ts,
                           [](std::int64_t t, const StepFigures& s) { return t < s.start_ns; });
      if (it == steps.begin()) continue;
      StepFigures& step = *--it;
      if (ts >= step.start_ns + step.dur_ns || index.pid(call) != index.pid(step.row) ||
          index.tid(call) != index.tid(step.row))
        continue;
      for (Row gpu : launched) {
        const std::int64_t start = index.ts_ns(gpu), end = start + index.dur_ns(gpu);
        const bool first = step.gpu_end_ns == 0;
        step.gpu_start_ns = first ? start : std::min(step.gpu_start_ns, start);
        step.gpu_end_ns = first ? end : std::max(step.gpu_end_ns, end);
      }
    }
}

}  // namespace

std::vector<StepFigures> profiler_steps(const index::EventIndex& index, const LaunchLinks& links,
                                        const IdleAttribution& idle) {
  std::vector<StepFigures> steps;
  std::set<std::string_view> seen;
  std::vector<Row> rows(index.rows_of_kind(index::EventKind::kUserAnnotation).begin(),
                        index.rows_of_kind(index::EventKind::kUserAnnotation).end());
  std::sort(rows.begin(), rows.end(), [&](Row a, Row b) {
    return index.ts_ns(a) != index.ts_ns(b) ? index.ts_ns(a) < index.ts_ns(b) : a < b;
  });
  for (Row r : rows) {
    const std::string_view name = index.name(r);
    if (!index.valid(r) || name.substr(0, 13) != "ProfilerStep#" || !seen.insert(name).second)
      continue;
    steps.push_back(step_of(index, r));
    add_idle(steps.back(), idle, steps.back().start_ns,
             steps.back().start_ns + steps.back().dur_ns);
  }
  if (!steps.empty()) return steps;
  for (const ServingStep& s : serving_steps(index)) {
    steps.push_back(step_of(index, s.row));
    steps.back().serving = s.annotation;
  }
  add_launched_spans(steps, index, links);
  for (StepFigures& step : steps) {
    const bool launched = step.gpu_end_ns > 0;
    add_idle(step, idle, launched ? step.gpu_start_ns : step.start_ns,
             launched ? step.gpu_end_ns : step.start_ns + step.dur_ns);
  }
  return steps;
}

std::vector<std::size_t> outlier_steps(const std::vector<StepFigures>& steps, double factor) {
  if (steps.size() < 2) return {};
  std::vector<std::int64_t> durations;
  for (const StepFigures& s : steps) durations.push_back(s.dur_ns);
  std::sort(durations.begin(), durations.end());
  const std::size_t n = durations.size();
  const double median =
      n % 2 ? static_cast<double>(durations[n / 2])
            : (static_cast<double>(durations[n / 2 - 1]) + static_cast<double>(durations[n / 2])) /
                  2.0;
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < steps.size(); ++i)
    if (static_cast<double>(steps[i].dur_ns) > factor * median) out.push_back(i);
  return out;
}

std::optional<std::int64_t> profiler_step_number(std::string_view name) {
  constexpr std::string_view kPrefix = "ProfilerStep#";
  if (name.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  std::int64_t n = 0;
  const char* end = name.data() + name.size();
  auto [ptr, ec] = std::from_chars(name.data() + kPrefix.size(), end, n);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return n;
}

}  // namespace traceprism::model
