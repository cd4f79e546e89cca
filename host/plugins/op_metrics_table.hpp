#pragma once

#include <traceprism/abi.h>

#include <cstdint>
#include <deque>
#include <vector>

#include "perf_report/unified_perf_table.hpp"

namespace traceprism::plugins {

// The unified_perf_summary as the ABI's typed columns (traceprism_op_metrics_v1, host API
// op_metrics, ABI 1.5), built once from the report's groups (build_perf_report's
// unified_table), which it keeps: the view's texts point into them. Every number is the double
// the sheet's cell prints; NaN where the cell is empty, including the perf-model and roofline
// columns of a sheet that has none; a None text has data == NULL.
class OpMetricsTable {
 public:
  // `gpu_total_ms`: gpu_timeline's total_time as the sheet prints it (total_us / 1e3).
  OpMetricsTable(perf_report::UnifiedPerfTable table, double gpu_total_ms);
  OpMetricsTable(const OpMetricsTable&) = delete;
  OpMetricsTable& operator=(const OpMetricsTable&) = delete;

  const traceprism_op_metrics_v1* view() const { return &view_; }
  const perf_report::UnifiedPerfTable& table() const { return table_; }

 private:
  // ABI 1.8: trace 1 of a comparison gets the TraceDiff columns.
  template <typename Numbers>
  void add_lca_columns(Numbers& numbers);

  perf_report::UnifiedPerfTable table_;
  std::deque<std::vector<traceprism_str>> texts_;
  std::deque<std::vector<double>> numbers_;
  std::vector<std::uint64_t> ex_uid_, operation_count_, kernel_calls_;
  std::vector<std::int32_t> bound_;
  std::vector<std::uint8_t> has_perf_model_;
  std::vector<std::uint32_t> kernel_begin_, kernel_count_, extra_begin_, extra_count_;
  std::vector<std::int64_t> kernel_stream_;
  std::vector<std::uint64_t> gpu_begin_;
  std::vector<std::uint32_t> gpu_count_, gpu_rows_;
  traceprism_op_metrics_v1 view_{};
};

}  // namespace traceprism::plugins
