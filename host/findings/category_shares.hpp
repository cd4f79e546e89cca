#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/computation_partition.hpp"

namespace traceprism::findings {

// One op category's part of the computation time (a partition: see
// model::ComputationPartition), and how much of it a perf model covers.
struct CategoryShare {
  std::string category;  // the op category as the perf report names it ("GEMM", "NORM_fwd")
  double time_us = 0;
  double modeled_us = 0;
};

// The category a kernel with no CPU op falls in (it has no op category to take).
inline constexpr const char* kNoOpCategory = "kernels without a CPU op";

// Categories with time, largest first (ties by name); the kernels without a CPU op last under
// kNoOpCategory. `partition` has model::category_bucket buckets over `categories`; the times
// sum to its total.
std::vector<CategoryShare> category_shares(const std::vector<std::string>& categories,
                                           const model::ComputationPartition& partition);

// Modeled time as % of computation; nullopt when there is no computation.
std::optional<double> modeled_percent(const std::vector<CategoryShare>& shares);

}  // namespace traceprism::findings
