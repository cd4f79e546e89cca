// Model identification (analysis-rules.md §15): which model family, architecture, scale and
// precision a trace shows. The reference asks an LLM; these are the spec's deterministic rules.
// A field without evidence reads "Cannot be inferred from trace": nothing is guessed.
#pragma once

#include <string>
#include <vector>

#include "findings/layer_structure.hpp"
#include "index/event_index.hpp"
#include "perf_report/unified_perf_table.hpp"

namespace traceprism::index {
class EventIndex;
}

namespace traceprism::findings {

inline constexpr const char* kCannotInfer = "Cannot be inferred from trace";

struct ModelInfo {
  std::string model = kCannotInfer;
  std::string architecture = kCannotInfer;
  std::string scale = kCannotInfer;
  std::string precision = kCannotInfer;
};

// What the rules look at: nn.Module class names, the unified perf summary's op rows with their
// kernels, and the layer sequence of one forward pass.
struct ModelEvidence {
  // Class names of `nn.Module: <Class>_<n>` spans with the `_<n>` suffix removed; sorted, unique.
  std::vector<std::string> module_classes;
  struct Op {
    std::string name;        // aten::addmm
    std::string category;    // the op category key: gemm, conv_fwd, sdpa_fwd, ...
    std::string input_dims;  // Python literal cells
    std::string input_type;
    double kernel_time_us = 0;  // Kernel Time (µs)_sum
    double count = 0;           // operation_count
    struct Kernel {
      std::string name;
      double us = 0;  // total duration
    };
    std::vector<Kernel> kernels;  // the row's kernel summary
  };
  std::vector<Op> ops;
  std::vector<Layer> layers;  // forward_layers(): empty without an index
};

// Module class names and the forward layers from the trace's events (index may be null) and op
// rows from the typed unified_perf_summary (may be null).
ModelEvidence gather_model_evidence(const index::EventIndex* index,
                                    const perf_report::UnifiedPerfTable* unified);

ModelInfo identify_model(const ModelEvidence& evidence);

// Precision a matrix kernel's name states ("BF16", "FP16", "TF32", "FP32", "FP8", "MXFP4"), or
// "" when the name states none or is not a GEMM / convolution kernel.
std::string kernel_name_precision(std::string_view kernel_name);

// model_info.json: {"model", "architecture", "scale", "precision"} (the reference's
// metadata/model_info.json).
std::string model_info_json(const ModelInfo& info);

}  // namespace traceprism::findings
