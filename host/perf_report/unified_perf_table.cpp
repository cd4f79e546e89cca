#include "perf_report/unified_perf_table.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "index/sort_by_row.hpp"
#include "model/kernel_launchers.hpp"
#include "perf_report/call_stacks.hpp"
#include "perf_report/numpy_stats.hpp"
#include "perf_report/op_category.hpp"
#include "perf_report/op_perf.hpp"
#include "perf_report/sheet_table.hpp"
#include "perf_report/unified_collector.hpp"
#include "text/python_repr.hpp"

namespace traceprism::perf_report {

using index::EventKind;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The first kernel (by start time) of each op instance of spec §6: the kernel_details[0] that
// categorizes ops the registry does not know. Sorted by launcher row.
class LauncherFirstKernels {
 public:
  LauncherFirstKernels(const index::EventIndex& index, const model::KernelLaunchers& launchers) {
    for (const model::KernelLauncher& l : launchers.all()) {
      if (l.kernels.empty()) continue;
      // Kernels are in row order, so the first minimum is the stable-sort winner.
      Row first = l.kernels.front();
      for (Row k : l.kernels)
        if (index.ts_us(k) < index.ts_us(first)) first = k;
      first_kernel_.emplace_back(l.row, first);
    }
    // One entry per launcher row, so sorting by row alone is the pairs' order.
    index::sort_by_row(first_kernel_, [](const std::pair<Row, Row>& e) { return e.first; });
  }
  std::optional<Row> first_kernel(Row launcher) const {
    auto it = std::lower_bound(first_kernel_.begin(), first_kernel_.end(),
                               std::pair<Row, Row>{launcher, 0});
    if (it == first_kernel_.end() || it->first != launcher) return std::nullopt;
    return it->second;
  }

 private:
  std::vector<std::pair<Row, Row>> first_kernel_;  // (launcher, first kernel)
};

// The texts of the rows, each made once per distinct input: they repeat across hundreds of
// thousands of rows. All are views of the index's string pool or interned texts, so equal
// texts share one address (the grouping key).
class RowTexts {
 public:
  RowTexts(const index::EventIndex& index, const model::OpWorkTable& op_work,
           const LauncherFirstKernels& first_kernels)
      : args(index.strings()),
        names(index),
        index_(index),
        op_work_(op_work),
        first_kernels_(first_kernels) {}

  text::ArgReprCache args;  // str() of the shape args
  HostNamesCache names;     // process and thread names

  // "<op>-><kernel> (Synthetic Op)"; the pool's view when the trace has that name too.
  std::string_view synthetic_name(Row op, Row kernel) {
    auto [it, fresh] = synthetic_.try_emplace({index_.name_id(op), index_.name_id(kernel)});
    if (fresh) {
      const std::string text = std::string(index_.name(op)) + "->" +
                               std::string(index_.name(kernel)) + " (Synthetic Op)";
      const index::StringId id = index_.strings().find(text);
      it->second =
          id != index::kNoString ? index_.strings().view(id) : text::intern_report_text(text);
    }
    return it->second;
  }

  // Spec §7 on the row's name, the registry (not for Synthetic Ops) and the first kernel of the
  // event's op instance. (kNoString stands for "no kernel": an empty kernel name categorizes the
  // same way.)
  std::string_view category(const UnifiedPerfRow& row, Row source) {
    const std::optional<Row> kernel = first_kernels_.first_kernel(source);
    const index::StringId kernel_name = kernel ? index_.name_id(*kernel) : index::kNoString;
    auto [it, fresh] = categories_.try_emplace({row.name.data(), row.synthetic, kernel_name});
    if (fresh) {
      std::optional<std::string> registry;
      if (!row.synthetic)
        if (auto c = op_work_.category_of_name(index_.name_id(source))) registry = std::string(*c);
      std::optional<std::string_view> first_kernel;
      if (kernel) first_kernel = index_.name(*kernel);
      it->second = text::intern_report_text(categorize_op(row.name, registry, first_kernel));
    }
    return it->second;
  }

  // perf_params: the parameters' dict repr, once per interned parameter list.
  std::string_view perf_params(const OpPerf& perf) {
    auto [it, fresh] = perf_params_.try_emplace(perf.params_id);
    if (fresh) it->second = text::intern_report_text(perf_params_repr(*perf.params));
    return it->second;
  }

 private:
  const index::EventIndex& index_;
  const model::OpWorkTable& op_work_;
  const LauncherFirstKernels& first_kernels_;
  std::map<std::pair<index::StringId, index::StringId>, std::string_view> synthetic_;
  std::map<std::tuple<const char*, bool, index::StringId>, std::string_view> categories_;
  std::unordered_map<std::uint32_t, std::string_view> perf_params_;
};

// Everything step 3 of spec §8.5 reads, for one build.
struct RowContext {
  const index::EventIndex& index;
  const GpuSubtrees& subtrees;
  const model::OpWorkTable& op_work;
  model::RooflinePeaks roofline;
  const UnifiedCollector& collector;
  RowTexts& texts;
  std::vector<Row> backward_kernels;  // scratch
};

// Fields copied from the event itself (for a Synthetic Op: from the event it copies).
void fill_event_fields(RowContext& ctx, Row source, UnifiedPerfRow& out) {
  out.names = ctx.texts.names.of(source);
  out.duration_us = raw_dur_us(ctx.index, source);
  const std::optional<index::OpArgs> args = ctx.index.op_args(source);
  out.input_dims = ctx.texts.args.tuple_repr(args ? args->input_dims : index::kNoString);
  out.input_type = ctx.texts.args.tuple_repr(args ? args->input_types : index::kNoString);
  out.input_strides = ctx.texts.args.tuple_repr(args ? args->input_strides : index::kNoString);
  out.concrete_inputs = ctx.texts.args.tuple_repr(args ? args->concrete_inputs : index::kNoString);
}

void apply_perf(RowContext& ctx, UnifiedPerfRow& row, const OpPerf& perf) {
  row.kernel_time_us = perf.kernel_time_us;
  row.metrics = perf.metrics;
  row.compute_spec = perf.compute_spec;
  row.perf_params = ctx.texts.perf_params(perf);
}

// Step 3 for one event. Returns false when the row is dropped (the model raised
// NotImplementedError).
bool fill_perf(RowContext& ctx, Row source, UnifiedPerfRow& row) {
  const std::optional<model::OpWork> own_work =
      row.synthetic ? std::nullopt : ctx.collector.own_model(source);
  const bool own = own_work.has_value();
  const std::int32_t forward = own ? -1 : ctx.collector.sole_backward_forward(source);
  row.has_perf_model = own || forward >= 0;
  row.sole_backward = forward >= 0;
  row.kernel_time_us = model::busy_time_us(ctx.index, row.gpu_events);
  row.metrics.reset();
  row.compute_spec = {};
  row.perf_params.reset();
  if (own) {
    const model::OpWork& work = *own_work;
    if (work.status == model::OpWorkStatus::kNotModelled) return false;
    // Timed over the op's own gpu_events, which the row already holds.
    if (auto perf = compute_op_perf(ctx.index, ctx.op_work, work, ModelPass::kForward,
                                    row.gpu_events, ctx.roofline))
      apply_perf(ctx, row, *perf);
  } else if (forward >= 0) {
    // The reference computes the forward op's backward metrics, so the time is that of every
    // kernel under the forward op's backward nodes, not only this event's.
    const model::OpWork work = *ctx.op_work.find(static_cast<Row>(forward));
    row.category = text::intern_report_text(ctx.op_work.text(work.bwd_category));
    if (has_op_perf(work, ModelPass::kBackward)) {
      op_perf_kernels(ctx.subtrees, work.row, ModelPass::kBackward, ctx.backward_kernels);
      if (auto perf = compute_op_perf(ctx.index, ctx.op_work, work, ModelPass::kBackward,
                                      ctx.backward_kernels, ctx.roofline))
        apply_perf(ctx, row, *perf);
    }
  }
  return true;
}

// Fills `row` (reusing its buffers) for a collected event or, with `synthetic_kernel`, a
// Synthetic Op. Returns false when the row is dropped; row.gpu_events is filled either way.
bool fill_row(RowContext& ctx, Row source, std::uint64_t uid, std::optional<Row> synthetic_kernel,
              UnifiedPerfRow& row) {
  row.row = source;
  row.uid = uid;
  row.synthetic = synthetic_kernel.has_value();
  if (synthetic_kernel) {
    row.name = ctx.texts.synthetic_name(source, *synthetic_kernel);
    row.gpu_events.assign(1, *synthetic_kernel);
  } else {
    row.name = ctx.index.name(source);
    ctx.subtrees.gpu_events(source, row.gpu_events);
  }
  fill_event_fields(ctx, source, row);
  row.category = ctx.texts.category(row, source);
  if (!fill_perf(ctx, source, row)) return false;
  kernel_details_of(ctx.index, row.gpu_events, row.kernel_details);
  return true;
}

// Step 2: GPU events no collected event covers, except collectives, as (kernel, event to
// copy): first those whose launching call has no cpu_op above it, grouped by that call in
// first-seen order, then those with a cpu_op ancestor, copying the nearest one.
std::vector<std::pair<Row, Row>> uncovered_kernels(const GpuSubtrees& subtrees,
                                                   const std::vector<bool>& covered) {
  const index::EventIndex& index = subtrees.index();
  const std::vector<Row> gpu_rows = index::gpu_rows_in_file_order(index);

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

// The grouping key: the addresses of the nine grouping texts (name, category, process/thread
// names, shape args), equal exactly when the texts are (see UnifiedPerfRow).
struct GroupKey {
  std::array<const char*, 9> texts;
  bool operator==(const GroupKey&) const = default;
};
struct GroupKeyHash {
  std::size_t operator()(const GroupKey& k) const {
    std::size_t h = 0;
    for (const char* p : k.texts) h = h * 1000003 ^ std::hash<const char*>{}(p);
    return h;
  }
};

GroupKey group_key(const UnifiedPerfRow& r) {
  return {{r.name.data(), r.category.data(), r.names.process_name.data(),
           r.names.process_label.data(), r.names.thread_name.data(), r.input_dims.data(),
           r.input_type.data(), r.input_strides.data(), r.concrete_inputs.data()}};
}

// One group while rows come in: the first row's values and the per-instance columns the
// statistics need, in group order. Perf-model columns skip NaNs (as pandas' statistics do);
// the "first known" values keep the first non-NaN.
class GroupBuilder {
 public:
  explicit GroupBuilder(const UnifiedPerfRow& r) {
    g_.name = r.name;
    g_.category = r.category;
    g_.process_name = r.names.process_name;
    g_.process_label = r.names.process_label;
    g_.thread_name = r.names.thread_name;
    g_.input_dims = r.input_dims;
    g_.input_type = r.input_type;
    g_.input_strides = r.input_strides;
    g_.concrete_inputs = r.concrete_inputs;
    g_.ex_uid = r.uid;
    g_.has_perf_model = r.has_perf_model;
    g_.gflops = g_.data_moved_mb = g_.flops_per_byte = g_.roofline_time_us = kNaN;
  }

  void add(const UnifiedPerfRow& r) {
    duration_.push_back(r.duration_us);
    kernel_time_.push_back(r.kernel_time_us);
    kernels_.add(r.kernel_details);
    g_.gpu_events.insert(g_.gpu_events.end(), r.gpu_events.begin(), r.gpu_events.end());
    if (!r.metrics) return;
    const model::OpMetrics& m = *r.metrics;
    keep_first(g_.gflops, m.gflops);
    keep_first(g_.data_moved_mb, m.data_moved_mb);
    keep_first(g_.flops_per_byte, m.flops_per_byte);
    add_known(tb_per_s_, m.tb_per_s);
    add_known(tflops_per_s_, m.tflops_per_s);
    if (m.has_roofline) {
      keep_first(g_.roofline_time_us, m.roofline_time_us);
      add_known(pct_roofline_, m.pct_roofline);
    }
    if (!g_.compute_spec) g_.compute_spec = std::string(r.compute_spec);
    if (!g_.perf_params && r.perf_params) g_.perf_params = std::string(*r.perf_params);
    if (!g_.roofline_bound && m.has_roofline) g_.roofline_bound = model::roofline_bound_name(m);
  }

  bool has_kernel_template() const { return kernels_.has_template(); }

  UnifiedGroup finish(bool call_stack_columns) {
    g_.operation_count = duration_.size();
    g_.total_duration_us = pandas_sum(duration_);
    g_.duration = series_stats(duration_);
    g_.tb_per_s = series_stats(tb_per_s_);
    g_.tflops_per_s = series_stats(tflops_per_s_);
    g_.pct_roofline = series_stats(pct_roofline_);
    g_.kernel_time = series_stats(kernel_time_);
    g_.kernel_time_sum_us = pandas_sum(kernel_time_);
    g_.kernel_summary = kernels_.finish();
    if (call_stack_columns) {
      const FullCallStack stack = full_call_stack(g_.kernel_summary);
      g_.entry_point = entry_point(g_.name, stack);
      g_.call_stack_full = full_call_stack_repr(stack);
    }
    std::sort(g_.gpu_events.begin(), g_.gpu_events.end());
    g_.gpu_events.erase(std::unique(g_.gpu_events.begin(), g_.gpu_events.end()),
                        g_.gpu_events.end());
    return std::move(g_);
  }

 private:
  static void keep_first(double& first, double value) {
    if (std::isnan(first)) first = value;
  }
  static void add_known(std::vector<double>& column, double value) {
    if (!std::isnan(value)) column.push_back(value);
  }

  UnifiedGroup g_;
  std::vector<double> duration_, kernel_time_, tb_per_s_, tflops_per_s_, pct_roofline_;
  KernelSummaryBuilder kernels_;
};

// Step 4, fed one row at a time in collection order.
class Summary {
 public:
  void add(const UnifiedPerfRow& r) {
    auto [it, fresh] = slot_.try_emplace(group_key(r), groups_.size());
    if (fresh) groups_.emplace_back(r);
    groups_[it->second].add(r);
  }

  // Whether the row's kernel list would be its group's template (the first with kernels): only
  // the template's call stacks reach the sheet.
  bool takes_kernel_template(const UnifiedPerfRow& r) const {
    const auto it = slot_.find(group_key(r));
    return it == slot_.end() || !groups_[it->second].has_kernel_template();
  }

  std::vector<UnifiedGroup> finish(bool call_stack_columns) {
    std::vector<UnifiedGroup> groups;
    for (GroupBuilder& g : groups_) groups.push_back(g.finish(call_stack_columns));
    std::stable_sort(groups.begin(), groups.end(),
                     [](const UnifiedGroup& a, const UnifiedGroup& b) {
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

 private:
  std::vector<GroupBuilder> groups_;  // first-appearance order
  std::unordered_map<GroupKey, std::size_t, GroupKeyHash> slot_;
};

}  // namespace

UnifiedPerfTable build_unified_perf_table(const UnifiedPerfInputs& in) {
  if (is_gpu_only_trace(*in.index)) return {};  // no ops sheets for those (spec §8)
  const GpuSubtrees subtrees(*in.index, *in.tree, *in.links, in.fwd_bwd);
  return build_unified_perf_table(in, subtrees, /*keep_rows=*/true);
}

UnifiedPerfTable build_unified_perf_table(const UnifiedPerfInputs& in, const GpuSubtrees& subtrees,
                                          bool keep_rows) {
  UnifiedPerfTable table;
  const index::EventIndex& index = *in.index;
  if (is_gpu_only_trace(index)) return table;  // no ops sheets for those (spec §8)
  std::optional<model::KernelLaunchers> built;
  if (!in.launchers) built = model::KernelLaunchers::build(index, *in.tree, *in.links);
  const LauncherFirstKernels first_kernels(index, in.launchers ? *in.launchers : *built);
  built.reset();
  static const model::OpWorkTable kNoModels;  // no op-model plugins: timing rows only
  const model::OpWorkTable& op_work = in.op_work ? *in.op_work : kNoModels;
  UnifiedCollector collector(subtrees, op_work);
  RowTexts texts(index, op_work, first_kernels);
  RowContext ctx{index, subtrees, op_work, model::RooflinePeaks(in.platform), collector, texts, {}};
  std::optional<KernelCallStacks> call_stacks;
  if (in.include_call_stack) {
    call_stacks.emplace(index, *in.links, in.python_parents);
    table.has_call_stack_columns = true;
  }

  Summary summary;
  UnifiedPerfRow row;  // reused: its buffers keep their capacity
  table.kernel_buckets.reserve(
      index::gpu_event_count(index));  // about one each: millions on a replay
  std::map<std::string_view, std::uint32_t> bucket_category;
  auto add = [&](const UnifiedPerfRow& r) {
    auto [it, fresh] = bucket_category.try_emplace(
        r.category, static_cast<std::uint32_t>(table.bucket_categories.size()));
    if (fresh) table.bucket_categories.emplace_back(r.category);
    for (Row g : r.gpu_events)
      table.kernel_buckets.push_back({g, model::category_bucket(it->second, r.has_perf_model)});
    summary.add(r);
    table.has_model_columns |= r.metrics.has_value();
    table.has_roofline_columns |= r.metrics && r.metrics->has_roofline;
    if (keep_rows) table.rows.push_back(r);
  };
  // Every collected event's GPU events are covered, even when its row is dropped.
  std::vector<bool> covered(index.size(), false);
  table.events = collector.collect();
  for (Row event : table.events) {
    const bool kept = fill_row(ctx, event, event, std::nullopt, row);
    for (Row g : row.gpu_events) covered[g] = true;
    if (!kept) continue;
    // (Synthetic Ops, below, copy an event that was never collected: they have no stack.)
    if (call_stacks && summary.takes_kernel_template(row))
      call_stacks->annotate(event, row.gpu_events, row.kernel_details);
    add(row);
  }
  std::uint64_t next_uid = index.size();  // fresh UIDs above the largest one
  for (const auto& [kernel, source] : uncovered_kernels(subtrees, covered))
    if (fill_row(ctx, source, next_uid++, kernel, row)) add(row);
  table.groups = summary.finish(table.has_call_stack_columns);
  std::stable_sort(table.kernel_buckets.begin(), table.kernel_buckets.end(),
                   [](const auto& a, const auto& b) { return a.kernel < b.kernel; });
  return table;
}

double LcaColumns::speedup() const {
  return trace1_us == 0 ? std::numeric_limits<double>::quiet_NaN() : trace2_us / trace1_us;
}

// ---- CSV ----------------------------------------------------------------------------------

namespace {

Cell arg_cell(const std::string& repr) {
  return repr == "None" ? Cell() : Cell(repr);
}

void add_stats(SheetTable& sheet, std::vector<Cell>& cells, const std::string& column,
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

// The TraceDiff columns (spec §14.2); empty cells for a row no LCA maps to.
template <typename Add>
void add_lca_cells(const UnifiedGroup& g, Add&& add) {
  const bool known = g.lca.has_value();
  const LcaColumns c = g.lca.value_or(LcaColumns{});
  const double nan = std::numeric_limits<double>::quiet_NaN();
  add("speedup (trace2/trace1)", float_cell(known ? c.speedup() : nan));
  add("delta_us (trace2 - trace1)", float_cell(known ? c.trace2_us - g.kernel_time_sum_us : nan));
  add("lca_count_trace2", float_cell(known ? c.count_trace2 : nan));
  add("lca_id", known ? Cell(c.ids) : Cell());
  add("lca_name", known ? Cell(c.names) : Cell());
  add("lca_total_kernel_time_trace1_us", float_cell(known ? c.trace1_us : nan));
  add("lca_total_kernel_time_trace2_us", float_cell(known ? c.trace2_us : nan));
}

// One summary row; the header is filled alongside while `header` is set.
std::vector<Cell> summary_cells(const UnifiedPerfTable& t, const UnifiedGroup& g, SheetTable& sheet,
                                bool header) {
  std::vector<Cell> cells;
  auto add = [&](const char* column, Cell cell) {
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
  if (t.has_lca_columns) add_lca_cells(g, add);
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
  if (t.has_call_stack_columns) {
    add("entry_point", g.entry_point);
    add("call_stack_full", g.call_stack_full);
  }
  // (6) shares of the total kernel time
  add("Percentage (%)", float_cell(g.percentage));
  add("Cumulative Percentage (%)", float_cell(g.cumulative_percentage));
  return cells;
}

}  // namespace

SheetTable unified_perf_summary_sheet(const UnifiedPerfTable& table) {
  SheetTable sheet;
  for (std::size_t i = 0; i < table.groups.size(); ++i)
    sheet.rows.push_back(summary_cells(table, table.groups[i], sheet, i == 0));
  return sheet;
}

}  // namespace traceprism::perf_report
