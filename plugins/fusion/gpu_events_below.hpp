// Each call-tree node's `gpu_events` as the reference's tree holds them (TraceLens
// add_gpu_ops_to_tree): the GPU events of every launch below the node, launches taken in file
// (row) order. Counts and kernel-time sums are kept for every node; the lists themselves only
// for the nodes asked for, since a deep python tree would repeat every launch ~40 times.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "fusion_inputs.hpp"
#include "row_groups.hpp"

namespace traceprism::fusion {

class GpuEventsBelow {
 public:
  explicit GpuEventsBelow(const TraceRows& rows);

  std::size_t count(std::size_t row) const { return count_[row]; }
  std::size_t kernel_count(std::size_t row) const { return kernels_[row]; }
  // Sum of the kernels' durations, added in gpu_events order (the reference's sum()).
  double kernel_time_us(std::size_t row) const { return kernel_us_[row]; }
  // The first GPU event below the row, -1 when none.
  std::int32_t first(std::size_t row) const { return first_[row]; }
  // A collective (nccl/rccl) kernel is among the row's GPU events.
  bool communication(std::size_t row) const { return communication_[row]; }
  // Whether the runtime/driver row launched any GPU event.
  bool launched_any(std::size_t row) const { return !launched_.of(row).empty(); }

  // The gpu_events lists of `nodes`, in the reference's order.
  std::map<std::int32_t, std::vector<std::int32_t>> lists(
      const std::vector<std::int32_t>& nodes) const;

 private:
  template <class Visit>
  void for_each_launch(Visit visit) const;

  const TraceRows& rows_;
  RowGroups launched_;  // GPU events per runtime/driver row
  std::vector<std::uint32_t> count_, kernels_;
  std::vector<double> kernel_us_;
  std::vector<std::int32_t> first_;
  std::vector<bool> communication_;
};

}  // namespace traceprism::fusion
