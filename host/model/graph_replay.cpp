#include "model/graph_replay.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace traceprism::model {

namespace {

bool is_graph_launch(std::string_view name) {
  return name.find("GraphLaunch") != std::string_view::npos;  // cudaGraphLaunch, hipGraphLaunch
}

std::int64_t union_ns(std::vector<std::pair<std::int64_t, std::int64_t>>& spans) {
  std::sort(spans.begin(), spans.end());
  std::int64_t total = 0, end = INT64_MIN;
  for (const auto& [s, e] : spans) {
    if (e <= end) continue;
    total += e - std::max(s, end);
    end = e;
  }
  return total;
}

}  // namespace

GraphReplay graph_replay(const index::EventIndex& index, const LaunchLinks& links) {
  GraphReplay out;
  std::vector<std::pair<std::int64_t, std::int64_t>> spans;
  for (index::EventKind kind : {index::EventKind::kCudaRuntime, index::EventKind::kCudaDriver})
    for (Row call : index.rows_of_kind(kind)) {
      const std::span<const Row> launched = links.launched(call);
      if (launched.empty() || !is_graph_launch(index.name(call))) continue;
      ++out.launches;
      out.gpu_events += launched.size();
      for (Row gpu : launched)
        spans.emplace_back(index.ts_ns(gpu), index.ts_ns(gpu) + index.dur_ns(gpu));
    }
  out.busy_ns = union_ns(spans);
  return out;
}

}  // namespace traceprism::model
