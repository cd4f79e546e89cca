#include "plugins/op_metrics_table.hpp"

#include <cstdint>
#include <limits>
#include <string_view>
#include <utility>

namespace traceprism::plugins {

OpMetricsTable::OpMetricsTable(perf_report::UnifiedPerfTable table, double gpu_total_ms) {
  using perf_report::KernelSummaryEntry;
  using perf_report::UnifiedGroup;
  table_ = std::move(table);
  // The view is of the groups; per-event rows are not kept (millions on big traces).
  std::vector<perf_report::UnifiedPerfRow>().swap(table_.rows);
  std::vector<index::Row>().swap(table_.events);
  const std::vector<UnifiedGroup>& groups = table_.groups;
  const bool model = table_.has_model_columns, roofline = table_.has_roofline_columns;
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  auto str = [](std::string_view s) { return traceprism_str{s.data(), s.size()}; };
  auto texts = [&](auto get) {
    std::vector<traceprism_str>& v = texts_.emplace_back();
    for (const UnifiedGroup& g : groups) v.push_back(get(g));
    return v.data();
  };
  auto text = [&](std::string UnifiedGroup::*field) {
    return texts([&](const UnifiedGroup& g) { return str(g.*field); });
  };
  // Shape args: the sheet prints Python None as an empty cell; the view has no text then.
  auto arg = [&](std::string UnifiedGroup::*field) {
    return texts([&](const UnifiedGroup& g) {
      return g.*field == "None" ? traceprism_str{nullptr, 0} : str(g.*field);
    });
  };
  auto optional_text = [&](std::optional<std::string> UnifiedGroup::*field) {
    return texts([&](const UnifiedGroup& g) {
      return g.*field ? str(*(g.*field)) : traceprism_str{nullptr, 0};
    });
  };
  // A number column; NaN throughout when the sheet does not have it (`present` false).
  auto numbers = [&](auto get, bool present = true) {
    std::vector<double>& v = numbers_.emplace_back();
    for (const UnifiedGroup& g : groups) v.push_back(present ? get(g) : kNaN);
    return v.data();
  };
  auto number = [&](double UnifiedGroup::*field, bool present = true) {
    return numbers([&](const UnifiedGroup& g) { return g.*field; }, present);
  };
  auto stat = [&](perf_report::SeriesStats UnifiedGroup::*series,
                  double perf_report::SeriesStats::*which, bool present = true) {
    return numbers([&](const UnifiedGroup& g) { return (g.*series).*which; }, present);
  };
  using S = perf_report::SeriesStats;
  traceprism_op_metrics_v1& t = view_;
  t.struct_size = sizeof t;
  t.count = groups.size();
  t.has_model_columns = model ? 1 : 0;
  t.has_roofline_columns = roofline ? 1 : 0;
  t.gpu_total_ms = gpu_total_ms;
  t.name = text(&UnifiedGroup::name);
  if (table_.has_call_stack_columns) {  // ABI 1.10
    t.entry_point = text(&UnifiedGroup::entry_point);
    t.call_stack_full = text(&UnifiedGroup::call_stack_full);
  }
  t.op_category = text(&UnifiedGroup::category);
  t.process_name = text(&UnifiedGroup::process_name);
  t.process_label = text(&UnifiedGroup::process_label);
  t.thread_name = text(&UnifiedGroup::thread_name);
  t.input_dims = arg(&UnifiedGroup::input_dims);
  t.input_type = arg(&UnifiedGroup::input_type);
  t.input_strides = arg(&UnifiedGroup::input_strides);
  t.concrete_inputs = arg(&UnifiedGroup::concrete_inputs);
  for (const UnifiedGroup& g : groups) {
    ex_uid_.push_back(g.ex_uid);
    operation_count_.push_back(g.operation_count);
    bound_.push_back(!roofline || !g.roofline_bound         ? TRACEPRISM_BOUND_NONE
                     : *g.roofline_bound == "COMPUTE_BOUND" ? TRACEPRISM_BOUND_COMPUTE
                     : *g.roofline_bound == "MEMORY_BOUND"  ? TRACEPRISM_BOUND_MEMORY
                                                            : TRACEPRISM_BOUND_NONE);
    has_perf_model_.push_back(g.has_perf_model ? 1 : 0);
  }
  t.ex_uid = ex_uid_.data();
  t.operation_count = operation_count_.data();
  t.total_duration_us = number(&UnifiedGroup::total_duration_us);
  t.duration_mean_us = stat(&UnifiedGroup::duration, &S::mean);
  t.duration_std_us = stat(&UnifiedGroup::duration, &S::std);
  t.duration_median_us = stat(&UnifiedGroup::duration, &S::median);
  t.duration_min_us = stat(&UnifiedGroup::duration, &S::min);
  t.duration_max_us = stat(&UnifiedGroup::duration, &S::max);
  t.gflops = number(&UnifiedGroup::gflops, model);
  t.data_moved_mb = number(&UnifiedGroup::data_moved_mb, model);
  t.flops_per_byte = number(&UnifiedGroup::flops_per_byte, model);
  t.compute_spec =
      model ? optional_text(&UnifiedGroup::compute_spec) : texts([](const UnifiedGroup&) {
        return traceprism_str{nullptr, 0};
      });
  t.bound = bound_.data();
  t.tb_per_s_mean = stat(&UnifiedGroup::tb_per_s, &S::mean, model);
  t.tb_per_s_std = stat(&UnifiedGroup::tb_per_s, &S::std, model);
  t.tb_per_s_median = stat(&UnifiedGroup::tb_per_s, &S::median, model);
  t.tb_per_s_min = stat(&UnifiedGroup::tb_per_s, &S::min, model);
  t.tb_per_s_max = stat(&UnifiedGroup::tb_per_s, &S::max, model);
  t.tflops_per_s_mean = stat(&UnifiedGroup::tflops_per_s, &S::mean, model);
  t.tflops_per_s_std = stat(&UnifiedGroup::tflops_per_s, &S::std, model);
  t.tflops_per_s_median = stat(&UnifiedGroup::tflops_per_s, &S::median, model);
  t.tflops_per_s_min = stat(&UnifiedGroup::tflops_per_s, &S::min, model);
  t.tflops_per_s_max = stat(&UnifiedGroup::tflops_per_s, &S::max, model);
  t.roofline_time_us = number(&UnifiedGroup::roofline_time_us, roofline);
  t.pct_roofline_mean = stat(&UnifiedGroup::pct_roofline, &S::mean, roofline);
  t.pct_roofline_std = stat(&UnifiedGroup::pct_roofline, &S::std, roofline);
  t.pct_roofline_median = stat(&UnifiedGroup::pct_roofline, &S::median, roofline);
  t.pct_roofline_min = stat(&UnifiedGroup::pct_roofline, &S::min, roofline);
  t.pct_roofline_max = stat(&UnifiedGroup::pct_roofline, &S::max, roofline);
  t.kernel_time_sum_us = number(&UnifiedGroup::kernel_time_sum_us);
  t.kernel_time_mean_us = stat(&UnifiedGroup::kernel_time, &S::mean);
  t.kernel_time_std_us = stat(&UnifiedGroup::kernel_time, &S::std);
  t.kernel_time_median_us = stat(&UnifiedGroup::kernel_time, &S::median);
  t.kernel_time_min_us = stat(&UnifiedGroup::kernel_time, &S::min);
  t.kernel_time_max_us = stat(&UnifiedGroup::kernel_time, &S::max);
  t.perf_params = optional_text(&UnifiedGroup::perf_params);
  t.has_perf_model = has_perf_model_.data();
  t.percentage = number(&UnifiedGroup::percentage);
  t.cumulative_percentage = number(&UnifiedGroup::cumulative_percentage);

  std::vector<traceprism_str>& kernel_name = texts_.emplace_back();
  std::vector<traceprism_str>& extra_key = texts_.emplace_back();
  std::vector<traceprism_str>& extra_value = texts_.emplace_back();
  std::vector<double>* kernel_numbers[6];
  for (auto*& v : kernel_numbers) v = &numbers_.emplace_back();
  for (const UnifiedGroup& g : groups) {
    kernel_begin_.push_back(static_cast<std::uint32_t>(kernel_name.size()));
    kernel_count_.push_back(static_cast<std::uint32_t>(g.kernel_summary.size()));
    for (const KernelSummaryEntry& k : g.kernel_summary) {
      kernel_name.push_back(str(k.name));
      kernel_stream_.push_back(k.stream ? *k.stream : INT64_MIN);
      kernel_calls_.push_back(k.count);
      const double values[6] = {k.total_duration_us,   k.mean_duration_us, k.median_duration_us,
                                k.std_dev_duration_us, k.min_duration_us,  k.max_duration_us};
      for (int i = 0; i < 6; ++i) kernel_numbers[i]->push_back(values[i]);
      extra_begin_.push_back(static_cast<std::uint32_t>(extra_key.size()));
      extra_count_.push_back(static_cast<std::uint32_t>(k.extra_keys.size()));
      for (const auto& [key, value] : k.extra_keys) {
        extra_key.push_back(str(key));
        extra_value.push_back(str(value));
      }
    }
  }
  t.kernel_begin = kernel_begin_.data();
  t.kernel_count = kernel_count_.data();
  t.kernel_total = kernel_name.size();
  t.extra_total = extra_key.size();
  t.kernel_name = kernel_name.data();
  t.kernel_stream = kernel_stream_.data();
  t.kernel_calls = kernel_calls_.data();
  t.kernel_total_us = kernel_numbers[0]->data();
  t.kernel_mean_us = kernel_numbers[1]->data();
  t.kernel_median_us = kernel_numbers[2]->data();
  t.kernel_std_us = kernel_numbers[3]->data();
  t.kernel_min_us = kernel_numbers[4]->data();
  t.kernel_max_us = kernel_numbers[5]->data();
  t.kernel_extra_begin = extra_begin_.data();
  t.kernel_extra_count = extra_count_.data();
  t.extra_key = extra_key.data();
  t.extra_value = extra_value.data();

  // The groups' event lists move into one column: each would otherwise be kept twice.
  for (UnifiedGroup& g : table_.groups) {
    gpu_begin_.push_back(gpu_rows_.size());
    gpu_count_.push_back(static_cast<std::uint32_t>(g.gpu_events.size()));
    gpu_rows_.insert(gpu_rows_.end(), g.gpu_events.begin(), g.gpu_events.end());
    std::vector<index::Row>().swap(g.gpu_events);
  }
  t.gpu_total = gpu_rows_.size();
  t.gpu_begin = gpu_begin_.data();
  t.gpu_count = gpu_count_.data();
  t.gpu_rows = gpu_rows_.data();
  if (table_.has_lca_columns) add_lca_columns(numbers);
}

template <typename Numbers>
void OpMetricsTable::add_lca_columns(Numbers& numbers) {
  using perf_report::UnifiedGroup;
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  auto lca = [&](auto get) {
    return numbers([&](const UnifiedGroup& g) { return g.lca ? get(*g.lca, g) : kNaN; });
  };
  traceprism_op_metrics_v1& t = view_;
  t.comparative = 1;
  t.speedup =
      lca([](const perf_report::LcaColumns& c, const UnifiedGroup&) { return c.speedup(); });
  t.delta_us = lca([](const perf_report::LcaColumns& c, const UnifiedGroup& g) {
    return c.trace2_us - g.kernel_time_sum_us;
  });
  t.lca_count_trace2 =
      lca([](const perf_report::LcaColumns& c, const UnifiedGroup&) { return c.count_trace2; });
  t.lca_time_trace1_us =
      lca([](const perf_report::LcaColumns& c, const UnifiedGroup&) { return c.trace1_us; });
  t.lca_time_trace2_us =
      lca([](const perf_report::LcaColumns& c, const UnifiedGroup&) { return c.trace2_us; });
}

}  // namespace traceprism::plugins
