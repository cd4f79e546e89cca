#include "model/idle_attribution.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <utility>

#include "index/sort_by_row.hpp"
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

bool starts_with(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}
bool contains(std::string_view s, std::string_view p) {
  return s.find(p) != std::string_view::npos;
}

// ---- what a host event is (diagnosis.md §2.2's table) ----------------------------------------

bool is_dataloader_annotation(std::string_view name) {
  return starts_with(name, "enumerate(DataLoader)#");
}

// Copy APIs that return only when the copy is done.
bool is_synchronous_copy_call(std::string_view name) {
  for (std::string_view n :
       {"cudaMemcpy", "cudaMemcpy2D", "cudaMemcpy3D", "cudaMemcpyPeer", "hipMemcpy", "hipMemcpy2D",
        "hipMemcpyWithStream", "hipMemcpyDtoH", "hipMemcpyHtoD", "hipMemcpyDtoD", "cuMemcpy",
        "cuMemcpyDtoH_v2", "cuMemcpyHtoD_v2", "cuMemcpyDtoH", "cuMemcpyHtoD"})
    if (name == n) return true;
  return false;
}

bool is_async_copy_call(std::string_view name) {
  return (starts_with(name, "cudaMemcpy") || starts_with(name, "hipMemcpy") ||
          starts_with(name, "cuMemcpy")) &&
         contains(name, "Async");
}

bool is_copy_op(std::string_view name) {
  return name == "aten::item" || name == "aten::_local_scalar_dense" || name == "aten::to" ||
         name == "aten::copy_" || name == "aten::_to_copy";
}

bool is_scalar_read_op(std::string_view name) {
  return name == "aten::item" || name == "aten::_local_scalar_dense";
}

bool is_sync_call(std::string_view name) {
  for (std::string_view n :
       {"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize", "cudaStreamQuery",
        "hipDeviceSynchronize", "hipStreamSynchronize", "hipEventSynchronize", "hipStreamQuery",
        "cuCtxSynchronize", "cuStreamSynchronize", "cuEventSynchronize"})
    if (name == n) return true;
  return false;
}

bool is_allocator_call(std::string_view name) {
  for (std::string_view p :
       {"cudaMalloc", "cudaFree", "hipMalloc", "hipFree", "cudaHostAlloc", "hipHostMalloc",
        "hipHostFree", "cudaMallocHost", "cudaFreeHost", "cuMemAlloc", "cuMemFree"})
    if (starts_with(name, p)) return true;
  return false;
}

bool is_profiler_step(std::string_view name) {
  return starts_with(name, "ProfilerStep#");
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
  StackJudge(const IdleAttributionInputs& in, const IdleAttribution& a) : ix_(in.index) {
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
  Verdict judge(const std::vector<Row>& stack, std::int64_t gap_ns, bool starved) const {
    Verdict v;
    // A profiler step annotation alone says only that the time is inside a step.
    if (std::all_of(stack.begin(), stack.end(),
                    [&](Row r) { return is_profiler_step(ix_.name(r)); }))
      return v;
    v.top = top_of(stack);
    v.frame = innermost(stack, EventKind::kPythonFunction);
    auto set = [&](IdleCause c, Row holder) {
      v.cause = c;
      v.holder = static_cast<std::int32_t>(holder);
      return v;
    };
    if (auto r = dataloader_event(stack)) return set(IdleCause::kDataloader, *r);
    if (auto r = blocking_copy_event(stack, gap_ns)) return set(IdleCause::kBlockingCopy, *r);
    for (Row r : stack)
      if (is_call(r) && is_sync_call(ix_.name(r))) return set(IdleCause::kSync, r);
    for (Row r : stack)
      if (ix_.kind(r) == EventKind::kCpuOp && contains(ix_.name(r), "synchronize"))
        return set(IdleCause::kSync, r);
    for (Row r : stack)
      if (is_call(r) && is_allocator_call(ix_.name(r))) return set(IdleCause::kAllocator, r);
    if (is_call(stack.front()) && launches(stack.front()))
      return set(IdleCause::kLaunchOverhead, stack.front());
    const bool short_gap = static_cast<double>(gap_ns) < 2.0 * launch_call_ns_;
    if (short_gap || starved)
      for (Row r : stack)
        if (ix_.kind(r) == EventKind::kCpuOp && launches(r))
          return set(IdleCause::kLaunchOverhead, r);
    return set(IdleCause::kHostCompute, host_compute_holder(stack));
  }

  // The tail of a gap after its launching call returned: the call's own cause.
  Verdict judge_call(Row call, std::int64_t gap_ns) const {
    Verdict v;
    v.holder = static_cast<std::int32_t>(call);
    const std::string_view name = ix_.name(call);
    const bool blocking = is_synchronous_copy_call(name) ||
                          (is_async_copy_call(name) && 2 * ix_.dur_ns(call) >= gap_ns);
    v.cause = blocking ? IdleCause::kBlockingCopy : IdleCause::kLaunchOverhead;
    return v;
  }

 private:
  bool is_call(Row r) const { return index::is_runtime_kind(ix_.kind(r)); }
  bool launches(Row r) const { return r < launching_.size() && launching_[r]; }

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

  std::optional<Row> dataloader_event(const std::vector<Row>& stack) const {
    for (Row r : stack)
      if (ix_.kind(r) == EventKind::kUserAnnotation && is_dataloader_annotation(ix_.name(r)))
        return r;
    for (Row r : stack)
      if (ix_.kind(r) == EventKind::kPythonFunction && contains(ix_.name(r), "torch/utils/data/"))
        return r;
    return std::nullopt;
  }

  // A copy call that blocks, or a scalar read waiting on the GPU; the holder is the outermost
  // copy op above it (aten::item rather than its cudaMemcpyAsync), so the report names the op.
  std::optional<Row> blocking_copy_event(const std::vector<Row>& stack, std::int64_t gap_ns) const {
    const Row inner = stack.front();
    const std::string_view name = ix_.name(inner);
    const bool call = is_call(inner);
    const bool blocking_call =
        call && (is_synchronous_copy_call(name) ||
                 (is_async_copy_call(name) && 2 * ix_.dur_ns(inner) >= gap_ns));
    const bool waiting_scalar_read =
        call && (is_sync_call(name) || is_async_copy_call(name)) &&
        std::any_of(stack.begin(), stack.end(), [&](Row r) {
          return ix_.kind(r) == EventKind::kCpuOp && is_scalar_read_op(ix_.name(r));
        });
    if (!blocking_call && !waiting_scalar_read) return std::nullopt;
    std::optional<Row> op;
    for (Row r : stack)
      if (ix_.kind(r) == EventKind::kCpuOp && is_copy_op(ix_.name(r))) op = r;
    return op ? *op : inner;
  }

  std::int32_t innermost(const std::vector<Row>& stack, EventKind kind) const {
    for (Row r : stack)
      if (ix_.kind(r) == kind) return static_cast<std::int32_t>(r);
    return kNoEvent;
  }

  // The outermost cpu_op, else the outermost event that is not a profiler step.
  std::int32_t top_of(const std::vector<Row>& stack) const {
    for (auto it = stack.rbegin(); it != stack.rend(); ++it)
      if (ix_.kind(*it) == EventKind::kCpuOp) return static_cast<std::int32_t>(*it);
    for (auto it = stack.rbegin(); it != stack.rend(); ++it)
      if (!is_profiler_step(ix_.name(*it))) return static_cast<std::int32_t>(*it);
    return static_cast<std::int32_t>(stack.back());
  }

  // The innermost op or annotation (not a profiler step), else the innermost event.
  Row host_compute_holder(const std::vector<Row>& stack) const {
    for (Row r : stack)
      if (ix_.kind(r) == EventKind::kCpuOp) return r;
    for (Row r : stack)
      if (ix_.kind(r) == EventKind::kUserAnnotation && !is_profiler_step(ix_.name(r))) return r;
    return stack.front();
  }

  const index::EventIndex& ix_;
  std::vector<bool> launching_;  // a GPU launch happens at or below the row
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
        v = judge_.judge(stack_, gap.dur_ns, starved);
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
      if (!index::is_runtime_kind(ix_.kind(r))) continue;
      const std::string_view name = ix_.name(r);
      if (!(is_sync_call(name) || is_synchronous_copy_call(name) || is_async_copy_call(name) ||
            contains(name, "StreamWaitEvent")))
        continue;
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
      const Verdict v = judge_.judge(stack_, gap.dur_ns, starved);
      if (!found || v.cause < best.cause) best = v;
      found = true;
    }
    return best;
  }

  void add(std::int64_t from, std::int64_t to, const Verdict& v) {
    if (to <= from) return;
    out_.idle_ns[static_cast<std::size_t>(v.cause)] += to - from;
    if (out_.parts.size() > gap_part_begin_) {
      IdlePart& last = out_.parts.back();
      if (last.start_ns + last.dur_ns == from && last.cause == v.cause && last.holder == v.holder &&
          last.top == v.top && last.frame == v.frame) {
        last.dur_ns += to - from;
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
  // one as many as its stacks change: room for two a gap spares the common case every regrowth,
  // and the capacity it leaves untouched costs no pages.
  out.parts.reserve(2 * out.gaps.size());
  GapWalker walker(in, out);
  for (IdleGap& gap : out.gaps) walker.walk(gap);
  return out;
}

}  // namespace traceprism::model
