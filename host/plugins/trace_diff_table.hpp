#pragma once

#include <traceprism/abi.h>

#include <cstdint>
#include <vector>

#include "comparison/diff_stats.hpp"

namespace traceprism::plugins {

// TraceDiff's diff_stats rows as the ABI 1.8 columns (traceprism_trace_diff_v1), built once for
// trace 1 of a comparison; the columns point into this object, which must outlive the run.
class TraceDiffTable {
 public:
  // The names point into the traces' string pools, which outlive the run.
  TraceDiffTable(const comparison::DiffStats& stats, const index::EventIndex& trace1,
                 const index::EventIndex& trace2);
  TraceDiffTable(const TraceDiffTable&) = delete;
  TraceDiffTable& operator=(const TraceDiffTable&) = delete;

  const traceprism_trace_diff_v1* table() const { return &table_; }

 private:
  std::vector<std::uint8_t> source_;
  std::vector<std::uint32_t> gpu_row_;
  std::vector<std::int64_t> lca_id_;
  std::vector<double> kernel_time_us_, busy_time_us_;
  std::vector<traceprism_str> names_;
  traceprism_trace_diff_v1 table_{};
};

}  // namespace traceprism::plugins
