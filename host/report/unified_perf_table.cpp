#include "report/unified_perf_table.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <unordered_map>

#include "model/kernel_launchers.hpp"
#include "report/csv_sheet.hpp"
#include "report/gpu_subtrees.hpp"
#include "report/numpy_stats.hpp"
#include "report/op_category.hpp"
#include "report/op_perf.hpp"
#include "report/python_repr.hpp"
#include "report/unified_collector.hpp"

namespace traceprism::report {

using index::EventKind;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The first kernel (by start time) of each op instance of spec §6: the kernel_details[0] that
// categorizes ops the registry does not know.
class LauncherFirstKernels {
 public:
  LauncherFirstKernels(const index::EventIndex& index, const model::KernelLaunchers& launchers) {
    for (const model::KernelLauncher& l : launchers.all()) {
      if (l.kernels.empty()) continue;
      // Kernels are in row order, so the first minimum is the stable-sort winner.
      Row first = l.kernels.front();
      for (Row k : l.kernels)
        if (index.ts_us(k) < index.ts_us(first)) first = k;
      first_kernel_.emplace(l.row, first);
    }
  }
  std::optional<Row> first_kernel(Row launcher) const {
    auto it = first_kernel_.find(launcher);
    if (it == first_kernel_.end()) return std::nullopt;
    return it->second;
  }

 private:
  std::unordered_map<Row, Row> first_kernel_;
};

// str() of a shape arg after list -> tuple, rendered once per distinct text.
class TupleReprs {
 public:
  explicit TupleReprs(const index::StringPool& strings) : strings_(strings) {}
  const std::string& repr(index::StringId id) {
    auto [it, inserted] = reprs_.try_emplace(id);
    if (inserted)
      it->second = id == index::kNoString ? "None" : python_tuple_repr(strings_.view(id));
    return it->second;
  }

 private:
  const index::StringPool& strings_;
  std::unordered_map<index::StringId, std::string> reprs_;
};

// Everything step 3 of spec §8.5 reads, for one build.
struct RowContext {
  const index::EventIndex& index;
  const GpuSubtrees& subtrees;
  const model::OpWorkTable& op_work;
  const platform::PlatformInfo* platform;
  const UnifiedCollector& collector;
  const LauncherFirstKernels& first_kernels;
  TupleReprs& tuples;
};

// Fields copied from the event itself (for a Synthetic Op: from the event it copies).
void fill_event_fields(RowContext& ctx, Row source, UnifiedPerfRow& out) {
  out.names = host_names(ctx.index, source);
  out.duration_us = raw_dur_us(ctx.index, source);
  const index::OpArgs* args = ctx.index.op_args(source);
  out.input_dims = ctx.tuples.repr(args ? args->input_dims : index::kNoString);
  out.input_type = ctx.tuples.repr(args ? args->input_types : index::kNoString);
  out.input_strides = ctx.tuples.repr(args ? args->input_strides : index::kNoString);
  out.concrete_inputs = ctx.tuples.repr(args ? args->concrete_inputs : index::kNoString);
}

std::string category_of(const RowContext& ctx, const UnifiedPerfRow& row, Row source) {
  std::optional<std::string> registry;
  if (!row.synthetic) {
    if (auto c = ctx.op_work.category_of_name(ctx.index.name_id(source)))
      registry = std::string(*c);
  }
  std::optional<std::string_view> first_kernel;
  if (auto k = ctx.first_kernels.first_kernel(source)) first_kernel = ctx.index.name(*k);
  return categorize_op(row.name, registry, first_kernel);
}

void apply_perf(UnifiedPerfRow& row, const OpPerf& perf) {
  row.kernel_time_us = perf.kernel_time_us;
  row.metrics = perf.metrics;
  row.compute_spec = std::string(perf.compute_spec);
  row.perf_params = perf_params_repr(*perf.params);
}

// Step 3 for one event. Returns false when the row is dropped (the model raised
// NotImplementedError).
bool fill_perf(RowContext& ctx, Row source, UnifiedPerfRow& row) {
  const bool own = !row.synthetic && ctx.collector.has_own_model(source);
  const std::int32_t forward = own ? -1 : ctx.collector.sole_backward_forward(source);
  row.has_perf_model = own || forward >= 0;
  row.sole_backward = forward >= 0;
  row.kernel_time_us = model::busy_time_us(ctx.index, row.gpu_events);
  if (own) {
    const model::OpWork& work = *ctx.op_work.find(source);
    if (work.status == model::OpWorkStatus::kNotModelled) return false;
    if (auto perf =
            compute_op_perf(ctx.subtrees, ctx.op_work, work, ModelPass::kForward, ctx.platform))
      apply_perf(row, *perf);
  } else if (forward >= 0) {
    // The reference computes the forward op's backward metrics, so the time is that of every
    // kernel under the forward op's backward nodes, not only this event's.
    const model::OpWork& work = *ctx.op_work.find(static_cast<Row>(forward));
    row.category = std::string(ctx.op_work.text(work.bwd_category));
    if (auto perf =
            compute_op_perf(ctx.subtrees, ctx.op_work, work, ModelPass::kBackward, ctx.platform))
      apply_perf(row, *perf);
  }
  return true;
}

std::optional<UnifiedPerfRow> make_row(RowContext& ctx, Row source, std::uint64_t uid,
                                       std::optional<Row> synthetic_kernel) {
  UnifiedPerfRow row;
  row.row = source;
  row.uid = uid;
  row.synthetic = synthetic_kernel.has_value();
  row.name = std::string(ctx.index.name(source));
  if (synthetic_kernel) {
    row.name += "->" + std::string(ctx.index.name(*synthetic_kernel)) + " (Synthetic Op)";
    row.gpu_events = {*synthetic_kernel};
  } else {
    row.gpu_events = ctx.subtrees.gpu_events(source);
  }
  fill_event_fields(ctx, source, row);
  row.category = category_of(ctx, row, source);
  if (!fill_perf(ctx, source, row)) return std::nullopt;
  row.kernel_details = kernel_details_of(ctx.index, row.gpu_events);
  return row;
}

// Step 2: GPU events no collected event covers, except collectives, as (kernel, event to
// copy): first those whose launching call has no cpu_op above it, grouped by that call in
// first-seen order, then those with a cpu_op ancestor, copying the nearest one.
std::vector<std::pair<Row, Row>> uncovered_kernels(const GpuSubtrees& subtrees,
                                                   const std::vector<Row>& collected) {
  const index::EventIndex& index = subtrees.index();
  std::vector<bool> covered(index.size(), false);
  for (Row event : collected)
    for (Row g : subtrees.gpu_events(event)) covered[g] = true;
  std::vector<Row> gpu_rows;
  for (EventKind k : {EventKind::kKernel, EventKind::kGpuMemcpy, EventKind::kGpuMemset}) {
    auto rows = index.rows_of_kind(k);
    gpu_rows.insert(gpu_rows.end(), rows.begin(), rows.end());
  }
  std::sort(gpu_rows.begin(), gpu_rows.end());

  std::vector<std::pair<Row, std::vector<Row>>> orphans;  // launching call -> its kernels
  std::unordered_map<Row, std::size_t> orphan_slot;
  std::vector<std::pair<Row, Row>> under_ops;
  for (Row g : gpu_rows) {
    const std::int32_t launcher = subtrees.links().launcher(g);
    if (covered[g] || launcher < 0 || subtrees.is_communication(g)) continue;
    std::int32_t op = launcher;
    while (op >= 0 && index.kind(static_cast<Row>(op)) != EventKind::kCpuOp)
      op = subtrees.tree().parent(static_cast<Row>(op));
    if (op >= 0) {
      under_ops.emplace_back(g, static_cast<Row>(op));
      continue;
    }
    auto [it, fresh] = orphan_slot.try_emplace(static_cast<Row>(launcher), orphans.size());
    if (fresh) orphans.push_back({static_cast<Row>(launcher), {}});
    orphans[it->second].second.push_back(g);
  }
  std::vector<std::pair<Row, Row>> out;
  for (const auto& [call, kernels] : orphans)
    for (Row g : kernels) out.emplace_back(g, call);
  out.insert(out.end(), under_ops.begin(), under_ops.end());
  return out;
}

// ---- step 4 -------------------------------------------------------------------------------

std::vector<double> without_nan(std::vector<double> values) {
  std::erase_if(values, [](double v) { return std::isnan(v); });
  return values;
}

SeriesStats series_stats(const std::vector<double>& raw) {
  const std::vector<double> v = without_nan(raw);
  if (v.empty()) return {kNaN, kNaN, kNaN, kNaN, kNaN};
  return {pandas_mean(v), pandas_median(v), pandas_std(v), numpy_min(v), numpy_max(v)};
}

double first_known(const std::vector<double>& values) {
  for (double v : values)
    if (!std::isnan(v)) return v;
  return kNaN;
}

std::string group_key(const UnifiedPerfRow& r) {
  std::string key;
  for (const std::string* part :
       {&r.name, &r.category, &r.names.process_name, &r.names.process_label, &r.names.thread_name,
        &r.input_dims, &r.input_type, &r.input_strides, &r.concrete_inputs}) {
    key += *part;
    key += '\x1f';
  }
  return key;
}

// The per-instance columns of one group, in group order (NaN where a row has no value).
struct GroupColumns {
  std::vector<double> duration, kernel_time, gflops, data_moved, flops_per_byte, tb_per_s,
      tflops_per_s, roofline_time, pct_roofline;
  std::vector<const KernelDetails*> kernel_lists;

  void add(const UnifiedPerfRow& r) {
    duration.push_back(r.duration_us);
    kernel_time.push_back(r.kernel_time_us);
    kernel_lists.push_back(&r.kernel_details);
    const bool m = r.metrics.has_value();
    const bool roof = m && r.metrics->has_roofline;
    gflops.push_back(m ? r.metrics->gflops : kNaN);
    data_moved.push_back(m ? r.metrics->data_moved_mb : kNaN);
    flops_per_byte.push_back(m ? r.metrics->flops_per_byte : kNaN);
    tb_per_s.push_back(m ? r.metrics->tb_per_s : kNaN);
    tflops_per_s.push_back(m ? r.metrics->tflops_per_s : kNaN);
    roofline_time.push_back(roof ? r.metrics->roofline_time_us : kNaN);
    pct_roofline.push_back(roof ? r.metrics->pct_roofline : kNaN);
  }
};

UnifiedGroup start_group(const UnifiedPerfRow& r) {
  UnifiedGroup g;
  g.name = r.name;
  g.category = r.category;
  g.process_name = r.names.process_name;
  g.process_label = r.names.process_label;
  g.thread_name = r.names.thread_name;
  g.input_dims = r.input_dims;
  g.input_type = r.input_type;
  g.input_strides = r.input_strides;
  g.concrete_inputs = r.concrete_inputs;
  g.ex_uid = r.uid;
  g.has_perf_model = r.has_perf_model;
  return g;
}

void summarize_group(const std::vector<UnifiedPerfRow>& rows, UnifiedGroup& g) {
  GroupColumns c;
  for (std::size_t i : g.members) c.add(rows[i]);
  g.operation_count = g.members.size();
  g.total_duration_us = pandas_sum(c.duration);
  g.duration = series_stats(c.duration);
  g.gflops = first_known(c.gflops);
  g.data_moved_mb = first_known(c.data_moved);
  g.flops_per_byte = first_known(c.flops_per_byte);
  g.roofline_time_us = first_known(c.roofline_time);
  g.tb_per_s = series_stats(c.tb_per_s);
  g.tflops_per_s = series_stats(c.tflops_per_s);
  g.pct_roofline = series_stats(c.pct_roofline);
  g.kernel_time = series_stats(c.kernel_time);
  g.kernel_time_sum_us = pandas_sum(c.kernel_time);
  g.kernel_summary = summarize_kernel_details(c.kernel_lists);
  for (std::size_t i : g.members) {
    const UnifiedPerfRow& r = rows[i];
    if (!r.metrics) continue;
    if (!g.compute_spec) g.compute_spec = r.compute_spec;
    if (!g.perf_params) g.perf_params = r.perf_params;
    if (!g.roofline_bound && r.metrics->has_roofline)
      g.roofline_bound = model::roofline_bound_name(*r.metrics);
  }
}

std::vector<UnifiedGroup> summarize(const std::vector<UnifiedPerfRow>& rows) {
  std::vector<UnifiedGroup> groups;
  std::unordered_map<std::string, std::size_t> slot;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    auto [it, fresh] = slot.try_emplace(group_key(rows[i]), groups.size());
    if (fresh) groups.push_back(start_group(rows[i]));
    groups[it->second].members.push_back(i);
  }
  for (UnifiedGroup& g : groups) summarize_group(rows, g);
  std::stable_sort(groups.begin(), groups.end(), [](const UnifiedGroup& a, const UnifiedGroup& b) {
    if (a.kernel_time_sum_us != b.kernel_time_sum_us)
      return a.kernel_time_sum_us > b.kernel_time_sum_us;
    return a.ex_uid < b.ex_uid;
  });
  std::vector<double> sums;
  for (const UnifiedGroup& g : groups) sums.push_back(g.kernel_time_sum_us);
  const double total = numpy_sum(sums);
  double cumulative = 0;
  for (UnifiedGroup& g : groups) {
    g.percentage = g.kernel_time_sum_us / total * 100;
    cumulative += g.percentage;
    g.cumulative_percentage = cumulative;
  }
  return groups;
}

}  // namespace

UnifiedPerfTable build_unified_perf_table(const UnifiedPerfInputs& in) {
  UnifiedPerfTable table;
  const index::EventIndex& index = *in.index;
  if (is_gpu_only_trace(index)) return table;  // no ops sheets for those (spec §8)
  std::optional<model::KernelLaunchers> built;
  if (!in.launchers) built = model::KernelLaunchers::build(index, *in.tree, *in.links);
  const LauncherFirstKernels first_kernels(index, in.launchers ? *in.launchers : *built);
  const GpuSubtrees subtrees(index, *in.tree, *in.links, in.fwd_bwd);
  static const model::OpWorkTable kNoModels;  // no op-model plugins: timing rows only
  const model::OpWorkTable& op_work = in.op_work ? *in.op_work : kNoModels;
  UnifiedCollector collector(subtrees, op_work);
  TupleReprs tuples(index.strings());
  RowContext ctx{index, subtrees, op_work, in.platform, collector, first_kernels, tuples};

  const std::vector<Row> collected = collector.collect();
  for (Row event : collected)
    if (auto row = make_row(ctx, event, event, std::nullopt)) table.rows.push_back(std::move(*row));
  std::uint64_t next_uid = index.size();  // fresh UIDs above the largest one
  for (const auto& [kernel, source] : uncovered_kernels(subtrees, collected))
    if (auto row = make_row(ctx, source, next_uid++, kernel)) table.rows.push_back(std::move(*row));

  for (const UnifiedPerfRow& r : table.rows) {
    table.has_model_columns |= r.metrics.has_value();
    table.has_roofline_columns |= r.metrics && r.metrics->has_roofline;
  }
  table.groups = summarize(table.rows);
  return table;
}

// ---- CSV ----------------------------------------------------------------------------------

namespace {

std::string arg_cell(const std::string& repr) {
  return repr == "None" ? std::string() : repr;
}

void add_stats(CsvSheet& sheet, std::vector<std::string>& cells, const std::string& column,
               const SeriesStats& s, std::initializer_list<const char*> which, bool header) {
  for (const char* stat : which) {
    const std::string_view name(stat);
    const double value = name == "mean"     ? s.mean
                         : name == "median" ? s.median
                         : name == "std"    ? s.std
                         : name == "min"    ? s.min
                                            : s.max;
    if (header) sheet.columns.push_back(column + "_" + stat);
    cells.push_back(float_cell(value));
  }
}

// One summary row; the header is filled alongside while `header` is set.
std::vector<std::string> summary_cells(const UnifiedPerfTable& t, const UnifiedGroup& g,
                                       CsvSheet& sheet, bool header) {
  std::vector<std::string> cells;
  auto add = [&](const char* column, std::string cell) {
    if (header) sheet.columns.emplace_back(column);
    cells.push_back(std::move(cell));
  };
  const std::string kt = "Kernel Time (µs)";
  // (1) grouping columns, (2) counts and durations
  add("name", g.name);
  add("op category", g.category);
  add("process_name", g.process_name);
  add("process_label", g.process_label);
  add("thread_name", g.thread_name);
  add("Input Dims", arg_cell(g.input_dims));
  add("Input type", arg_cell(g.input_type));
  add("Input Strides", arg_cell(g.input_strides));
  add("Concrete Inputs", arg_cell(g.concrete_inputs));
  add("ex_UID", int_cell(static_cast<std::int64_t>(g.ex_uid)));
  add("operation_count", int_cell(static_cast<std::int64_t>(g.operation_count)));
  add("total_duration_us", float_cell(g.total_duration_us));
  add("mean_duration_us", float_cell(g.duration.mean));
  add("std_duration_us", float_cell(g.duration.std));
  // (3) static perf-model numbers, (4) the _mean/_std/_sum columns
  if (t.has_model_columns) {
    add("GFLOPS", float_cell(g.gflops));
    add("Data Moved (MB)", float_cell(g.data_moved_mb));
    add("FLOPS/Byte", float_cell(g.flops_per_byte));
    add("Compute Spec", text_cell(g.compute_spec));
    if (t.has_roofline_columns) add("Roofline Bound", text_cell(g.roofline_bound));
    add_stats(sheet, cells, "TB/s", g.tb_per_s, {"mean", "std"}, header);
    add_stats(sheet, cells, "TFLOPS/s", g.tflops_per_s, {"mean", "std"}, header);
  }
  add_stats(sheet, cells, kt, g.kernel_time, {"mean", "std"}, header);
  add((kt + "_sum").c_str(), float_cell(g.kernel_time_sum_us));
  // (5) the rest in aggregation order
  add_stats(sheet, cells, "duration_us", g.duration, {"median", "min", "max"}, header);
  if (t.has_model_columns) {
    add_stats(sheet, cells, "TB/s", g.tb_per_s, {"median", "min", "max"}, header);
    add_stats(sheet, cells, "TFLOPS/s", g.tflops_per_s, {"median", "min", "max"}, header);
  }
  if (t.has_roofline_columns) {
    add("Roofline Time (µs)_first", float_cell(g.roofline_time_us));
    add_stats(sheet, cells, "Pct Roofline", g.pct_roofline, {"mean", "median", "std", "min", "max"},
              header);
  }
  add_stats(sheet, cells, kt, g.kernel_time, {"median", "min", "max"}, header);
  add("kernel_details_summary", kernel_summary_repr(g.kernel_summary));
  add("trunc_kernel_details", trunc_kernel_details_repr(g.kernel_summary));
  add("perf_params", text_cell(g.perf_params));
  add("has_perf_model", g.has_perf_model ? "True" : "False");
  // (6) shares of the total kernel time
  add("Percentage (%)", float_cell(g.percentage));
  add("Cumulative Percentage (%)", float_cell(g.cumulative_percentage));
  return cells;
}

}  // namespace

std::string unified_perf_summary_csv(const UnifiedPerfTable& table) {
  CsvSheet sheet;
  for (std::size_t i = 0; i < table.groups.size(); ++i)
    sheet.rows.push_back(summary_cells(table, table.groups[i], sheet, i == 0));
  return sheet.to_csv();
}

}  // namespace traceprism::report
