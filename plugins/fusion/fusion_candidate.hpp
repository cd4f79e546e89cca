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
  double total_kernel_time_us = 0;        // over all instances
  std::optional<std::string> input_dims;  // the defining event's Input Dims literal
  bool sibling_sequence = false;          // source "sibling_sequence"
};

}  // namespace traceprism::plugins::fusion
