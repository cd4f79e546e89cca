// Inference mode's capture merge (inference-mode spec §3): every graph launch of a serving step
// gets a copy of the ops its capture trace recorded (re-timed to the launch, spec §3.8), and
// each replayed kernel the captured launch call it aligned with (§3.9), so that replayed GPU
// time is attributed to real ops with shapes instead of to the graph launch.
//
// The plan is computed here; applying it appends the copies to the replay's index
// (index::append_row_copies), places them with CallTree's grafts and relinks the kernels with
// LaunchLinks::build(index, relinks). Departure from the reference (spec §10 item 4): a pair
// that cannot be aligned is skipped alone instead of discarding every merge.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "index/event_index.hpp"
#include "index/row_copies.hpp"
#include "model/call_tree.hpp"
#include "model/capture_alignment.hpp"
#include "model/capture_folder.hpp"
#include "model/capture_lists.hpp"
#include "model/launch_links.hpp"

namespace traceprism::model {

// A capture trace read for the merge.
struct CaptureSource {
  const index::EventIndex* index = nullptr;
  std::vector<CaptureWindow> windows;
};

// Reads the capture trace an entry names (the pipeline's job); nullptr when it cannot.
using CaptureLoader = std::function<const CaptureSource*(const CaptureTrace& entry)>;

// Why graph launches were left unmerged (their kernels stay under the launch).
enum class MergeSkip : std::uint8_t {
  kNoCapture,           // no capture of the step's batch size or larger
  kCaptureUnread,       // the chosen capture file is missing or unreadable
  kWindowCount,         // neither one capture window nor one per graph launch
  kNothingReplayed,     // the launch ran no GPU event
  kUnnamedMultiStream,  // several streams, and a captured launch without args.kernel
  kNotAligned,          // the calls and kernels do not align (spec §3.7)
  kCount,
};
std::string_view merge_skip_reason(MergeSkip skip);

struct CaptureMergeSummary {
  std::size_t steps = 0;              // serving steps that replay graphs
  std::size_t graph_launches = 0;     // their graph launches
  std::size_t merged_launches = 0;    // launches that received a copy of their capture
  std::size_t attributed_events = 0;  // replayed GPU events given a captured launch call
  std::size_t copied_rows = 0;
  // Set when only the events leading to launch calls were copied: the rows a full copy needed.
  std::size_t full_copy_rows = 0;
  std::array<std::size_t, static_cast<std::size_t>(MergeSkip::kCount)> skipped{};  // launches
  std::vector<std::string> captures_used;  // file names, in first use
};

struct CaptureMergePlan {
  std::vector<const index::EventIndex*> sources;  // RowCopy::source indexes this
  std::vector<index::RowCopy> copies;             // appended after the replay's rows
  Grafts grafts;                                  // the copies' parents
  std::vector<std::pair<Row, Row>> relinks;       // (replayed GPU row, copied launch call row)
  CaptureMergeSummary summary;
};

struct CaptureMergeOptions {
  // Copy python frames too (call stacks and module names need them; they are ~90 % of a
  // capture list, so analyses that do not read them leave them out).
  bool include_python = false;
  // Copy only the events that lead to a launch call (ops without GPU work left out): a decode
  // trace replays its graph thousands of times, and attribution needs no more. The reference
  // copies everything (its perf sheets list kernel-less ops too).
  bool only_launch_paths = false;
  // When a copy with python frames left out would make more rows than this, copy as with
  // include_python false and only_launch_paths true, and say so in summary.full_copy_rows
  // (the pipeline's guard against a merge that outgrows the trace). 0: never.
  std::size_t prune_above_rows = 0;
};

// Spec §3.2-§3.9 over the replay's serving steps (§2.2). `links` are the replay's own.
CaptureMergePlan plan_capture_merge(const index::EventIndex& replay, const LaunchLinks& links,
                                    const std::vector<CaptureTrace>& entries,
                                    const CaptureLoader& load,
                                    const CaptureMergeOptions& options = {});

// The name of the synthetic row that parents each copy (the reference's CaptureRoot).
inline constexpr std::string_view kCaptureRootName = "CaptureRoot";

}  // namespace traceprism::model
