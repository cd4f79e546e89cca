// Copy traffic per direction and memory kind (diagnosis.md §5): count, bytes, time, exposed
// time and achieved bandwidth of the copies gpu_timeline counts, and the link that carries them.
#pragma once

#include <traceprism/sdk.hpp>
#include <traceprism/support.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace traceprism::plugins::memcpy {

// Which way a copy goes: its parsed copy direction, else the words of its name.
enum class Direction { kHtoD, kDtoH, kDtoD, kPtoP, kHtoH, kOther };
inline constexpr std::size_t kDirectionCount = 6;
inline constexpr Direction kDirections[kDirectionCount] = {Direction::kHtoD, Direction::kDtoH,
                                                           Direction::kDtoD, Direction::kPtoP,
                                                           Direction::kHtoH, Direction::kOther};

const char* direction_key(Direction d);    // "HtoD", ..., "other": figure keys and tables
const char* direction_words(Direction d);  // "host-to-device", ...
Direction direction_of(const Context& ctx, Row copy);

// A TRACEPRISM_MEMORY_* kind in prose ("pageable", "pinned", "device", "host", ...).
const char* memory_word(std::int32_t kind);

// The GPU events gpu_timeline counts (those linked to a launch, or every one when the run
// includes unlinked events) and what hides a copy in them: their computation and
// communication, merged, in the reference's microsecond doubles.
struct TimelineSet {
  bool linked_only = true;
  double e2e_us = 0;  // the window, gpu_timeline's total
  std::vector<support::Interval> computation, communication;
  bool counts(const EventView& ev, Row r) const { return !linked_only || ev.launcher(r) != kNoRow; }
};
TimelineSet timeline_set(const Context& ctx);

// Copies measured together.
struct CopyStats {
  std::vector<Row> rows;                 // file order
  double bytes = 0;                      // of the copies whose size is known
  double time_us = 0;                    // durations summed
  double busy_us = 0;                    // their union
  double exposed_us = 0;                 // the union minus computation and communication
  double rated_bytes = 0, rated_us = 0;  // copies with a known size and a positive duration
  std::size_t count() const { return rows.size(); }
  // Bytes per second of the copies with a known size, in GB/s; nullopt when none has one.
  std::optional<double> achieved_gbps() const;
  double median_bytes = 0;  // of the copies with a known size; 0 when none
};
CopyStats measure(const Context& ctx, const TimelineSet& set, std::vector<Row> rows);

// The copies of one direction with one pair of memory kinds.
struct CopyGroup {
  Direction direction;
  std::int32_t source, destination;  // TRACEPRISM_MEMORY_*
  CopyStats stats;
  std::string kinds() const;  // "pageable → device"
  // The host side's memory kind (HtoD: source, DtoH: destination), else the source's.
  std::int32_t host_side() const;
};

// The link that carries a direction, its bandwidth in one direction (GB/s) when the platform
// gives it, and how many times a copied byte crosses it (a device-to-device copy reads and
// writes HBM: 2, as CUDA's bandwidthTest counts).
struct Link {
  const char* name = nullptr;  // "host link", "HBM"; nullptr: no link is judged
  std::optional<double> gbps;
  double crossings = 1;
};
Link link_of(const Context& ctx, Direction d);

struct Traffic {
  std::array<CopyStats, kDirectionCount> by_direction;  // by Direction
  std::vector<CopyGroup> groups;     // by direction, then source and destination kind
  std::size_t outside_timeline = 0;  // copies gpu_timeline does not count
  const CopyStats& of(Direction d) const { return by_direction[static_cast<std::size_t>(d)]; }
  std::vector<const CopyGroup*> groups_of(Direction d) const;
};
Traffic measure_traffic(const Context& ctx, const TimelineSet& set, const std::vector<Row>& copies);

// Records traffic.* figures (docs/analyzers/memcpy/memcpy.md).
void record_traffic(Context& ctx, const Traffic& traffic, const TimelineSet& set);

}  // namespace traceprism::plugins::memcpy
