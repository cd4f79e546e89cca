#include "copy_traffic.hpp"

#include <traceprism/roofline_rule.hpp>

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <string_view>
#include <tuple>
#include <utility>

#include "../common/system_support.hpp"

namespace traceprism::plugins::memcpy {
namespace {

using support::Interval;
using system::contains;

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The direction words of a copy whose arguments give none (e.g. "CopyDeviceToHost").
Direction direction_of_name(std::string_view name) {
  const std::string n = lower(name);
  if (contains(n, "dtoh") || contains(n, "device -> host") || contains(n, "devicetohost"))
    return Direction::kDtoH;
  if (contains(n, "htod") || contains(n, "host -> device") || contains(n, "hosttodevice"))
    return Direction::kHtoD;
  if (contains(n, "dtod") || contains(n, "device -> device") || contains(n, "devicetodevice"))
    return Direction::kDtoD;
  if (contains(n, "ptop") || contains(n, "peertopeer")) return Direction::kPtoP;
  if (contains(n, "htoh") || contains(n, "hosttohost")) return Direction::kHtoH;
  return Direction::kOther;
}

Interval span_of(const EventView& ev, Row r) {
  const double start = support::reference_us(ev.ts_ns(r));
  return {start, start + support::reference_us(ev.dur_ns(r))};
}

double exposed_length(const std::vector<Interval>& merged, const TimelineSet& set) {
  return support::total_length(
      support::subtract(support::subtract(merged, set.computation), set.communication));
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

void record_stats(Context& ctx, const std::string& prefix, const CopyStats& s) {
  ctx.record(prefix + "count", static_cast<double>(s.count()));
  ctx.record(prefix + "bytes", s.bytes);
  ctx.record(prefix + "time_us", support::py_round(s.time_us, 3));
  ctx.record(prefix + "exposed_us", support::py_round(s.exposed_us, 3));
  if (const auto gbps = s.achieved_gbps()) ctx.record(prefix + "achieved_gbps", *gbps);
}

}  // namespace

const char* direction_key(Direction d) {
  static const char* const kKeys[kDirectionCount] = {"HtoD", "DtoH", "DtoD",
                                                     "PtoP", "HtoH", "other"};
  return kKeys[static_cast<std::size_t>(d)];
}

const char* direction_words(Direction d) {
  static const char* const kWords[kDirectionCount] = {"host-to-device",   "device-to-host",
                                                      "device-to-device", "peer-to-peer",
                                                      "host-to-host",     "other"};
  return kWords[static_cast<std::size_t>(d)];
}

Direction direction_of(const Context& ctx, Row copy) {
  if (const auto args = ctx.gpu_args(copy)) {
    switch (args->copy_direction) {
      case TRACEPRISM_COPY_HTOD:
        return Direction::kHtoD;
      case TRACEPRISM_COPY_DTOH:
        return Direction::kDtoH;
      case TRACEPRISM_COPY_DTOD:
        return Direction::kDtoD;
      case TRACEPRISM_COPY_PTOP:
        return Direction::kPtoP;
      case TRACEPRISM_COPY_HTOH:
        return Direction::kHtoH;
      default:
        break;
    }
  }
  return direction_of_name(ctx.events().name(copy));
}

const char* memory_word(std::int32_t kind) {
  switch (kind) {
    case TRACEPRISM_MEMORY_PAGEABLE:
      return "pageable";
    case TRACEPRISM_MEMORY_PINNED:
      return "pinned";
    case TRACEPRISM_MEMORY_DEVICE:
      return "device";
    case TRACEPRISM_MEMORY_HOST:
      return "host";
    case TRACEPRISM_MEMORY_MANAGED:
      return "managed";
    case TRACEPRISM_MEMORY_ARRAY:
      return "array";
    default:
      return "unknown";
  }
}

TimelineSet timeline_set(const Context& ctx) {
  const EventView ev = ctx.events();
  TimelineSet set;
  const std::optional<Timeline> timeline = ctx.timeline();
  if (!timeline || timeline->gpu_event_count == 0) return set;
  std::size_t all = 0, linked = 0;
  for (Kind kind : system::kGpuKinds)
    for (Row r : ctx.rows(kind)) {
      if (ev.gpu_class(r) == GpuClass::kNone) continue;
      ++all;
      if (ev.launcher(r) != kNoRow) ++linked;
    }
  // The host says how many events its timeline counts, not which: a run with
  // --include-unlinked counts them all.
  set.linked_only = !(timeline->gpu_event_count == all && all != linked);
  set.e2e_us = timeline->total_us;
  std::vector<Interval> computation, communication;
  for (Kind kind : system::kGpuKinds)
    for (Row r : ctx.rows(kind)) {
      if (!set.counts(ev, r)) continue;
      if (ev.gpu_class(r) == GpuClass::kComputation) computation.push_back(span_of(ev, r));
      if (ev.gpu_class(r) == GpuClass::kCommunication) communication.push_back(span_of(ev, r));
    }
  set.computation = support::merge(std::move(computation));
  set.communication = support::merge(std::move(communication));
  return set;
}

std::optional<double> CopyStats::achieved_gbps() const {
  if (rated_us <= 0) return std::nullopt;
  return rated_bytes / rated_us / 1000.0;  // bytes per µs = MB/s
}

CopyStats measure(const Context& ctx, const TimelineSet& set, std::vector<Row> rows) {
  const EventView ev = ctx.events();
  CopyStats s;
  traceprism::sort_in_runs(rows, std::less<Row>());  // usually a few sorted runs: merged
  std::vector<Interval> spans;
  std::vector<double> sizes;
  for (Row r : rows) {
    const double dur = ev.dur_us(r);
    s.time_us += dur;
    spans.push_back(span_of(ev, r));
    const auto args = ctx.gpu_args(r);
    if (!args || args->bytes < 0) continue;
    const auto bytes = static_cast<double>(args->bytes);
    s.bytes += bytes;
    sizes.push_back(bytes);
    if (dur > 0) s.rated_bytes += bytes, s.rated_us += dur;
  }
  const std::vector<Interval> merged = support::merge(std::move(spans));
  s.busy_us = support::total_length(merged);
  s.exposed_us = exposed_length(merged, set);
  s.median_bytes = median(std::move(sizes));
  s.rows = std::move(rows);
  return s;
}

std::string CopyGroup::kinds() const {
  return std::string(memory_word(source)) + " \xE2\x86\x92 " + memory_word(destination);
}

std::int32_t CopyGroup::host_side() const {
  return direction == Direction::kDtoH ? destination : source;
}

Link link_of(const Context& ctx, Direction d) {
  Link link;
  if (d == Direction::kHtoD || d == Direction::kDtoH) {
    link.name = "host link";
    link.gbps = ctx.platform_number("host_link_gbps");
  } else if (d == Direction::kDtoD) {
    link.name = "HBM";
    link.gbps =
        roofline_hbm_gbps_of([&](std::string_view key) { return ctx.platform_number(key); });
    link.crossings = 2;
  }
  return link;
}

std::vector<const CopyGroup*> Traffic::groups_of(Direction d) const {
  std::vector<const CopyGroup*> out;
  for (const CopyGroup& g : groups)
    if (g.direction == d) out.push_back(&g);
  return out;
}

Traffic measure_traffic(const Context& ctx, const TimelineSet& set,
                        const std::vector<Row>& copies) {
  const EventView ev = ctx.events();
  Traffic t;
  std::array<std::vector<Row>, kDirectionCount> by_direction;
  std::map<std::tuple<Direction, std::int32_t, std::int32_t>, std::vector<Row>> by_kinds;
  for (Row r : copies) {
    if (!set.counts(ev, r)) {
      ++t.outside_timeline;
      continue;
    }
    const Direction d = direction_of(ctx, r);
    const auto args = ctx.gpu_args(r);
    const std::int32_t source = args ? args->copy_source : TRACEPRISM_MEMORY_UNKNOWN;
    const std::int32_t destination = args ? args->copy_destination : TRACEPRISM_MEMORY_UNKNOWN;
    by_direction[static_cast<std::size_t>(d)].push_back(r);
    by_kinds[{d, source, destination}].push_back(r);
  }
  for (std::size_t i = 0; i < kDirectionCount; ++i)
    t.by_direction[i] = measure(ctx, set, std::move(by_direction[i]));
  for (auto& [key, rows] : by_kinds)
    t.groups.push_back(
        {std::get<0>(key), std::get<1>(key), std::get<2>(key), measure(ctx, set, std::move(rows))});
  return t;
}

void record_traffic(Context& ctx, const Traffic& traffic, const TimelineSet& set) {
  ctx.record("traffic.e2e_us", support::py_round(set.e2e_us, 3));
  ctx.record("traffic.outside_timeline.count", static_cast<double>(traffic.outside_timeline));
  if (const auto host = ctx.platform_number("host_link_gbps")) ctx.record("link.host_gbps", *host);
  if (const auto hbm = link_of(ctx, Direction::kDtoD).gbps) ctx.record("link.hbm_gbps", *hbm);
  for (Direction d : kDirections) {
    const CopyStats& s = traffic.of(d);
    if (s.count() == 0) continue;
    const std::string prefix = std::string("traffic.") + direction_key(d) + ".";
    record_stats(ctx, prefix, s);
    const Link link = link_of(ctx, d);
    const auto gbps = s.achieved_gbps();
    if (link.gbps && gbps)
      ctx.record(prefix + "link_percent",
                 support::py_round(*gbps * link.crossings / *link.gbps * 100.0, 2));
    for (const CopyGroup* g : traffic.groups_of(d))
      record_stats(ctx,
                   prefix + memory_word(g->source) + "_to_" + memory_word(g->destination) + ".",
                   g->stats);
  }
}

}  // namespace traceprism::plugins::memcpy
