// Which GPU kernels activation checkpointing recomputed: forward ops that run again inside the
// backward pass, under a checkpoint region (diagnosis.md §6.3). See
// docs/analyzers/recompute/recompute.md for the rules.
#pragma once

#include <traceprism/sdk.hpp>

#include <cstddef>
#include <string_view>
#include <vector>

namespace traceprism::plugins::recompute {

// What an event of the host call tree says about the code running under it.
enum class Marker {
  kNone,              // neither gradient nor checkpoint code
  kGradient,          // a gradient computation: autograd node, backward op, the engine's frames
  kCheckpointNode,    // CheckpointFunctionBackward (reentrant checkpointing's backward node)
  kCheckpointFrame,   // a python frame of torch/utils/checkpoint.py (any checkpoint flavour)
  kEngineEvaluation,  // autograd::engine::evaluate_function: <node> of a non-checkpoint node
};

// The marker of an event, from its kind and name.
Marker marker_of(Kind kind, std::string_view name);

// One recomputed GPU kernel: a computation kernel of the timeline (linked to its launch) whose
// launch sits under a forward op inside a checkpoint region of the backward pass.
struct RecomputedKernel {
  Row kernel = kNoRow;
  Row op = kNoRow;      // the innermost cpu_op above the launch (the op that launched it)
  Row top = kNoRow;     // the outermost cpu_op of the rerun, below the checkpoint region
  Row region = kNoRow;  // the outermost checkpoint marker of that region
};

struct RecomputeScan {
  bool has_backward = false;              // the trace runs autograd nodes (a backward pass)
  bool has_checkpoint = false;            // it has a checkpoint marker (forward or backward)
  std::vector<RecomputedKernel> kernels;  // in (ts, row) order of the kernels
  std::size_t region_count() const;       // distinct regions the kernels come from
};

// Scans the trace's computation kernels (the ones Context::timeline() counts: linked to a
// launch) for recompute.
RecomputeScan scan_recompute(const Context& ctx);

}  // namespace traceprism::plugins::recompute
