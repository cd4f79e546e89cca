#include "recomputed_kernels.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>
#include <unordered_map>

namespace traceprism::plugins::recompute {
namespace {

bool has(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}
bool starts(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

constexpr std::string_view kEvaluate = "autograd::engine::evaluate_function:";

// A cpu_op that computes gradients: an autograd node (`AddmmBackward0`, `CudnnConvolutionBackward`,
// `torch::autograd::AccumulateGrad`, a custom Function's `MyFnBackward`) or a backward ATen op
// (`aten::convolution_backward`, `aten::native_layer_norm_backward`,
// `aten::cudnn_convolution_backward_input`, `aten::_scaled_dot_product_flash_attention_backward`).
bool gradient_op(std::string_view name) {
  return has(name, "Backward") || has(name, "_backward") || has(name, "AccumulateGrad") ||
         has(name, "GraphRoot");
}

// The python frames of the autograd engine's entry points (`torch/autograd/__init__.py(267):
// backward`, `torch/autograd/graph.py(768): _engine_run_backward`, `...: grad`): under them,
// reentrant checkpointing backpropagates through the recomputed block.
bool autograd_frame(std::string_view name) {
  const bool engine_file = has(name, "torch/autograd/") || has(name, "torch\\autograd\\");
  const std::size_t colon = name.rfind("): ");
  if (!engine_file || colon == std::string_view::npos) return false;
  const std::string_view function = name.substr(colon + 3);
  return has(function, "backward") || function == "grad";
}

bool checkpoint_frame(std::string_view name) {
  return has(name, "torch/utils/checkpoint.py") || has(name, "torch\\utils\\checkpoint.py") ||
         has(name, "torch.utils.checkpoint");
}

// How the walk up from one launch ended.
struct Verdict {
  bool recomputed = false;
  Row op = kNoRow, top = kNoRow, region = kNoRow;
};

class Scanner {
 public:
  explicit Scanner(const Context& ctx) : ctx_(ctx), ev_(ctx.events()) {}

  RecomputeScan scan() {
    RecomputeScan out;
    note_markers(out);
    if (!out.has_backward || !out.has_checkpoint) return out;  // no finding can be proved
    // Only now: the host builds the tree with python frames on first use.
    python_parents_ = ctx_.python_tree_parents();
    std::vector<Row> kernels;
    for (Kind kind : {Kind::kKernel, Kind::kMemcpy, Kind::kMemset})
      for (Row r : ctx_.rows(kind))
        if (ev_.gpu_class(r) == GpuClass::kComputation && ev_.launcher(r) != kNoRow)
          kernels.push_back(r);
    std::sort(kernels.begin(), kernels.end(), [&](Row a, Row b) {
      return ev_.ts_ns(a) != ev_.ts_ns(b) ? ev_.ts_ns(a) < ev_.ts_ns(b) : a < b;
    });
    for (Row k : kernels) {
      const Verdict v = verdict_of(ev_.launcher(k));
      if (v.recomputed) out.kernels.push_back({k, v.op, v.top, v.region});
    }
    return out;
  }

 private:
  Marker marker(Row r) {
    const StringId id = ev_.name_id(r);
    const Kind kind = ev_.kind(r);
    const std::uint64_t key =
        (static_cast<std::uint64_t>(id) << 8) | static_cast<std::uint8_t>(kind);
    auto it = markers_.find(key);
    if (it == markers_.end()) it = markers_.emplace(key, marker_of(kind, ev_.name(r))).first;
    return it->second;
  }

  // The call tree with python frames when the host has it, else the plain one (then only the
  // CheckpointFunctionBackward node marks a region).
  Row parent(Row r) const {
    if (python_parents_.size() == ev_.size()) {
      const std::int32_t p = python_parents_[r];
      return p < 0 ? kNoRow : static_cast<Row>(p);
    }
    return ev_.parent(r);
  }

  void note_markers(RecomputeScan& out) {
    for (Row r : ctx_.rows(Kind::kCpuOp)) {
      const Marker m = marker(r);
      if (m == Marker::kGradient || m == Marker::kEngineEvaluation) out.has_backward = true;
      if (m == Marker::kCheckpointNode) out.has_backward = out.has_checkpoint = true;
    }
    for (Row r : ctx_.rows(Kind::kPythonFunction))
      if (marker(r) == Marker::kCheckpointFrame) out.has_checkpoint = true;
  }

  // Innermost first: the first gradient or checkpoint marker above the launch decides. A
  // checkpoint frame proves a recompute only inside the backward pass (the checkpointed
  // block's first forward runs under the same file's frames).
  Verdict verdict_of(Row launch) {
    Verdict v;
    Row p = parent(launch);
    for (; p != kNoRow; p = parent(p)) {
      const Marker m = marker(p);
      if (m == Marker::kGradient || m == Marker::kEngineEvaluation) return {};
      if (m == Marker::kCheckpointNode || m == Marker::kCheckpointFrame) break;
      if (ev_.kind(p) != Kind::kCpuOp) continue;
      if (v.op == kNoRow) v.op = p;
      v.top = p;
    }
    if (p == kNoRow) return {};
    bool backward = false;
    for (; p != kNoRow; p = parent(p)) {
      const Marker m = marker(p);
      if (m == Marker::kCheckpointNode) backward = true;
      if (m == Marker::kCheckpointNode || m == Marker::kCheckpointFrame) {
        v.region = p;
      } else if (m == Marker::kGradient || m == Marker::kEngineEvaluation) {
        backward = true;
        break;
      }
    }
    v.recomputed = backward || dedicated_autograd_thread(ev_.thread(v.region));
    return v;
  }

  // A thread whose outermost ops are all autograd work (or reruns under checkpoint frames):
  // the engine's device thread. A checkpoint frame on it is a recompute even where the tree
  // lost the node above the frame.
  bool dedicated_autograd_thread(Row thread) {
    // Threads are read only here: on hosts from ABI 1.4 they cost the full event columns.
    if (!autograd_threads_) {
      autograd_threads_.emplace();
      for (Row r : ctx_.rows(Kind::kCpuOp))
        if (marker(r) == Marker::kEngineEvaluation) autograd_threads_->insert(ev_.thread(r));
    }
    if (!autograd_threads_->count(thread)) return false;
    auto it = dedicated_.find(thread);
    if (it != dedicated_.end()) return it->second;
    bool dedicated = true;
    for (Row r : ctx_.rows(Kind::kCpuOp)) {
      if (outermost_op(r) && ev_.thread(r) == thread && !autograd_work(r)) {
        dedicated = false;
        break;
      }
    }
    dedicated_.emplace(thread, dedicated);
    return dedicated;
  }

  // No cpu_op above it in the call tree.
  bool outermost_op(Row r) const {
    for (Row p = ev_.parent(r); p != kNoRow; p = ev_.parent(p))
      if (ev_.kind(p) == Kind::kCpuOp) return false;
    return true;
  }

  // An autograd node or gradient op, or an op under a checkpoint frame.
  bool autograd_work(Row op) {
    const Marker m = marker(op);
    if (m != Marker::kNone) return true;
    for (Row p = parent(op); p != kNoRow; p = parent(p))
      if (marker(p) == Marker::kCheckpointFrame) return true;
    return false;
  }

  const Context& ctx_;
  const EventView ev_;
  Span<const std::int32_t> python_parents_;            // empty until scan() needs it
  std::unordered_map<std::uint64_t, Marker> markers_;  // by (name id, kind)
  std::optional<std::set<Row>> autograd_threads_;      // threads running evaluate_function ops
  std::unordered_map<Row, bool> dedicated_;
};

}  // namespace

Marker marker_of(Kind kind, std::string_view name) {
  if (kind == Kind::kCpuOp) {
    if (has(name, "CheckpointFunctionBackward")) return Marker::kCheckpointNode;
    if (starts(name, kEvaluate)) return Marker::kEngineEvaluation;
    if (gradient_op(name)) return Marker::kGradient;
    return Marker::kNone;
  }
  // Python frames only: user annotations are not in the host's call tree.
  if (kind != Kind::kPythonFunction) return Marker::kNone;
  if (checkpoint_frame(name)) return Marker::kCheckpointFrame;
  if (autograd_frame(name)) return Marker::kGradient;
  return Marker::kNone;
}

std::size_t RecomputeScan::region_count() const {
  std::set<Row> regions;
  for (const RecomputedKernel& k : kernels) regions.insert(k.region);
  return regions.size();
}

RecomputeScan scan_recompute(const Context& ctx) {
  return Scanner(ctx).scan();
}

}  // namespace traceprism::plugins::recompute
