#include "plugins/idle_attribution_table.hpp"

#include <utility>

namespace traceprism::plugins {

static_assert(model::IdleParts::kNoRow == TRACEPRISM_NO_ROW,
              "the model keeps the parts' rows in the ABI's form");

IdleAttributionTable::IdleAttributionTable(model::IdleAttribution& a) {
  // One list at a time, each released once copied: on a serving trace with millions of gaps the
  // model's lists and all the columns would otherwise be held at once.
  copy_gaps(a.gaps);
  std::vector<model::IdleGap>().swap(a.gaps);
  parts_ = std::move(a.parts);
  a.parts = model::IdleParts();
  for (const model::StreamQueue& q : a.queues) {
    stream_device_.push_back(q.device);
    stream_id_.push_back(q.stream);
    queue_mean_.push_back(q.mean);
    queue_max_.push_back(q.max);
  }
  point_table_at_columns(a);
}

void IdleAttributionTable::copy_gaps(const std::vector<model::IdleGap>& gaps) {
  for (auto* column : {&gap_start_, &gap_dur_}) column->reserve(gaps.size());
  for (auto* column : {&gap_next_, &gap_launch_, &gap_part_begin_, &gap_part_count_})
    column->reserve(gaps.size());
  for (const model::IdleGap& g : gaps) {
    gap_start_.push_back(g.start_ns);
    gap_dur_.push_back(g.dur_ns);
    gap_next_.push_back(g.next);
    gap_launch_.push_back(row_or_none(g.launch));
    gap_part_begin_.push_back(g.part_begin);
    gap_part_count_.push_back(g.part_count);
  }
}

void IdleAttributionTable::point_table_at_columns(const model::IdleAttribution& a) {
  traceprism_idle_attribution_v1& t = table_;
  t.struct_size = sizeof t;
  t.window_start_ns = a.window_start_ns;
  t.window_end_ns = a.window_end_ns;
  for (std::size_t c = 0; c < model::kIdleCauseCount; ++c)
    t.idle_us[c] = static_cast<double>(a.idle_ns[c]) / 1000.0;
  t.launch_delay_median_us = a.launch_delay_median_us;
  t.launch_delay_p95_us = a.launch_delay_p95_us;
  t.launch_call_mean_us = a.launch_call_mean_us;
  t.gap_count = gap_start_.size();
  t.gap_start_ns = gap_start_.data();
  t.gap_dur_ns = gap_dur_.data();
  t.gap_next = gap_next_.data();
  t.gap_launch = gap_launch_.data();
  t.gap_part_begin = gap_part_begin_.data();
  t.gap_part_count = gap_part_count_.data();
  t.part_count = parts_.size();
  t.part_start_ns = parts_.start_ns().data();
  t.part_dur_ns = parts_.dur_ns().data();
  t.part_cause = parts_.cause().data();
  t.part_holder = parts_.holder().data();
  t.part_top = parts_.top().data();
  t.part_frame = parts_.frame().data();
  t.stream_count = stream_device_.size();
  t.stream_device = stream_device_.data();
  t.stream_id = stream_id_.data();
  t.queue_mean = queue_mean_.data();
  t.queue_max = queue_max_.data();
}

}  // namespace traceprism::plugins
