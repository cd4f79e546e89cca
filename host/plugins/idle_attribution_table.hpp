#pragma once

#include <cstdint>
#include <vector>

#include <traceprism/abi.h>

#include "model/idle_attribution.hpp"

namespace traceprism::plugins {

// model::IdleAttribution as the ABI 1.6 columns (traceprism_idle_attribution_v1), built once;
// the columns point into this object, which must outlive the run.
class IdleAttributionTable {
 public:
  // Takes the gaps and parts out of `attribution` (left empty; its totals, window and queues
  // stay): the gaps are copied into columns, the parts (columns already) moved.
  explicit IdleAttributionTable(model::IdleAttribution& attribution);
  IdleAttributionTable(const IdleAttributionTable&) = delete;
  IdleAttributionTable& operator=(const IdleAttributionTable&) = delete;

  const traceprism_idle_attribution_v1* table() const { return &table_; }

 private:
  static std::uint32_t row_or_none(std::int32_t row) {
    return row < 0 ? TRACEPRISM_NO_ROW : static_cast<std::uint32_t>(row);
  }
  // Each column is sized before it is filled: a serving trace has millions of gaps, and growing
  // the columns by doubling copied them and touched twice their pages.
  void copy_gaps(const std::vector<model::IdleGap>& gaps);
  void point_table_at_columns(const model::IdleAttribution& attribution);

  std::vector<std::int64_t> gap_start_, gap_dur_;
  std::vector<std::uint32_t> gap_next_, gap_launch_, gap_part_begin_, gap_part_count_;
  model::IdleParts parts_;  // the model's, moved: already in the ABI's column form
  std::vector<std::int32_t> stream_device_, stream_id_;
  std::vector<double> queue_mean_;
  std::vector<std::uint32_t> queue_max_;
  traceprism_idle_attribution_v1 table_{};
};

}  // namespace traceprism::plugins
