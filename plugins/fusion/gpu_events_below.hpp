// Each call-tree node's `gpu_events` as the reference's tree holds them (TraceLens
// add_gpu_ops_to_tree): the GPU events of every launch below the node, launches taken in file
// (row) order. Counts and kernel-time sums are kept for every node with a GPU event below it;
// the lists themselves only for the nodes asked for, since a deep python tree would repeat every
// launch ~40 times.
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "fusion_inputs.hpp"

namespace traceprism::plugins::fusion {

class GpuEventsBelow {
 public:
  explicit GpuEventsBelow(const TraceRows& rows);

  // For call-tree nodes above a launch (cpu ops, python frames, annotations); launch calls
  // themselves get no figures.
  std::size_t count(std::size_t row) const { return has(row) ? count_[slot_[row]] : 0; }
  std::size_t kernel_count(std::size_t row) const { return has(row) ? kernels_[slot_[row]] : 0; }
  // Sum of the kernels' durations, added in gpu_events order (the reference's sum()).
  double kernel_time_us(std::size_t row) const { return has(row) ? kernel_us_[slot_[row]] : 0.0; }
  // The first GPU event below the row, -1 when none.
  std::int32_t first(std::size_t row) const { return has(row) ? first_[slot_[row]] : -1; }

  // The gpu_events lists of `nodes`, in the reference's order.
  std::map<std::int32_t, std::vector<std::int32_t>> lists(
      const std::vector<std::int32_t>& nodes) const;

 private:
  static constexpr std::uint32_t kNoSlot = UINT32_MAX;

  bool has(std::size_t row) const { return slot_[row] != kNoSlot; }
  template <class Visit>
  void for_each_launch(Visit visit) const;

  const TraceRows& rows_;
  // (launcher row, GPU row), by launcher then GPU row: ~0.1 of the rows, where a per-row
  // offset column would cost 4 B for every row.
  std::vector<std::pair<std::int32_t, std::int32_t>> launches_;
  // Only nodes with GPU events below (about a third of the rows of a trace) get figures, one
  // array per figure (a struct would be padded to 24 bytes).
  std::vector<std::uint32_t> slot_;
  std::vector<std::uint32_t> count_, kernels_;
  std::vector<double> kernel_us_;
  std::vector<std::int32_t> first_;
};

}  // namespace traceprism::plugins::fusion
