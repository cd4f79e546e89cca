#pragma once

#include <span>
#include <vector>

#include "index/event_index.hpp"
#include "model/call_tree.hpp"
#include "model/launch_links.hpp"

namespace traceprism::model {

// An op instance as the reference's perf report sees it: the host event that owns GPU work
// (trace-format spec §6). For every linked, non-communication GPU event, the launcher is the
// nearest cpu_op above its runtime call (stepping over cpu_ops named "execute"), or the
// runtime call itself when there is none (graph replays, launches outside any op).
struct KernelLauncher {
  Row row;
  std::span<const Row>
      kernels;                 // direct GPU events, in row (UID) order (KernelLaunchers owns them)
  double direct_busy_us = 0;   // union length of the direct GPU events
  double subtree_busy_us = 0;  // union length of every GPU event below (NCCL included)
};

class KernelLaunchers {
 public:
  static KernelLaunchers build(const index::EventIndex& index, const CallTree& tree,
                               const LaunchLinks& links);

  KernelLaunchers() = default;
  // Launchers view one flat kernel array (per-launcher vectors cost ~50 MB on a 1 GB trace):
  // moving keeps the views valid, copying would not.
  KernelLaunchers(KernelLaunchers&&) = default;
  KernelLaunchers& operator=(KernelLaunchers&&) = default;
  KernelLaunchers(const KernelLaunchers&) = delete;
  KernelLaunchers& operator=(const KernelLaunchers&) = delete;

  // Ordered by the launcher's start time, ties in order of first kernel (the reference's order).
  const std::vector<KernelLauncher>& all() const { return launchers_; }
  // Every launcher's kernels, grouped by launcher (each launcher's `kernels` is a slice).
  const std::vector<Row>& kernel_rows() const { return kernel_rows_; }

 private:
  std::vector<KernelLauncher> launchers_;
  std::vector<Row> kernel_rows_;
};

// Union length of the events' [ts, end) intervals in reference microseconds: the "busy time"
// every per-op kernel time of the reference is made of.
double busy_time_us(const index::EventIndex& index, std::span<const Row> rows);

}  // namespace traceprism::model
