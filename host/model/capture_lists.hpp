// The two lists the capture merge aligns (inference-mode spec §3.2, §3.4, §3.6): a capture
// trace's launch calls per stream-capture window, and the GPU events one graph launch of the
// replay trace ran.
#pragma once

#include <vector>

#include "index/event_index.hpp"
#include "model/call_tree.hpp"
#include "model/capture_alignment.hpp"
#include "model/launch_links.hpp"

namespace traceprism::model {

// One stream-capture window of a capture trace (spec §3.4): its capture list, i.e. the subtrees
// of the window's roots breadth first and then stably by start time (a parent always comes
// before its children), and the launch calls the alignment pairs with replayed kernels.
struct CaptureWindow {
  std::vector<Row> members;
  // Per member: its parent's position in `members`, or -1 for a root (whose parent is the
  // merge's synthetic CaptureRoot).
  std::vector<std::int32_t> parent;
  std::vector<Row> launch_calls;
  std::vector<std::uint32_t> launch_positions;  // the launch calls' positions in `members`
  std::vector<CapturedCall> calls;              // the launch calls as the alignment reads them
  // Per member: a launch call is the member itself or below it (the part of the capture that
  // kernel attribution needs).
  std::vector<bool> leads_to_launch;
};

// Spec §3.4: the windows of every pair of the k-th StreamBeginCapture and k-th StreamEndCapture.
// `tree` must include python frames.
std::vector<CaptureWindow> capture_windows(const index::EventIndex& capture, const CallTree& tree);

// Spec §3.4: per pair of the k-th StreamBeginCapture and the k-th StreamEndCapture, the window
// between them; its roots are the cpu_ops and python frames inside it whose parent is outside
// (QUIRK kept: parentless ones are dropped); their subtrees, breadth first and then stably by
// start time, are the capture list, and its runtime/driver calls with "launch", "memcpy" or
// "memset" in their name the launch list returned here. `tree` must include python frames.
std::vector<std::vector<Row>> capture_launch_lists(const index::EventIndex& capture,
                                                   const CallTree& tree);

// Spec §3.2: the trace's graph launches (a name containing "graphlaunch", any case), by start
// time, and those of them inside a step's host range.
std::vector<Row> graph_launches(const index::EventIndex& replay);
std::vector<Row> graph_launches_in(const index::EventIndex& replay,
                                   const std::vector<Row>& launches, Row step);

// Spec §3.6: the kernels, copies and memsets a graph launch ran, by start time (file order on
// ties).
std::vector<Row> replayed_gpu_events(const index::EventIndex& replay, const LaunchLinks& links,
                                     Row graph_launch);

// The alignment's inputs: name and args.kernel of each call, name and args.stream of each event.
std::vector<CapturedCall> captured_calls(const index::EventIndex& capture,
                                         const std::vector<Row>& calls);
std::vector<ReplayedEvent> replayed_events(const index::EventIndex& replay,
                                           const std::vector<Row>& events);

}  // namespace traceprism::model
