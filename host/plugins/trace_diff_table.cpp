#include "plugins/trace_diff_table.hpp"

namespace traceprism::plugins {

TraceDiffTable::TraceDiffTable(const comparison::DiffStats& stats, const index::EventIndex& trace1,
                               const index::EventIndex& trace2) {
  for (const comparison::DiffStatsRow& r : stats.rows) {
    const comparison::DiffStatsLca* lca = stats.lca_of(r);
    source_.push_back(r.source);
    gpu_row_.push_back(static_cast<std::uint32_t>(r.gpu_event));
    lca_id_.push_back(lca ? static_cast<std::int64_t>(lca->id) : -1);
    kernel_time_us_.push_back(r.kernel_time_us);
    busy_time_us_.push_back(r.busy_time_us);
    const std::string_view name = (r.source == 1 ? trace1 : trace2).name(r.gpu_event);
    names_.push_back({name.data(), name.size()});
  }
  table_.struct_size = sizeof table_;
  table_.count = stats.rows.size();
  table_.source = source_.data();
  table_.gpu_row = gpu_row_.data();
  table_.lca_id = lca_id_.data();
  table_.kernel_time_us = kernel_time_us_.data();
  table_.busy_time_us = busy_time_us_.data();
  table_.kernel_name = names_.data();
}

}  // namespace traceprism::plugins
