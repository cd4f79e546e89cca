#pragma once

#include <cstdint>
#include <vector>

#include "index/event_index.hpp"

namespace traceprism::model {

using index::Row;

// The host call stack of every thread at a moving point in time: python frames, cpu_ops,
// user annotations and runtime/driver calls, nested by their intervals (not by the call tree's
// bleed rules, which drop events; here an event that overlaps its parent's end still counts
// while it runs). Queries per thread must come in non-decreasing time, so one pass over a
// thread's events answers all of them.
class ThreadStacks {
 public:
  explicit ThreadStacks(const index::EventIndex& index);

  std::size_t thread_count() const { return threads_.size(); }
  // The slot of the index's thread number, or -1 when that thread has no host events.
  std::int32_t slot_of(std::uint32_t index_thread) const;

  // The events of `slot` that cover `ns`, innermost first.
  void stack_at(std::size_t slot, std::int64_t ns, std::vector<Row>& out);
  // The first time after `ns` at which the stack of `slot` changes (INT64_MAX: never); call
  // after stack_at(slot, ns).
  std::int64_t next_change(std::size_t slot, std::int64_t ns) const;

 private:
  struct Open {
    Row row;
    std::int64_t end_ns;  // kept beside the row: every query scans the whole stack's ends
  };
  struct Thread {
    std::vector<Row> rows;  // by (start, longest first, row)
    std::size_t cursor = 0;
    std::vector<Open> open;  // started, maybe ended; in start order
  };
  void advance(Thread& t, std::int64_t ns) const;

  const index::EventIndex& index_;
  std::vector<Thread> threads_;
  std::vector<std::int32_t> slot_;  // index thread -> slot
};

}  // namespace traceprism::model
