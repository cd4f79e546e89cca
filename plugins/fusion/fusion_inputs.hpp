// What the fusion analysis reads, as plain data: the trace's rows with both call trees, the
// unified perf summary's rows and the platform numbers. The analyzer fills it from the plugin
// Context (fusion_context.cpp); tests fill it from the host library, so the extraction and the
// estimates run the same code in both.
#pragma once

#include <traceprism/sdk.hpp>
#include <traceprism/support.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace traceprism::plugins::fusion {

// The event kinds the extraction tells apart (the reference's event categories).
enum class RowKind : std::uint8_t {
  kCpuOp,
  kPythonFunction,
  kRuntime,  // cuda_runtime / hip runtime calls
  kDriver,   // cuda_driver calls (cuLaunchKernel)
  kKernel,
  kGpuMemory,  // gpu_memcpy / gpu_memset
  kOther,      // annotations, flows, metadata, ...
};

inline bool is_gpu(RowKind k) {
  return k == RowKind::kKernel || k == RowKind::kGpuMemory;
}

// The trace's rows as the extraction reads them: views of the host's columns (a copy would cost
// ~40 bytes per event, 160 MB on a 1 GB trace), plus the one column of our own, the kind.
struct TraceRows {
  std::vector<RowKind> kind;
  EventView events{nullptr, nullptr, nullptr};
  // Parent in the call tree that nests python_function frames; -1 for roots / outside the tree.
  Span<const std::int32_t> python_parent;
  // The event's args["Input Dims"] as literal text ("[[1,512],[]]"), nullopt when absent.
  std::function<std::optional<std::string>(std::size_t row)> input_dims;

  std::size_t size() const { return kind.size(); }
  std::string_view name(std::size_t r) const { return events.name(static_cast<Row>(r)); }
  std::int64_t ts_ns(std::size_t r) const { return events.ts_ns(static_cast<Row>(r)); }
  // The reference's µs double of the duration.
  double dur_us(std::size_t r) const {
    return support::reference_us(events.dur_ns(static_cast<Row>(r)));
  }
  std::int32_t parent(std::size_t r) const { return python_parent[r]; }
  // For GPU rows: the runtime/driver row that launched it; -1 when unlinked.
  std::int32_t launcher(std::size_t r) const {
    const Row l = events.launcher(static_cast<Row>(r));
    return l == kNoRow ? -1 : static_cast<std::int32_t>(l);
  }
};

// One row of unified_perf_summary, the columns the fusion analysis reads (empty text and NaN
// where the cell is empty, as the reference's pandas reads them).
struct PerfRow {
  std::string name;
  std::string op_category;
  std::string input_dims;               // "((8944, 1024), (1024, 2816))"
  std::optional<double> data_moved_mb;  // "Data Moved (MB)"
  std::optional<double> gflops;         // "GFLOPS"
  std::optional<std::string> compute_spec;
  std::string perf_params;  // "{'M': 8944, ...}" or empty
  // The kernel names of kernel_details_summary as the reference's regex
  // `'name':\s*'([^']+)'` reads them from the cell, in order; nullopt when the cell is empty.
  std::optional<std::vector<std::string>> kernel_names;
};

// Roofline numbers (the reference's arch: mem_bw_gbps / 1000 and max_achievable_tflops).
struct Peaks {
  double hbm_tbs = 0;
  std::optional<double> matrix_bf16_tflops;
  std::optional<double> vector_bf16_tflops;
};

// Trace 1 of a comparison: TraceDiff's diff_stats (ABI 1.8), what comparative candidates are
// built from (analysis-rules §9.2). Entries without a divergence point are left out.
struct DiffKernel {
  std::string_view name;     // the host's text, valid for the run
  double dur_us = 0;         // diff_stats kernel_time
  std::int64_t lca_id = -1;  // the divergence point
};
struct TraceDiffInputs {
  std::vector<DiffKernel> trace1;                                 // trace 1's entries
  std::map<std::int64_t, std::vector<DiffKernel>> trace2_by_lca;  // in diff_stats order

  void add_trace1(std::int32_t row, const DiffKernel& k) {
    if (static_cast<std::size_t>(row) >= at_row_.size())
      at_row_.resize(static_cast<std::size_t>(row) + 1, -1);
    at_row_[static_cast<std::size_t>(row)] = static_cast<std::int32_t>(trace1.size());
    trace1.push_back(k);
  }
  // Trace 1's entry of a GPU row; null when diff_stats does not list it.
  const DiffKernel* trace1_at(std::int32_t row) const {
    if (row < 0 || static_cast<std::size_t>(row) >= at_row_.size() || at_row_[row] < 0)
      return nullptr;
    return &trace1[static_cast<std::size_t>(at_row_[row])];
  }

 private:
  std::vector<std::int32_t> at_row_;  // by row: index into trace1, -1 for none
};

struct FusionInputs {
  TraceRows rows;
  std::vector<PerfRow> unified;
  // The events unified_perf_summary stands for, in the report's order (the host's list, ABI
  // 1.3): the leaf ops the sibling pass groups by parent.
  Span<const Row> unified_events;
  Peaks peaks;
  double baseline_ms = 0;                     // gpu_timeline total_time
  std::optional<TraceDiffInputs> trace_diff;  // comparisons only
};

}  // namespace traceprism::plugins::fusion
