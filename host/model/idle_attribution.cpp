#include "model/idle_attribution.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <utility>

#include "index/sort_by_row.hpp"
#include "model/host_event_traits.hpp"
#include "model/thread_stacks.hpp"

namespace traceprism::model {

using index::EventKind;

namespace {

// The longest wait between a launch call's return and its GPU work that still counts as launch
// latency (typically 5-20 µs) rather than a device-side wait.
constexpr std::int64_t kLaunchLatencyNs = 50'000;
// Device-side gaps shorter than this are the GPU's own latency between queued kernels.
constexpr std::int64_t kBubbleNs = 10'000;

constexpr std::string_view kCauseKeys[kIdleCauseCount] = {
    "dataloader",      "blocking_copy", "sync",       "allocator",
    "launch_overhead", "host_compute",  "dependency", "untraced"};

bool contains(std::string_view s, std::string_view p) {
  return s.find(p) != std::string_view::npos;
}

// ---- the GPU event set and its gaps ------------------------------------------------------------

std::vector<Row> timeline_rows(const IdleAttributionInputs& in) {
  constexpr EventKind kGpuKinds[] = {EventKind::kKernel, EventKind::kGpuMemcpy,
                                     EventKind::kGpuMemset};
  std::vector<Row> rows;
  rows.reserve(index::gpu_event_count(in.index));
  for (EventKind k : kGpuKinds)
    for (Row r : in.index.rows_of_kind(k))
      if (in.index.valid(r) && (in.include_unlinked || in.links.linked(r))) rows.push_back(r);
  const index::EventIndex& ix = in.index;
  index::sort_in_runs(rows, [&](Row a, Row b) {
    return ix.ts_ns(a) != ix.ts_ns(b) ? ix.ts_ns(a) < ix.ts_ns(b) : a < b;
  });
  return rows;
}

void find_gaps(const index::EventIndex& ix, const LaunchLinks& links, const std::vector<Row>& rows,
               IdleAttribution& out) {
  out.window_start_ns = ix.ts_ns(rows.front());
  // At most one gap before each row: the pages a smaller count leaves untouched cost nothing.
  out.gaps.reserve(rows.size());
  std::int64_t busy_until = ix.end_ns(rows.front());
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const Row r = rows[i];
    if (ix.ts_ns(r) > busy_until) {
      IdleGap gap;
      gap.start_ns = busy_until;
      gap.dur_ns = ix.ts_ns(r) - busy_until;
      gap.next = r;
      gap.launch = links.launcher(r);
      out.gaps.push_back(gap);
    }
    busy_until = std::max(busy_until, ix.end_ns(r));
  }
  out.window_end_ns = busy_until;
}

// ---- GPU-bound evidence (§2.4) -----------------------------------------------------------------

// numpy.percentile's default (linear interpolation between closest ranks).
// Only the two closest ranks matter, so they are selected, not sorted: there is a value per
// launch, millions on a serving trace.
double percentile(std::vector<double> values, double q) {
  if (values.empty()) return std::nan("");
  const double pos = q / 100.0 * static_cast<double>(values.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto lo_it = values.begin() + static_cast<std::ptrdiff_t>(lo);
  std::nth_element(values.begin(), lo_it, values.end());
  const double low = *lo_it;
  const double high = lo + 1 < values.size() ? *std::min_element(lo_it + 1, values.end()) : low;
  return low + (high - low) * (pos - static_cast<double>(lo));
}

bool is_graph_launch(std::string_view name) {
  return contains(name, "GraphLaunch");
}

void measure_launches(const index::EventIndex& ix, const LaunchLinks& links,
                      const std::vector<Row>& rows, IdleAttribution& out) {
  std::vector<double> delays;
  delays.reserve(rows.size());
  double call_sum_us = 0;
  for (Row r : rows) {
    const std::int32_t call = links.launcher(r);
    if (ix.kind(r) != EventKind::kKernel || call < 0) continue;
    const Row c = static_cast<Row>(call);
    if (is_graph_launch(ix.name(c))) continue;
    delays.push_back(std::max(0.0, static_cast<double>(ix.ts_ns(r) - ix.end_ns(c)) / 1000.0));
    call_sum_us += static_cast<double>(ix.dur_ns(c)) / 1000.0;
  }
  out.launch_call_mean_us =
      delays.empty() ? std::nan("") : call_sum_us / static_cast<double>(delays.size());
  out.launch_delay_median_us = percentile(delays, 50);
  out.launch_delay_p95_us = percentile(std::move(delays), 95);
}

// +1 when a GPU operation is launched (its call starts; an unlinked one: when it starts), -1
// when it ends; the mean and max of the running count over every sample.
void measure_queues(const index::EventIndex& ix, const LaunchLinks& links,
                    const std::vector<Row>& rows, IdleAttribution& out) {
  using Stream = std::pair<std::int32_t, std::int32_t>;  // (device, stream)
  using Change = std::pair<std::int64_t, int>;           // at one instant, completions first
  const auto stream_of = [&](Row r) {
    const auto args = ix.gpu_stream(r);
    return args ? Stream{args->device, args->stream} : Stream{-1, -1};
  };
  // A stream's launches, then its completions: each list is in time order on most traces (a
  // graph's kernels share their launch), so the two are merged rather than sorted. Counted
  // first, so that each list is allocated once (millions of changes on a serving trace).
  struct Changes {
    std::size_t count = 0;  // GPU operations
    std::size_t filled = 0;
    std::vector<Change> list;  // count launches, then count completions
  };
  std::map<Stream, Changes> changes;
  // Consecutive rows are mostly on one stream: the map is searched when the stream changes.
  auto changes_of = [&, last = changes.end()](Row r) mutable -> Changes& {
    const Stream stream = stream_of(r);
    if (last == changes.end() || last->first != stream) last = changes.try_emplace(stream).first;
    return last->second;
  };
  for (Row r : rows) ++changes_of(r).count;
  for (auto& [stream, c] : changes) c.list.resize(2 * c.count);
  for (Row r : rows) {
    Changes& c = changes_of(r);
    const std::int32_t call = links.launcher(r);
    c.list[c.filled] = {call >= 0 ? ix.ts_ns(static_cast<Row>(call)) : ix.ts_ns(r), +1};
    c.list[c.count + c.filled] = {ix.end_ns(r), -1};
    ++c.filled;
  }
  for (auto& [key, c] : changes) {
    index::sort_in_runs(c.list, std::less<Change>());
    std::int64_t length = 0, sum = 0, max = 0;
    for (const auto& change : c.list) {
      length += change.second;
      sum += length;
      max = std::max(max, length);
    }
    out.queues.push_back({key.first, key.second,
                          static_cast<double>(sum) / static_cast<double>(c.list.size()),
                          static_cast<std::uint32_t>(max)});
  }
}

// ---- the cause of one host stack ----------------------------------------------------------------

struct Verdict {
  IdleCause cause = IdleCause::kUntraced;
  std::int32_t holder = kNoEvent, top = kNoEvent, frame = kNoEvent;
  bool operator==(const Verdict&) const = default;
};

class StackJudge {
 public:
  StackJudge(const IdleAttributionInputs& in, const IdleAttribution& a)
      : ix_(in.index), traits_(in.index) {
    mark_launching_ops(in);
    launch_call_ns_ = std::isnan(a.launch_call_mean_us) ? 0.0 : a.launch_call_mean_us * 1000.0;
    for (const StreamQueue& q : a.queues) starved_[{q.device, q.stream}] = q.mean <= 1.0;
  }

  // Whether the stream that `gpu_event` runs on rarely has more than one operation queued.
  bool starved(Row gpu_event) const {
    const auto args = ix_.gpu_stream(gpu_event);
    auto it = starved_.find({args ? args->device : -1, args ? args->stream : -1});
    return it != starved_.end() && it->second;
  }

  // `stack` innermost first; empty: untraced.
  // `stack` (thread `slot`'s, innermost first) must not be empty.
  Verdict judge(std::size_t slot, const std::vector<Row>& stack, std::int64_t gap_ns,
                bool starved) {
    const StackFacts& f = facts_of(slot, stack);
    Verdict v;
    // A profiler step annotation alone says only that the time is inside a step.
    if (f.only_profiler_steps) return v;
    // The outermost cpu_op, else the outermost event that is not a profiler step.
    v.top = f.outermost_op >= 0 ? f.outermost_op : f.outermost_not_step;
    v.frame = f.innermost_frame;
    auto set = [&](IdleCause c, std::int32_t holder) {
      v.cause = c;
      v.holder = holder;
      return v;
    };
    const std::int32_t dataloader =
        f.dataloader_annotation >= 0 ? f.dataloader_annotation : f.dataloader_frame;
    if (dataloader >= 0) return set(IdleCause::kDataloader, dataloader);
    if (blocks_on_copy(stack.front(), f, gap_ns))
      return set(IdleCause::kBlockingCopy, f.outermost_copy_op >= 0
                                               ? f.outermost_copy_op
                                               : static_cast<std::int32_t>(stack.front()));
    if (f.sync_call >= 0) return set(IdleCause::kSync, f.sync_call);
    if (f.synchronize_op >= 0) return set(IdleCause::kSync, f.synchronize_op);
    if (f.allocator_call >= 0) return set(IdleCause::kAllocator, f.allocator_call);
    if (is_call(stack.front()) && launches(stack.front()))
      return set(IdleCause::kLaunchOverhead, static_cast<std::int32_t>(stack.front()));
    const bool short_gap = static_cast<double>(gap_ns) < 2.0 * launch_call_ns_;
    if ((short_gap || starved) && f.launching_op >= 0)
      return set(IdleCause::kLaunchOverhead, f.launching_op);
    // The innermost op or annotation (not a profiler step), else the innermost event.
    const std::int32_t holder = f.innermost_op >= 0 ? f.innermost_op
                                : f.innermost_annotation >= 0
                                    ? f.innermost_annotation
                                    : static_cast<std::int32_t>(stack.front());
    return set(IdleCause::kHostCompute, holder);
  }

  // A runtime call that waits on the device: a synchronize, a copy, a stream wait.
  bool is_waiting_call(Row r) {
    return is_call(r) && (has(r, HostTrait::kSyncCall) || has(r, HostTrait::kSynchronousCopyCall) ||
                          has(r, HostTrait::kAsyncCopyCall) || has(r, HostTrait::kStreamWait));
  }

  // The tail of a gap after its launching call returned: the call's own cause.
  Verdict judge_call(Row call, std::int64_t gap_ns) {
    Verdict v;
    v.holder = static_cast<std::int32_t>(call);
    v.cause =
        is_blocking_copy_call(call, gap_ns) ? IdleCause::kBlockingCopy : IdleCause::kLaunchOverhead;
    return v;
  }

 private:
  bool is_call(Row r) const { return index::is_runtime_kind(ix_.kind(r)); }
  bool launches(Row r) const { return r < launching_.size() && launching_[r]; }
  bool has(Row r, HostTrait trait) { return is(traits_.of(r), trait); }
  // A copy call that returns when the copy is done, or an async one that lasts half the gap.
  bool is_blocking_copy_call(Row call, std::int64_t gap_ns) {
    return has(call, HostTrait::kSynchronousCopyCall) ||
           (has(call, HostTrait::kAsyncCopyCall) && 2 * ix_.dur_ns(call) >= gap_ns);
  }

  void mark_launching_ops(const IdleAttributionInputs& in) {
    launching_.assign(ix_.size(), false);
    for (EventKind k : {EventKind::kCudaRuntime, EventKind::kCudaDriver})
      for (Row r : ix_.rows_of_kind(k)) {
        if (in.links.launched(r).empty()) continue;
        for (std::int64_t at = r; at >= 0 && !launching_[static_cast<Row>(at)];) {
          launching_[static_cast<Row>(at)] = true;
          at = static_cast<std::size_t>(at) < in.tree_parents.size()
                   ? in.tree_parents[static_cast<std::size_t>(at)]
                   : -1;
        }
      }
  }

  // What the rules ask of a stack.
  struct StackFacts {
    bool only_profiler_steps = true;
    bool scalar_read_op = false;
    std::int32_t innermost_op = kNoEvent, outermost_op = kNoEvent;
    std::int32_t outermost_not_step = kNoEvent;    // not a profiler step
    std::int32_t innermost_frame = kNoEvent;       // python frame
    std::int32_t innermost_annotation = kNoEvent;  // not a profiler step
    std::int32_t dataloader_annotation = kNoEvent, dataloader_frame = kNoEvent;
    std::int32_t outermost_copy_op = kNoEvent;
    std::int32_t sync_call = kNoEvent, synchronize_op = kNoEvent, allocator_call = kNoEvent;
    std::int32_t launching_op = kNoEvent;  // an op a GPU launch happens under
  };

  // The facts `f` of a stack with `r`, an event inside all of its events, pushed on it.
  StackFacts extend(StackFacts f, Row r) {
    const EventKind kind = ix_.kind(r);
    const std::uint16_t t = traits_.of(r);
    const bool step = is(t, HostTrait::kProfilerStep);
    const auto row = static_cast<std::int32_t>(r);
    auto keep_outermost = [row](std::int32_t& slot) {
      if (slot < 0) slot = row;
    };
    f.only_profiler_steps = f.only_profiler_steps && step;
    if (!step) keep_outermost(f.outermost_not_step);
    if (kind == EventKind::kCpuOp) {
      f.innermost_op = row;
      keep_outermost(f.outermost_op);
      if (is(t, HostTrait::kNamesSynchronize)) f.synchronize_op = row;
      if (is(t, HostTrait::kScalarReadOp)) f.scalar_read_op = true;
      if (is(t, HostTrait::kCopyOp)) keep_outermost(f.outermost_copy_op);
      if (launches(r)) f.launching_op = row;
    } else if (kind == EventKind::kPythonFunction) {
      f.innermost_frame = row;
      if (is(t, HostTrait::kDataloaderPath)) f.dataloader_frame = row;
    } else if (kind == EventKind::kUserAnnotation) {
      if (!step) f.innermost_annotation = row;
      if (is(t, HostTrait::kDataloaderAnnotation)) f.dataloader_annotation = row;
    } else if (index::is_runtime_kind(kind)) {
      if (is(t, HostTrait::kSyncCall)) f.sync_call = row;
      if (is(t, HostTrait::kAllocatorCall)) f.allocator_call = row;
    }
    return f;
  }

  // A thread's stack changes at its innermost end (a python stack is tens of frames deep and
  // changes millions of times), so the facts of each outer part of the last stack judged on
  // the thread are kept, and only the events inside the part the two stacks share are read.
  struct ThreadFacts {
    std::vector<Row> stack;         // outermost first
    std::vector<StackFacts> facts;  // facts[i]: of stack[0..i]
  };

  const StackFacts& facts_of(std::size_t slot, const std::vector<Row>& stack) {
    if (slot >= thread_facts_.size()) thread_facts_.resize(slot + 1);
    ThreadFacts& known = thread_facts_[slot];
    const std::size_t depth = stack.size();
    std::size_t shared = 0;
    while (shared < depth && shared < known.stack.size() &&
           known.stack[shared] == stack[depth - 1 - shared])
      ++shared;
    known.stack.resize(shared);
    known.facts.resize(shared);
    for (std::size_t i = shared; i < depth; ++i) {
      const Row r = stack[depth - 1 - i];
      known.facts.push_back(extend(i > 0 ? known.facts[i - 1] : StackFacts{}, r));
      known.stack.push_back(r);
    }
    return known.facts.back();
  }

  // The innermost call is a copy that blocks, or waits (a sync, a copy) for a scalar read above
  // it; the holder is then the outermost copy op above (aten::item rather than its
  // cudaMemcpyAsync), so the report names the op.
  bool blocks_on_copy(Row inner, const StackFacts& f, std::int64_t gap_ns) {
    if (!is_call(inner)) return false;
    const bool waits = has(inner, HostTrait::kSyncCall) || has(inner, HostTrait::kAsyncCopyCall);
    return is_blocking_copy_call(inner, gap_ns) || (waits && f.scalar_read_op);
  }

  const index::EventIndex& ix_;
  HostEventTraits traits_;
  std::vector<ThreadFacts> thread_facts_;  // by ThreadStacks slot
  std::vector<bool> launching_;            // a GPU launch happens at or below the row
  double launch_call_ns_ = 0;
  std::map<std::pair<std::int32_t, std::int32_t>, bool> starved_;
};

// ---- walking one gap ---------------------------------------------------------------------------

class GapWalker {
 public:
  GapWalker(const IdleAttributionInputs& in, IdleAttribution& out)
      : ix_(in.index), stacks_(in.index), judge_(in, out), out_(out) {}

  void walk(IdleGap& gap) {
    gap_part_begin_ = out_.parts.size();
    gap.part_begin = static_cast<std::uint32_t>(gap_part_begin_);
    const std::int64_t start = gap.start_ns, end = gap.start_ns + gap.dur_ns;
    const bool host_bound = gap.launch >= 0 && ix_.end_ns(static_cast<Row>(gap.launch)) > start;
    if (!host_bound) {
      // Bubbles between queued kernels (most device-side gaps) wait on no host call.
      add(start, end,
          gap.dur_ns < kBubbleNs ? Verdict{IdleCause::kDependency}
                                 : device_wait(start, start + gap.dur_ns / 2));
    } else {
      const Row call = static_cast<Row>(gap.launch);
      const std::int64_t host_end = std::min(end, ix_.end_ns(call));
      walk_host(start, host_end, call, gap);
      // After the call returned the work is queued: a launch latency is the call's own cost,
      // a longer wait is the device's.
      if (end - host_end <= kLaunchLatencyNs)
        add(host_end, end, judge_.judge_call(call, gap.dur_ns));
      else
        add(host_end, end, device_wait(host_end, host_end + (end - host_end) / 2));
    }
    gap.part_count = static_cast<std::uint32_t>(out_.parts.size()) - gap.part_begin;
  }

 private:
  void walk_host(std::int64_t from, std::int64_t to, Row call, const IdleGap& gap) {
    const std::int32_t slot = stacks_.slot_of(ix_.thread(call));
    const bool starved = judge_.starved(gap.next);
    for (std::int64_t t = from; t < to;) {
      std::int64_t next = to;
      Verdict v;
      if (slot >= 0) {
        stacks_.stack_at(static_cast<std::size_t>(slot), t, stack_);
        next = std::min(next, stacks_.next_change(static_cast<std::size_t>(slot), t));
      } else {
        stack_.clear();
      }
      if (!stack_.empty())
        v = judge_.judge(static_cast<std::size_t>(slot), stack_, gap.dur_ns, starved);
      else
        v = judge_other_threads(slot, t, gap, starved, next);
      add(t, next, v);
      t = next;
    }
  }

  // A device-side gap names the host call that waits with it, when a thread is in one as the
  // gap begins or halfway through it (a synchronize, a blocking copy, a stream wait): the cause
  // stays dependency.
  Verdict device_wait(std::int64_t begin, std::int64_t middle) {
    Verdict v{IdleCause::kDependency};
    for (std::size_t s = 0; s < stacks_.thread_count(); ++s)
      for (std::int64_t t : {begin, middle}) take_longest_wait(s, t, v);
    return v;
  }

  // The longest waiting call on the stack of `slot` at `t` becomes the holder.
  void take_longest_wait(std::size_t slot, std::int64_t t, Verdict& v) {
    stacks_.stack_at(slot, t, stack_);
    for (Row r : stack_) {
      if (!judge_.is_waiting_call(r)) continue;
      if (v.holder < 0 || ix_.dur_ns(r) > ix_.dur_ns(static_cast<Row>(v.holder)))
        v.holder = static_cast<std::int32_t>(r);
    }
  }

  // The launching thread holds nothing: the most specific cause any other thread's stack
  // gives (host_compute last), else untraced.
  Verdict judge_other_threads(std::int32_t skip, std::int64_t t, const IdleGap& gap, bool starved,
                              std::int64_t& next) {
    Verdict best;
    bool found = false;
    for (std::size_t s = 0; s < stacks_.thread_count(); ++s) {
      if (static_cast<std::int32_t>(s) == skip) continue;
      stacks_.stack_at(s, t, stack_);
      next = std::min(next, stacks_.next_change(s, t));
      if (stack_.empty()) continue;
      const Verdict v = judge_.judge(s, stack_, gap.dur_ns, starved);
      if (!found || v.cause < best.cause) best = v;
      found = true;
    }
    return best;
  }

  void add(std::int64_t from, std::int64_t to, const Verdict& v) {
    if (to <= from) return;
    out_.idle_ns[static_cast<std::size_t>(v.cause)] += to - from;
    if (out_.parts.size() > gap_part_begin_) {
      const IdlePart last = out_.parts.back();
      if (last.start_ns + last.dur_ns == from && last.cause == v.cause && last.holder == v.holder &&
          last.top == v.top && last.frame == v.frame) {
        out_.parts.extend_back(to - from);
        return;
      }
    }
    out_.parts.push_back({from, to - from, v.cause, v.holder, v.top, v.frame});
  }
  const index::EventIndex& ix_;
  ThreadStacks stacks_;
  StackJudge judge_;
  IdleAttribution& out_;
  std::vector<Row> stack_;
  std::size_t gap_part_begin_ = 0;  // parts of the gap being walked start here
};

}  // namespace

void IdleParts::reserve(std::size_t parts) {
  for (auto* column : {&start_ns_, &dur_ns_}) column->reserve(parts);
  for (auto* column : {&holder_, &top_, &frame_}) column->reserve(parts);
  cause_.reserve(parts);
}

void IdleParts::push_back(const IdlePart& part) {
  start_ns_.push_back(part.start_ns);
  dur_ns_.push_back(part.dur_ns);
  cause_.push_back(static_cast<std::uint8_t>(part.cause));
  holder_.push_back(column_row(part.holder));
  top_.push_back(column_row(part.top));
  frame_.push_back(column_row(part.frame));
}

std::size_t IdleParts::first_ending_after(std::int64_t ns) const {
  std::size_t low = 0, high = size();
  while (low < high) {
    const std::size_t middle = low + (high - low) / 2;
    if (start_ns_[middle] + dur_ns_[middle] <= ns)
      low = middle + 1;
    else
      high = middle;
  }
  return low;
}

std::string_view idle_cause_key(IdleCause cause) {
  const auto i = static_cast<std::size_t>(cause);
  return i < kIdleCauseCount ? kCauseKeys[i] : "untraced";
}

std::int64_t IdleAttribution::idle_total_ns() const {
  std::int64_t sum = 0;
  for (std::int64_t v : idle_ns) sum += v;
  return sum;
}

IdleAttribution attribute_idle(const IdleAttributionInputs& in) {
  IdleAttribution out;
  out.launch_delay_median_us = out.launch_delay_p95_us = out.launch_call_mean_us = std::nan("");
  const std::vector<Row> rows = timeline_rows(in);
  if (rows.empty()) return out;
  find_gaps(in.index, in.links, rows, out);
  measure_launches(in.index, in.links, rows, out);
  measure_queues(in.index, in.links, rows, out);
  // A device-side gap gets one part (the millions of bubbles of a graph replay), a host-bound
  // one as many as its stacks change. Room for one a gap: capacity left over would be served
  // from freed memory that is still resident, and the columns are kept for the whole run.
  out.parts.reserve(out.gaps.size());
  GapWalker walker(in, out);
  for (IdleGap& gap : out.gaps) walker.walk(gap);
  return out;
}

}  // namespace traceprism::model
