#pragma once

#include "index/event_index.hpp"
#include "model/launch_links.hpp"
#include "multirank/rank_summary.hpp"

namespace traceprism::multirank {

// The rank summary of one rank's trace (multi-rank.md §4): what the cross-rank stages need and
// nothing that grows with the trace but the collective rows. Fills META from the trace's
// metadata (distributedInfo, deviceProperties), STEP (each ProfilerStep#N: CPU span, GPU span,
// where its GPU time went), PROF (the same over the whole trace), KERN (the top computation
// kernels by total time) and COLL (model::collective_instances, partition 0, untiered: matching
// assigns both). Times are on the rank's absolute clock. The file fields (path, size, host) are
// the caller's.
RankSummary summarize_rank(const index::EventIndex& index, const model::LaunchLinks& links);

}  // namespace traceprism::multirank
