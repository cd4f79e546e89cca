#pragma once

#include <string_view>

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

// --rank-depth light (multi-rank.md §2): whether a complete event is one summarize_rank reads:
// every GPU event, runtime call and annotation, and of the host ops only those that own or name
// a collective (record_param_comms, c10d::*). Python frames and the other host ops are left out
// of the index (ingest::ReadOptions::keep), so the summary is the same from a smaller index.
bool read_by_rank_summary(index::EventKind kind, std::string_view name);

}  // namespace traceprism::multirank
