#include "model/capture_lists.hpp"

#include <algorithm>
#include <deque>
#include <string>
#include <unordered_map>

#include "io/ascii_text.hpp"

namespace traceprism::model {

namespace {

bool contains(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

void sort_by_start(const index::EventIndex& index, std::vector<Row>& rows) {
  std::stable_sort(rows.begin(), rows.end(),
                   [&](Row a, Row b) { return index.ts_ns(a) < index.ts_ns(b); });
}

// The rows of kind cuda_runtime named like `marker`, in file order.
std::vector<Row> runtime_calls_named(const index::EventIndex& index, std::string_view marker) {
  std::vector<Row> out;
  for (Row r : index.rows_of_kind(index::EventKind::kCudaRuntime))
    if (index.valid(r) && contains(index.name(r), marker)) out.push_back(r);
  std::sort(out.begin(), out.end());
  return out;
}

CaptureWindow capture_window(const index::EventIndex& capture, const CallTree& tree,
                             std::int64_t start, std::int64_t end) {
  auto inside = [&](Row r) {
    return capture.valid(r) && capture.ts_ns(r) >= start &&
           capture.ts_ns(r) + capture.dur_ns(r) <= end;
  };
  std::deque<Row> queue;
  for (index::EventKind kind : {index::EventKind::kCpuOp, index::EventKind::kPythonFunction})
    for (Row r : capture.rows_of_kind(kind))
      if (inside(r) && tree.parent(r) != kNoParent && !inside(static_cast<Row>(tree.parent(r))))
        queue.push_back(r);
  std::sort(queue.begin(), queue.end());  // the roots in file order
  const std::size_t roots = queue.size();
  CaptureWindow window;
  while (!queue.empty()) {
    const Row r = queue.front();
    queue.pop_front();
    window.members.push_back(r);
    for (Row child : tree.children(r)) queue.push_back(child);
  }
  // Stable by start: ties keep breadth-first order, so a parent stays before its children.
  std::vector<std::uint32_t> order(window.members.size());
  for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return capture.ts_ns(window.members[a]) < capture.ts_ns(window.members[b]);
  });
  std::unordered_map<Row, std::int32_t> position;
  std::vector<Row> members;
  for (std::uint32_t i : order) {
    position.emplace(window.members[i], static_cast<std::int32_t>(members.size()));
    members.push_back(window.members[i]);
  }
  window.members = std::move(members);
  window.parent.reserve(window.members.size());
  for (std::uint32_t i = 0; i < window.members.size(); ++i) {
    const Row r = window.members[i];
    const auto p = position.find(static_cast<Row>(tree.parent(r)));
    const bool root = order[i] < roots;  // breadth first: the roots were taken first
    window.parent.push_back(root || p == position.end() ? -1 : p->second);
    if (!index::is_runtime_kind(capture.kind(r))) continue;
    const std::string name = io::ascii_lower(capture.name(r));
    if (contains(name, "launch") || contains(name, "memcpy") || contains(name, "memset")) {
      window.launch_calls.push_back(r);
      window.launch_positions.push_back(i);
    }
  }
  return window;
}

}  // namespace

std::vector<CaptureWindow> capture_windows(const index::EventIndex& capture, const CallTree& tree) {
  const std::vector<Row> begins = runtime_calls_named(capture, "StreamBeginCapture");
  const std::vector<Row> ends = runtime_calls_named(capture, "StreamEndCapture");
  std::vector<CaptureWindow> windows;
  for (std::size_t k = 0; k < std::min(begins.size(), ends.size()); ++k)
    windows.push_back(capture_window(capture, tree,
                                     capture.ts_ns(begins[k]) + capture.dur_ns(begins[k]),
                                     capture.ts_ns(ends[k])));
  for (CaptureWindow& w : windows) {
    w.calls = captured_calls(capture, w.launch_calls);
    w.leads_to_launch.assign(w.members.size(), false);
    for (std::uint32_t position : w.launch_positions)
      for (auto p = static_cast<std::int32_t>(position); p >= 0 && !w.leads_to_launch[p];
           p = w.parent[static_cast<std::size_t>(p)])
        w.leads_to_launch[static_cast<std::size_t>(p)] = true;
  }
  return windows;
}

std::vector<std::vector<Row>> capture_launch_lists(const index::EventIndex& capture,
                                                   const CallTree& tree) {
  std::vector<std::vector<Row>> lists;
  for (CaptureWindow& w : capture_windows(capture, tree))
    lists.push_back(std::move(w.launch_calls));
  return lists;
}

std::vector<Row> graph_launches(const index::EventIndex& replay) {
  std::unordered_map<index::StringId, bool> is_graph_launch;  // per distinct name
  std::vector<Row> out;
  for (index::EventKind kind : {index::EventKind::kCudaRuntime, index::EventKind::kCudaDriver})
    for (Row r : replay.rows_of_kind(kind)) {
      auto [it, inserted] = is_graph_launch.try_emplace(replay.name_id(r), false);
      if (inserted) it->second = contains(io::ascii_lower(replay.name(r)), "graphlaunch");
      if (it->second && replay.valid(r)) out.push_back(r);
    }
  std::sort(out.begin(), out.end());
  sort_by_start(replay, out);
  return out;
}

std::vector<Row> graph_launches_in(const index::EventIndex& replay,
                                   const std::vector<Row>& launches, Row step) {
  const std::int64_t start = replay.ts_ns(step), end = start + replay.dur_ns(step);
  auto first = std::lower_bound(launches.begin(), launches.end(), start,
                                [&](Row r, std::int64_t t) { return replay.ts_ns(r) < t; });
  std::vector<Row> out;
  for (auto it = first; it != launches.end() && replay.ts_ns(*it) <= end; ++it)
    if (replay.ts_ns(*it) + replay.dur_ns(*it) <= end) out.push_back(*it);
  return out;
}

std::vector<Row> replayed_gpu_events(const index::EventIndex& replay, const LaunchLinks& links,
                                     Row graph_launch) {
  const std::span<const Row> launched = links.launched(graph_launch);
  std::vector<Row> out(launched.begin(), launched.end());
  std::sort(out.begin(), out.end());
  sort_by_start(replay, out);
  return out;
}

std::vector<CapturedCall> captured_calls(const index::EventIndex& capture,
                                         const std::vector<Row>& calls) {
  std::vector<CapturedCall> out;
  for (Row r : calls) {
    CapturedCall c{std::string(capture.name(r)), std::nullopt};
    if (const auto kernel = capture.launch_kernel(r)) c.kernel = std::string(*kernel);
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<ReplayedEvent> replayed_events(const index::EventIndex& replay,
                                           const std::vector<Row>& events) {
  std::vector<ReplayedEvent> out;
  for (Row r : events) {
    ReplayedEvent g{std::string(replay.name(r)), std::nullopt};
    if (const auto args = replay.gpu_stream(r); args && args->stream_in_args)
      g.stream = args->stream;
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace traceprism::model
