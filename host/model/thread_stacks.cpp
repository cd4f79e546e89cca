#include "model/thread_stacks.hpp"

#include <algorithm>
#include <limits>

#include "index/sort_by_row.hpp"

namespace traceprism::model {

using index::EventKind;

namespace {

bool is_stack_kind(EventKind k) {
  return k == EventKind::kCpuOp || k == EventKind::kPythonFunction ||
         k == EventKind::kUserAnnotation || k == EventKind::kCudaRuntime ||
         k == EventKind::kCudaDriver;
}

}  // namespace

ThreadStacks::ThreadStacks(const index::EventIndex& index) : index_(index) {
  slot_.assign(index.threads().size(), -1);
  for (EventKind k : {EventKind::kCpuOp, EventKind::kPythonFunction, EventKind::kUserAnnotation,
                      EventKind::kCudaRuntime, EventKind::kCudaDriver}) {
    for (Row r : index.rows_of_kind(k)) {
      if (!index.valid(r) || index.dur_ns(r) <= 0 || !is_stack_kind(index.kind(r))) continue;
      const std::uint32_t thread = index.thread(r);
      if (thread == index::kNoThread) continue;
      if (slot_[thread] < 0) {
        slot_[thread] = static_cast<std::int32_t>(threads_.size());
        threads_.emplace_back();
      }
      threads_[static_cast<std::size_t>(slot_[thread])].rows.push_back(r);
    }
  }
  for (Thread& t : threads_) {
    index::sort_in_runs(t.rows, [&](Row a, Row b) {
      if (index.ts_ns(a) != index.ts_ns(b)) return index.ts_ns(a) < index.ts_ns(b);
      if (index.dur_ns(a) != index.dur_ns(b)) return index.dur_ns(a) > index.dur_ns(b);
      return a < b;
    });
  }
}

std::int32_t ThreadStacks::slot_of(std::uint32_t index_thread) const {
  return index_thread < slot_.size() ? slot_[index_thread] : -1;
}

void ThreadStacks::advance(Thread& t, std::int64_t ns) const {
  for (; t.cursor < t.rows.size() && index_.ts_ns(t.rows[t.cursor]) <= ns; ++t.cursor)
    t.open.push_back({t.rows[t.cursor], index_.end_ns(t.rows[t.cursor])});
  std::erase_if(t.open, [&](const Open& o) { return o.end_ns <= ns; });
}

void ThreadStacks::stack_at(std::size_t slot, std::int64_t ns, std::vector<Row>& out) {
  Thread& t = threads_[slot];
  advance(t, ns);
  out.clear();
  for (auto it = t.open.rbegin(); it != t.open.rend(); ++it) out.push_back(it->row);
}

std::int64_t ThreadStacks::next_change(std::size_t slot, std::int64_t ns) const {
  const Thread& t = threads_[slot];
  std::int64_t next = std::numeric_limits<std::int64_t>::max();
  if (t.cursor < t.rows.size()) next = index_.ts_ns(t.rows[t.cursor]);
  for (const Open& o : t.open)
    if (o.end_ns > ns) next = std::min(next, o.end_ns);
  return next;
}

}  // namespace traceprism::model
