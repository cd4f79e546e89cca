#include "plugins/idle_attribution_table.hpp"

namespace traceprism::plugins {

IdleAttributionTable::IdleAttributionTable(model::IdleAttribution& a) {
  // One list at a time, each released once copied: on a serving trace with millions of gaps the
  // model's lists and all the columns would otherwise be held at once.
  copy_gaps(a.gaps);
  std::vector<model::IdleGap>().swap(a.gaps);
  copy_parts(a.parts);
  std::vector<model::IdlePart>().swap(a.parts);
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

void IdleAttributionTable::copy_parts(const std::vector<model::IdlePart>& parts) {
  for (auto* column : {&part_start_, &part_dur_}) column->reserve(parts.size());
  for (auto* column : {&part_holder_, &part_top_, &part_frame_}) column->reserve(parts.size());
  part_cause_.reserve(parts.size());
  for (const model::IdlePart& p : parts) {
    part_start_.push_back(p.start_ns);
    part_dur_.push_back(p.dur_ns);
    part_cause_.push_back(static_cast<std::uint8_t>(p.cause));
    part_holder_.push_back(row_or_none(p.holder));
    part_top_.push_back(row_or_none(p.top));
    part_frame_.push_back(row_or_none(p.frame));
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
  t.part_count = part_start_.size();
  t.part_start_ns = part_start_.data();
  t.part_dur_ns = part_dur_.data();
  t.part_cause = part_cause_.data();
  t.part_holder = part_holder_.data();
  t.part_top = part_top_.data();
  t.part_frame = part_frame_.data();
  t.stream_count = stream_device_.size();
  t.stream_device = stream_device_.data();
  t.stream_id = stream_id_.data();
  t.queue_mean = queue_mean_.data();
  t.queue_max = queue_max_.data();
}

}  // namespace traceprism::plugins
