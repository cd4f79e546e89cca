#include "model/computation_partition.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

#include "index/sort_by_row.hpp"
#include "model/gpu_timeline.hpp"

namespace traceprism::model {
namespace {

constexpr std::uint32_t kNoBucket = std::numeric_limits<std::uint32_t>::max();

struct Piece {
  double start, end;
  std::uint32_t bucket;
};

// The computation events of the timeline's set, by start (file order for ties, as the
// timeline's merge keeps it). Millions of kernels on a graph-replay trace: the kinds' row lists
// are merged rather than sorted together, buckets are found by one walk along the rows, and
// the start sort is skipped when the pieces are in start order already.
std::vector<Piece> computation_pieces(const index::EventIndex& index, const LaunchLinks& links,
                                      bool include_unlinked,
                                      std::span<const KernelBucket> buckets) {
  const std::vector<Row> rows = index::gpu_rows_in_file_order(index);
  GpuActivityByName activity(index);
  std::vector<Piece> pieces;
  auto bucket = buckets.begin();  // buckets are by kernel row, as the rows
  for (Row r : rows) {
    if (!include_unlinked && !links.linked(r)) continue;
    if (activity(r) != GpuActivity::kComputation) continue;
    while (bucket != buckets.end() && bucket->kernel < r) ++bucket;
    const std::uint32_t b =
        bucket != buckets.end() && bucket->kernel == r ? bucket->bucket : kNoBucket;
    pieces.push_back({index.ts_us(r), index.end_us(r), b});
  }
  const auto by_start = [](const Piece& a, const Piece& b) { return a.start < b.start; };
  if (!std::is_sorted(pieces.begin(), pieces.end(), by_start))
    std::stable_sort(pieces.begin(), pieces.end(), by_start);
  return pieces;
}

}  // namespace

double ComputationPartition::total_us() const {
  return std::accumulate(bucket_us.begin(), bucket_us.end(), unbucketed_us);
}

ComputationPartition partition_computation(const index::EventIndex& index, const LaunchLinks& links,
                                           bool include_unlinked,
                                           std::span<const KernelBucket> buckets,
                                           std::size_t bucket_count) {
  ComputationPartition out;
  out.bucket_us.assign(bucket_count, 0.0);
  double covered_until = -std::numeric_limits<double>::infinity();
  for (const Piece& p : computation_pieces(index, links, include_unlinked, buckets)) {
    // Only the part after everything that started earlier is new time.
    const double from = std::max(p.start, covered_until);
    if (p.end <= from) continue;
    (p.bucket == kNoBucket ? out.unbucketed_us : out.bucket_us[p.bucket]) += p.end - from;
    covered_until = p.end;
  }
  return out;
}

}  // namespace traceprism::model
