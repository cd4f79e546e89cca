#include "plugins/trace_diff_table.hpp"

namespace traceprism::plugins {

TraceDiffTable::TraceDiffTable(const std::vector<comparison::DiffStatsRow>& rows,
                               const comparison::DiffSide& trace1,
                               const comparison::DiffSide& trace2) {
  for (const comparison::DiffStatsRow& r : rows) {
    source_.push_back(static_cast<std::uint8_t>(r.source));
    gpu_row_.push_back(static_cast<std::uint32_t>(r.gpu_event));
    lca_id_.push_back(r.lca_id ? static_cast<std::int64_t>(*r.lca_id) : -1);
    kernel_time_us_.push_back(r.kernel_time_us);
    busy_time_us_.push_back(r.busy_time_us);
    names_.emplace_back((r.source == 1 ? trace1 : trace2).index.name(r.gpu_event));
  }
  for (const std::string& n : names_) name_views_.push_back({n.data(), n.size()});
  table_.struct_size = sizeof table_;
  table_.count = rows.size();
  table_.source = source_.data();
  table_.gpu_row = gpu_row_.data();
  table_.lca_id = lca_id_.data();
  table_.kernel_time_us = kernel_time_us_.data();
  table_.busy_time_us = busy_time_us_.data();
  table_.kernel_name = name_views_.data();
}

}  // namespace traceprism::plugins
