#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "index/event_index.hpp"
#include "model/launch_links.hpp"

namespace traceprism::model {

// One collective type of the GPU timeline (diagnosis.md §4, findings.json
// diagnosis.collectives).
struct CollectiveFigures {
  std::string type;         // "AllReduce", ...
  std::uint64_t count = 0;  // kernels of that type in the timeline's event set
  double time_us = 0;       // union of their intervals
  double exposed_us = 0;    // of that, not under computation
};

// Types present in the GPU timeline's event set (linked events, as compute_gpu_timeline),
// in the fixed order of the list above.
//
// The list is traceprism/collective.hpp's: AllReduce, AllGather, ReduceScatter, Broadcast,
// Reduce, SendRecv, AllToAll, then "Unknown" for generic NCCL/RCCL kernels whose launch no
// collective op encloses. A communication event's type is its name's; a generic kernel
// (ncclDevKernel_Generic) takes the type of the innermost collective op (nccl:all_reduce,
// c10d::allreduce_, ...) that encloses its launching call on the launching thread. Times are
// the timeline's reference doubles; "computation" is the timeline's computation set, so a
// type's exposed time is that type's part of the timeline's exposed communication (types that
// run at the same time on two streams each count the shared time).
std::vector<CollectiveFigures> collective_figures(const index::EventIndex& index,
                                                  const LaunchLinks& links);

}  // namespace traceprism::model
