#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "index/event_index.hpp"
#include "model/launch_links.hpp"

namespace traceprism::model {

using index::Row;

// A kernel's bucket, as the caller defines buckets (the pipeline: op category × perf model).
struct KernelBucket {
  Row kernel;
  std::uint32_t bucket;
};

// Buckets as (category, modeled) pairs: the pipeline's encoding.
inline std::uint32_t category_bucket(std::uint32_t category, bool modeled) {
  return category * 2 + (modeled ? 1u : 0u);
}

// Computation time cut into the caller's buckets so that each microsecond of the timeline's
// computation union lies in exactly one bucket (diagnosis.md §1.2): where kernels overlap
// (several streams), the one that started first holds the time. Shares computed from it sum
// to 100 % and none exceeds it, unlike sums of per-op kernel time.
struct ComputationPartition {
  std::vector<double> bucket_us;  // by bucket index
  double unbucketed_us = 0;       // computation kernels the caller gave no bucket (no CPU op)
  double total_us() const;
};

// The event set is the GPU timeline's (linked events unless include_unlinked), in reference
// microseconds, so total_us() equals GpuTimeline::computation_us. `buckets` must be sorted by
// kernel row; a kernel listed twice keeps its first bucket.
ComputationPartition partition_computation(const index::EventIndex& index, const LaunchLinks& links,
                                           bool include_unlinked,
                                           std::span<const KernelBucket> buckets,
                                           std::size_t bucket_count);

}  // namespace traceprism::model
