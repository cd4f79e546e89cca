// Rows appended to a frozen index as copies of other indices' rows, re-timed and placed on one
// of the index's own threads. Inference mode's capture merge uses it to graft the ops a capture
// trace recorded under each graph launch that replayed them (inference-mode spec §3.8).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "index/event_index.hpp"

namespace traceprism::index {

inline constexpr std::uint32_t kSyntheticRoot = 0xFFFFFFFFu;

struct RowCopy {
  std::uint32_t source = 0;  // position in `sources`
  Row row = 0;               // the source row; kSyntheticRoot: a new root row (see below)
  Row timing = 0;            // the base row whose ts, dur, pid and tid the copy takes
};

// `base` with `copies` appended in order (row base.size() + i is copies[i]). A copy keeps its
// source row's phase, name, category and args (shapes, args.kernel, collective args) but takes
// the timing row's time and thread; it carries no correlation or External id, because those
// numbers belong to the source trace and would link it to unrelated events of `base`. A
// kSyntheticRoot copy is a cuda_runtime row named `root_name`. Copies of GPU events are
// refused (std::invalid_argument): GPU time comes from `base` only.
EventIndex append_row_copies(EventIndex base, std::span<const EventIndex* const> sources,
                             std::span<const RowCopy> copies, std::string_view root_name);

// A pseudo op (inference-mode spec §4.2): a cpu_op the host inserts between an op and one of
// its launches, so that a GPU kernel of a composite op gets a perf model of its own.
struct PseudoOpRow {
  Row args_from = 0;     // the cpu_op whose shape args (Input Dims, ...) it carries
  Row placed_at = 0;     // the event whose thread and start it takes
  std::string name;      // "pseudo_op::moe_triton_unfused_up"
  std::string own_args;  // its other args as one compact JSON object
};

// `base` with `ops` appended in order as cpu_op rows of duration 0 and no ids, each marked as
// having no time of its own (EventIndex::has_time) and carrying its own args
// (EventIndex::pseudo_op_args).
EventIndex append_pseudo_ops(EventIndex base, std::span<const PseudoOpRow> ops);

// `index` with its cpu_ops renamed where `rename` returns a name (asked once per distinct name):
// inference mode's pseudo-op pass drops the call counter SGLang appends to its profiler ops.
EventIndex rename_cpu_ops(
    EventIndex index, const std::function<std::optional<std::string>(std::string_view)>& rename);

}  // namespace traceprism::index
