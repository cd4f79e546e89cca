#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "index/event_index.hpp"
#include "model/launch_links.hpp"

namespace traceprism::model {

// Why the GPU sat idle (diagnosis.md §2.2-§2.3), in TRACEPRISM_CAUSE_* order.
enum class IdleCause : std::uint8_t {
  kDataloader,
  kBlockingCopy,
  kSync,
  kAllocator,
  kLaunchOverhead,
  kHostCompute,
  kDependency,
  kUntraced,
};
inline constexpr std::size_t kIdleCauseCount = 8;

// findings.json's key: "dataloader", "blocking_copy", ...
std::string_view idle_cause_key(IdleCause cause);

inline constexpr std::int32_t kNoEvent = -1;

// A maximal interval of the window in which no GPU event of the timeline's set runs.
struct IdleGap {
  std::int64_t start_ns = 0;
  std::int64_t dur_ns = 0;
  Row next = 0;                    // the GPU event that ends the gap
  std::int32_t launch = kNoEvent;  // its launching call
  std::uint32_t part_begin = 0;    // range into IdleAttribution::parts
  std::uint32_t part_count = 0;
};

// A piece of a gap with one cause and one host stack.
struct IdlePart {
  std::int64_t start_ns = 0;
  std::int64_t dur_ns = 0;
  IdleCause cause = IdleCause::kUntraced;
  std::int32_t holder = kNoEvent;  // the host event whose match gave the cause
  std::int32_t top = kNoEvent;     // the outermost op (or event) of that stack
  std::int32_t frame = kNoEvent;   // the innermost python frame of that stack
};

// Every gap's parts, one column per field. The ABI's part columns (traceprism_idle_attribution_v1)
// are these vectors, moved rather than copied: a trace with python stacks or graph replays has
// millions of parts. Rows are kept in the ABI's form, uint32 with kNoEvent as 0xFFFFFFFF.
class IdleParts {
 public:
  static constexpr std::uint32_t kNoRow = 0xFFFFFFFFu;  // TRACEPRISM_NO_ROW

  std::size_t size() const { return start_ns_.size(); }
  IdlePart operator[](std::size_t i) const {
    return {start_ns_[i],    dur_ns_[i],   static_cast<IdleCause>(cause_[i]),
            row(holder_[i]), row(top_[i]), row(frame_[i])};
  }
  IdlePart back() const { return (*this)[size() - 1]; }
  void reserve(std::size_t parts);
  void push_back(const IdlePart& part);
  void extend_back(std::int64_t ns) { dur_ns_.back() += ns; }
  // The first part that ends after `ns`, or size() (parts are in time order).
  std::size_t first_ending_after(std::int64_t ns) const;

  const std::vector<std::int64_t>& start_ns() const { return start_ns_; }
  const std::vector<std::int64_t>& dur_ns() const { return dur_ns_; }
  const std::vector<std::uint8_t>& cause() const { return cause_; }
  const std::vector<std::uint32_t>& holder() const { return holder_; }
  const std::vector<std::uint32_t>& top() const { return top_; }
  const std::vector<std::uint32_t>& frame() const { return frame_; }

 private:
  static std::uint32_t column_row(std::int32_t row) {
    return row < 0 ? kNoRow : static_cast<std::uint32_t>(row);
  }
  static std::int32_t row(std::uint32_t value) {
    return value == kNoRow ? kNoEvent : static_cast<std::int32_t>(value);
  }

  std::vector<std::int64_t> start_ns_, dur_ns_;
  std::vector<std::uint8_t> cause_;
  std::vector<std::uint32_t> holder_, top_, frame_;
};

// HTA's queue length of one stream: launched, unfinished GPU operations, sampled at every
// launch and completion.
struct StreamQueue {
  std::int32_t device = -1;
  std::int32_t stream = -1;
  double mean = 0;
  std::uint32_t max = 0;
};

struct IdleAttribution {
  std::int64_t window_start_ns = 0;  // the GPU timeline's end-to-end window
  std::int64_t window_end_ns = 0;
  std::array<std::int64_t, kIdleCauseCount> idle_ns{};
  std::vector<IdleGap> gaps;  // in time order
  IdleParts parts;
  std::vector<StreamQueue> queues;  // by (device, stream)
  // Over kernels launched by a non-graph call; NaN when there are none.
  double launch_delay_median_us = 0;
  double launch_delay_p95_us = 0;
  double launch_call_mean_us = 0;

  bool empty() const { return window_end_ns <= window_start_ns; }
  std::int64_t idle_total_ns() const;
};

struct IdleAttributionInputs {
  const index::EventIndex& index;
  const LaunchLinks& links;
  std::span<const std::int32_t> tree_parents;  // CallTree parent column: which ops launch
  bool include_unlinked = false;               // the GPU timeline's event set
};

// Cuts every idle gap of the GPU timeline into parts and gives each its cause from the host
// stack that holds the time (diagnosis.md §2): the launching thread's stack, else any
// thread's; device-side when the GPU resumed with work queued before the gap began.
IdleAttribution attribute_idle(const IdleAttributionInputs& inputs);

}  // namespace traceprism::model
