// What the system-tier analyzers (cpu-idle, host-sync, memcpy, comm) share: the GPU rows they
// measure, the end-to-end span they divide by, and how they rank and cap evidence rows.
// Header-only C++17, like the plugins that include it.
#pragma once

#include <traceprism/sdk.hpp>
#include <traceprism/sorted_runs.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <vector>

namespace traceprism::plugins::system {

// The event kinds that occupy the GPU timeline.
inline constexpr Kind kGpuKinds[] = {Kind::kKernel, Kind::kMemcpy, Kind::kMemset};

// std::string_view has contains() and starts_with() only from C++20.
inline bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

inline bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

// The rows of `kinds` in GPU class `gpu_class`, linked to a launch or not, in file order: the
// reference's multi_kernel_data.json walks its event list that way.
inline std::vector<Row> rows_of_class(const Context& ctx, std::initializer_list<Kind> kinds,
                                      GpuClass gpu_class) {
  const EventView ev = ctx.events();
  std::vector<Row> rows;
  for (Kind kind : kinds) {
    for (Row r : ctx.rows(kind)) {
      if (ev.gpu_class(r) == gpu_class) rows.push_back(r);
    }
  }
  traceprism::sort_in_runs(rows, std::less<Row>());  // one sorted run per kind: merged
  return rows;
}

// The GPU timeline's total, which the perf report calls E2E; 0 when it has no GPU event, so
// that no share of it is claimed.
inline double e2e_us(const Context& ctx) {
  const std::optional<Timeline> timeline = ctx.timeline();
  return timeline && timeline->gpu_event_count > 0 ? timeline->total_us : 0.0;
}

// Longest first; equal durations by row, so that the order is the same whatever the sort.
inline void sort_longest_first(const EventView& ev, std::vector<Row>& rows) {
  std::sort(rows.begin(), rows.end(), [&](Row a, Row b) {
    if (ev.dur_ns(a) != ev.dur_ns(b)) return ev.dur_ns(a) > ev.dur_ns(b);
    return a < b;
  });
}

// How many of `count` items a row-count option lets through (a negative option: none).
inline std::size_t capped(std::size_t count, std::int64_t limit) {
  return std::min(count, static_cast<std::size_t>(std::max<std::int64_t>(0, limit)));
}

struct Durations {
  double total_us = 0;
  double max_us = 0;  // of the first row when no duration is positive
};

// Summed in row order, as the reference sums, so that rounded totals match it to the bit.
inline Durations durations(const EventView& ev, const std::vector<Row>& rows) {
  Durations d;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const double dur = ev.dur_us(rows[i]);
    d.total_us += dur;
    if (i == 0 || dur > d.max_us) d.max_us = dur;
  }
  return d;
}

// A finding's share of the E2E span, capped at 100: GPU work outside the linked timeline can
// outlast its span. Without a span the finding claims no share.
inline void share_of_e2e(FindingBuilder& finding, double part_us, double e2e_us) {
  if (e2e_us > 0) finding.share_percent(std::min(100.0, part_us / e2e_us * 100.0));
}

}  // namespace traceprism::plugins::system
