// A kernel fusion candidate as the reference's fusion_candidates.json holds it (standalone
// schema, analysis-rules §9.1).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace traceprism::plugins::fusion {

struct CandidateKernel {
  std::string name;
  std::string type;  // classify_kernel(name)
  double dur_us = 0;
  bool eligible = true;       // module walk: no collective/copy/already-fused marker in the name
  std::int64_t gpu_row = -1;  // gpu_op_uid
  std::string op;             // sibling sequences: the op that launched it
  std::optional<double> data_in_mb, data_out_mb;
};

struct FusionCandidate {
  std::string module_name;  // the tree event's name ("nn.Module: Qwen2MLP_0", "aten::mm", ...)
  std::string base_name;    // module_name without "nn.Module: " and a trailing "_<digits>"
  std::vector<std::string> parent_chain;  // ancestors' cleaned names, inner to outer
  int instance_count = 1;
  int kernel_count = 0;
  int eligible_kernel_count = 0;
  std::vector<CandidateKernel> kernels;
  bool has_fused_kernel = false;
  // The reference's figure: the sum over all instances, except for narrowed attention (the
  // first instance's span × the instance count).
  double total_kernel_time_us = 0;
  // diagnosis.md §6.2: what the candidate's kernels took, summed over its instances, each
  // instance with its own kernels (an instance nested in another of the same name adds nothing;
  // narrowed attention sums each instance's own QK^T .. PV span). Never above the time of the
  // kernels the instances cover.
  double measured_time_us = 0;
  // Where the instances' kernels are, for the union of what candidates cover: the tree-walk
  // instances (their subtrees), and the GPU rows of each instance where they are spelled out
  // (sibling ops, narrowed attention).
  std::vector<std::int32_t> instance_rows;
  std::vector<std::vector<std::int32_t>> instance_kernel_rows;
  // Narrowed attention: each instance's own kernels, so that savings are modelled per instance
  // rather than extrapolated from the first (a temporal attention's GEMM-heavy instance next to
  // spatial ones whose softmax dominates; diagnosis.md §6.2).
  struct InstanceKernel {
    std::string name;
    double dur_us = 0;
  };
  std::vector<std::vector<InstanceKernel>> instance_kernels;
  std::optional<std::string> input_dims;  // the defining event's Input Dims literal
  bool sibling_sequence = false;          // source "sibling_sequence"
  bool narrowed_attention = false;        // kernels cut to QK^T .. PV
  // Comparative candidates (analysis-rules §9.2): `kernels` are trace 1's, these the kernels
  // trace 2 runs for the same divergence points (TraceDiff), summed over the instances.
  struct TraceTwo {
    std::vector<CandidateKernel> kernels;
    double total_kernel_time_us = 0;
    // The kernels trace 1 runs beyond trace 2's count (its shortest ones), summed over the
    // instances: the most that fusing them away can save.
    double extra_kernel_time_us = 0;
  };
  std::optional<TraceTwo> trace2;
};

}  // namespace traceprism::plugins::fusion
