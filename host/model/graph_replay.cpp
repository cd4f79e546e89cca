#include "model/graph_replay.hpp"

#include <traceprism/intervals.hpp>

#include <vector>

namespace traceprism::model {

GraphReplay graph_replay(const index::EventIndex& index, const LaunchLinks& links) {
  GraphReplay out;
  std::vector<Interval<std::int64_t>> spans;
  for (index::EventKind kind : {index::EventKind::kCudaRuntime, index::EventKind::kCudaDriver})
    for (Row call : index.rows_of_kind(kind)) {
      const std::span<const Row> launched = links.launched(call);
      if (launched.empty() || !is_graph_launch(index.name(call))) continue;
      ++out.launches;
      out.gpu_events += launched.size();
      for (Row gpu : launched)
        spans.push_back({index.ts_ns(gpu), index.ts_ns(gpu) + index.dur_ns(gpu)});
    }
  out.busy_ns = total_length(merge_intervals(std::move(spans)));
  return out;
}

}  // namespace traceprism::model
