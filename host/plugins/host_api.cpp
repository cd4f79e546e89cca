#include "plugins/host_api.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string_view>

#include "findings/cause.hpp"

namespace traceprism::plugins {
namespace {

using findings::Finding;

std::string_view view(traceprism_str s) {
  return s.data ? std::string_view(s.data, s.size) : std::string_view();
}
traceprism_str str(std::string_view s) {
  return {s.data(), s.size()};
}

// A string from a plugin is usable when it has data or is empty.
bool valid(traceprism_str s) {
  return s.data || s.size == 0;
}

const traceprism_event_columns_v1* api_events(const traceprism_run_ctx* ctx) {
  return ctx->products->columns();
}

const traceprism_event_columns_v1* api_core_events(const traceprism_run_ctx* ctx) {
  return ctx->products->core_columns();
}

const traceprism_gpu_events_v1* api_gpu_events(const traceprism_run_ctx* ctx) {
  return ctx->products->gpu_events();
}

traceprism_str api_string(const traceprism_run_ctx* ctx, std::uint32_t id) {
  return str(ctx->products->string(id));
}

std::uint32_t api_find_string(const traceprism_run_ctx* ctx, traceprism_str text) {
  if (!valid(text)) return TRACEPRISM_NO_STRING;
  return ctx->products->find_string(view(text));
}

const std::uint32_t* api_rows_of_kind(const traceprism_run_ctx* ctx, std::int32_t kind,
                                      std::uint64_t* count) {
  if (kind < 0 || kind >= TRACEPRISM_KIND_COUNT) {
    if (count) *count = 0;
    return nullptr;
  }
  const auto rows = ctx->products->rows_of_kind(kind);
  if (count) *count = rows.size();
  return rows.data();
}

std::int32_t api_gpu_args(const traceprism_run_ctx* ctx, std::uint32_t row,
                          traceprism_gpu_args_v1* out) {
  const index::EventIndex& index = ctx->products->index();
  if (!out || out->struct_size < sizeof(traceprism_gpu_args_v1)) return TRACEPRISM_ERROR;
  if (row >= index.size()) return TRACEPRISM_ABSENT;
  const std::optional<index::GpuArgs> g = index.gpu_args(row);
  if (!g) return TRACEPRISM_ABSENT;
  out->device = g->device;
  out->stream = g->stream;
  for (int i = 0; i < 3; ++i) {
    out->grid[i] = g->grid[i];
    out->block[i] = g->block[i];
  }
  out->registers_per_thread = g->registers_per_thread;
  out->shared_memory = g->shared_memory;
  // The ABI's copy constants are the index's enum values.
  static_assert(static_cast<int>(index::CopyDirection::kPeerToPeer) == TRACEPRISM_COPY_PTOP);
  static_assert(static_cast<int>(index::MemoryKind::kArray) == TRACEPRISM_MEMORY_ARRAY);
  out->copy_direction = static_cast<std::int32_t>(g->copy.direction);
  out->copy_source = static_cast<std::int32_t>(g->copy.source);
  out->copy_destination = static_cast<std::int32_t>(g->copy.destination);
  out->reserved[0] = out->reserved[1] = 0;
  out->bytes = g->bytes;
  return TRACEPRISM_OK;
}

std::int32_t api_timeline(const traceprism_run_ctx* ctx, traceprism_timeline_v1* out) {
  if (!out || out->struct_size < sizeof(traceprism_timeline_v1)) return TRACEPRISM_ERROR;
  const model::GpuTimeline& t = ctx->products->timeline();
  if (t.events == 0) return TRACEPRISM_SKIPPED;
  out->reserved = 0;
  out->gpu_event_count = t.events;
  out->total_us = t.total_us;
  out->busy_us = t.busy_us;
  out->idle_us = t.idle_us;
  out->computation_us = t.computation_us;
  out->exposed_comm_us = t.exposed_comm_us;
  out->exposed_memcpy_us = t.exposed_memcpy_us;
  out->total_comm_us = t.total_comm_us;
  out->total_memcpy_us = t.total_memcpy_us;
  return TRACEPRISM_OK;
}

const traceprism_op_instances_v1* api_op_instances(const traceprism_run_ctx* ctx) {
  return ctx->products->op_instances();
}

// Canonical JSON text of an interned arg, or {NULL, 0} when the op lacks it.
traceprism_str arg_text(const index::EventIndex& index, index::StringId id) {
  if (id == index::kNoString) return {nullptr, 0};
  return str(index.strings().view(id));
}

std::int32_t api_op_call(const traceprism_run_ctx* ctx, std::uint32_t row,
                         traceprism_op_call_v1* out) {
  const index::EventIndex& index = ctx->products->index();
  // Plugins built before minor 9 pass the minor-1 size: fill what fits.
  constexpr std::size_t kMinor1Size = offsetof(traceprism_op_call_v1, has_step_stats);
  if (!out || out->struct_size < kMinor1Size || row >= index.size()) return TRACEPRISM_ABSENT;
  const auto kind = index.kind(row);
  if (kind != index::EventKind::kCpuOp && kind != index::EventKind::kUserAnnotation &&
      kind != index::EventKind::kPythonFunction)
    return TRACEPRISM_ABSENT;
  // Valid until the next call on this thread: the SDK copies what it needs at once.
  thread_local std::vector<index::Row> kernels;
  ctx->products->subtree_gpu_rows(row, kernels);
  out->name = str(index.name(row));
  out->input_dims = out->input_types = out->input_strides = out->concrete_inputs = {nullptr, 0};
  out->sequence_number = INT64_MIN;
  if (const std::optional<index::OpArgs> a = index.op_args(row)) {
    out->input_dims = arg_text(index, a->input_dims);
    out->input_types = arg_text(index, a->input_types);
    out->input_strides = arg_text(index, a->input_strides);
    out->concrete_inputs = arg_text(index, a->concrete_inputs);
    if (a->sequence_number != index::kNoId) out->sequence_number = a->sequence_number;
  }
  out->kernel_rows = kernels.data();
  out->kernel_count = static_cast<std::uint32_t>(kernels.size());
  // Plugins built for 1.9 or 1.10 pass a struct that ends after the step stats.
  if (out->struct_size >= offsetof(traceprism_op_call_v1, pseudo_op_args)) {
    const std::optional<model::StepStats> stats = ctx->products->step_stats(row);
    out->has_step_stats = stats ? 1 : 0;
    for (std::size_t i = 0; i < 8; ++i) out->step_stats[i] = stats ? (*stats)[i] : 0;
  }
  if (out->struct_size >= sizeof(traceprism_op_call_v1)) {
    const std::optional<std::string_view> args = index.pseudo_op_args(row);
    out->pseudo_op_args = args ? str(*args) : traceprism_str{nullptr, 0};
  }
  return TRACEPRISM_OK;
}

std::int32_t api_comm_args(const traceprism_run_ctx* ctx, std::uint32_t row,
                           traceprism_comm_args_v1* out) {
  const index::EventIndex& index = ctx->products->index();
  if (!out || out->struct_size < sizeof(traceprism_comm_args_v1) || row >= index.size())
    return TRACEPRISM_ABSENT;
  const std::optional<index::CommArgs> a = index.comm_args(row);
  if (!a) return TRACEPRISM_ABSENT;
  auto count = [](std::int64_t v) { return v == index::kNoId ? std::int64_t{-1} : v; };
  out->in_nelems = count(a->in_nelems);
  out->out_nelems = count(a->out_nelems);
  out->group_size = count(a->group_size);
  out->dtype = arg_text(index, a->dtype);
  out->collective = arg_text(index, a->collective);
  return TRACEPRISM_OK;
}

std::int32_t api_perf_sheet(const traceprism_run_ctx* ctx, traceprism_str name,
                            traceprism_table_v1* out) {
  if (!valid(name) || !out || out->struct_size < sizeof(traceprism_table_v1))
    return TRACEPRISM_ABSENT;
  const traceprism_table_v1* table = ctx->products->perf_sheet(view(name));
  if (!table) return TRACEPRISM_ABSENT;
  *out = *table;
  return TRACEPRISM_OK;
}

traceprism_str api_option(const traceprism_run_ctx* ctx, traceprism_str local_name) {
  if (!valid(local_name) || !ctx->config) return {nullptr, 0};
  if (const std::string* v = ctx->config->option(ctx->owner, view(local_name))) return str(*v);
  // Unset in the configuration: the default the analyzer declared, so both agree.
  if (const traceprism_analyzer_v1* a = ctx->analyzer)
    for (std::uint32_t i = 0; i < a->option_count; ++i)
      if (a->options[i].name && view(local_name) == a->options[i].name &&
          a->options[i].default_value)
        return str(a->options[i].default_value);
  return {nullptr, 0};
}

std::int32_t api_platform_number(const traceprism_run_ctx* ctx, traceprism_str key, double* out) {
  if (!valid(key) || !ctx->platform) return TRACEPRISM_ABSENT;
  auto v = ctx->platform->number(std::string(view(key)));
  if (!v) return TRACEPRISM_ABSENT;
  if (out) *out = *v;
  return TRACEPRISM_OK;
}

traceprism_str api_trace_info(const traceprism_run_ctx* ctx, traceprism_str key) {
  std::string_view k = view(key);
  if (k == "trace.path" && ctx->trace_path) return str(*ctx->trace_path);
  if (ctx->platform) {
    if (k == "platform.name" && !ctx->platform->name.empty()) return str(ctx->platform->name);
    if (k == "device.name" && !ctx->platform->device_name.empty())
      return str(ctx->platform->device_name);
  }
  return {nullptr, 0};
}

void log_to(traceprism_run_ctx* ctx, int level, std::string message) {
  if (ctx && ctx->outcome) ctx->outcome->log.push_back({level, std::move(message)});
}

// Checks and deep-copies one table; returns an empty string or why it was refused.
std::string copy_table(const traceprism_table_v1& table, findings::DataTable& copy) {
  if (table.struct_size < sizeof(traceprism_table_v1)) return "the table struct is too small";
  if (!valid(table.title) || (table.column_count > 0 && !table.columns) ||
      (table.row_count > 0 && table.column_count > 0 && !table.cells))
    return "the table is missing its columns or cells";
  copy.title = view(table.title);
  for (std::uint32_t c = 0; c < table.column_count; ++c) {
    if (!valid(table.columns[c])) return "a column name has a size but no data";
    copy.columns.emplace_back(view(table.columns[c]));
  }
  for (std::uint64_t r = 0; r < table.row_count && table.column_count > 0; ++r) {
    std::vector<std::string> cells;
    for (std::uint32_t c = 0; c < table.column_count; ++c) {
      traceprism_str cell = table.cells[r * table.column_count + c];
      if (!valid(cell)) return "a cell has a size but no data";
      cells.emplace_back(view(cell));
    }
    copy.rows.push_back(std::move(cells));
  }
  return {};
}

// Checks and deep-copies one finding; returns an empty string or why it was refused.
std::string copy_finding(const traceprism_run_ctx* ctx, const traceprism_finding_v1& in,
                         Finding& out) {
  if (in.struct_size < sizeof(traceprism_finding_v1))
    return "finding struct_size " + std::to_string(in.struct_size) + " is smaller than ABI 1.0's";
  if (in.tier < TRACEPRISM_TIER_COMPUTE || in.tier > TRACEPRISM_TIER_SYSTEM)
    return "finding tier " + std::to_string(in.tier) + " is not 1, 2 or 3";
  if (in.severity < TRACEPRISM_SEVERITY_INFO || in.severity > TRACEPRISM_SEVERITY_CRITICAL)
    return "finding severity " + std::to_string(in.severity) + " is unknown";
  if (in.impact_kind < TRACEPRISM_IMPACT_NOT_QUANTIFIABLE ||
      in.impact_kind > TRACEPRISM_IMPACT_HEURISTIC)
    return "finding impact kind " + std::to_string(in.impact_kind) + " is unknown";
  for (traceprism_str s : {in.category, in.key, in.title, in.insight, in.action, in.identification,
                           in.reasoning, in.resolution, in.library})
    if (!valid(s)) return "finding has a string with a size but no data";
  if (in.title.size == 0) return "finding has no title";
  if (in.category.size == 0) return "finding has no category";
  if (in.impact_kind != TRACEPRISM_IMPACT_NOT_QUANTIFIABLE &&
      !(std::isfinite(in.impact_low) && std::isfinite(in.impact_mid) &&
        std::isfinite(in.impact_high)))
    return "finding impact is not a finite number";
  const auto& index = ctx->products->index();
  if (in.row_count > 0 && !in.rows) return "finding evidence rows are missing";
  for (std::uint32_t i = 0; i < in.row_count; ++i)
    if (in.rows[i] >= index.size())
      return "finding evidence row " + std::to_string(in.rows[i]) + " is past the last event";
  if (in.metric_count > 0 && !in.metrics) return "finding metrics are missing";
  if (in.table_count > 0 && !in.tables) return "finding tables are missing";

  out.tier = static_cast<findings::Tier>(in.tier);
  out.severity = static_cast<findings::Severity>(in.severity);
  out.impact_kind = static_cast<findings::ImpactKind>(in.impact_kind);
  out.category = view(in.category);
  out.key = view(in.key);
  out.title = view(in.title);
  out.insight = view(in.insight);
  out.action = view(in.action);
  out.identification = view(in.identification);
  out.reasoning = view(in.reasoning);
  out.resolution = view(in.resolution);
  out.library = view(in.library);
  if (in.struct_size >= offsetof(traceprism_finding_v1, cause) + sizeof(in.cause)) {
    if (!valid(in.cause)) return "finding cause has a size but no data";
    out.cause = view(in.cause);
    if (!out.cause.empty() && !findings::is_known_cause(out.cause))
      return "finding cause '" + out.cause + "' is not in findings.json's vocabulary";
  }
  if (in.struct_size >=
      offsetof(traceprism_finding_v1, kernel_row_count) + sizeof(in.kernel_row_count)) {
    if (in.kernel_row_count > 0 && !in.kernel_rows) return "finding kernel rows are missing";
    for (std::uint64_t i = 0; i < in.kernel_row_count; ++i)
      if (in.kernel_rows[i] >= index.size())
        return "finding kernel row " + std::to_string(in.kernel_rows[i]) +
               " is past the last event";
    out.kernels.assign(in.kernel_rows, in.kernel_rows + in.kernel_row_count);
    std::sort(out.kernels.begin(), out.kernels.end());
    out.kernels.erase(std::unique(out.kernels.begin(), out.kernels.end()), out.kernels.end());
  }
  if (in.impact_kind != TRACEPRISM_IMPACT_NOT_QUANTIFIABLE) {
    out.impact_low = in.impact_low;
    out.impact_mid = in.impact_mid;
    out.impact_high = in.impact_high;
  }
  out.share_percent = std::isfinite(in.share_percent) ? in.share_percent : -1;
  out.confidence = std::isfinite(in.confidence) ? in.confidence : -1;
  out.rows.assign(in.rows, in.rows + in.row_count);
  if (!out.rows.empty()) {
    std::int64_t first = index.ts_ns(out.rows.front());
    for (auto r : out.rows) first = std::min(first, index.ts_ns(r));
    out.first_evidence_ts_ns = first;
  }
  for (std::uint32_t i = 0; i < in.metric_count; ++i) {
    if (!valid(in.metrics[i].key)) return "finding metric key has a size but no data";
    out.metrics.emplace_back(std::string(view(in.metrics[i].key)), in.metrics[i].value);
  }
  for (std::uint32_t t = 0; t < in.table_count; ++t) {
    findings::DataTable copy;
    if (std::string problem = copy_table(in.tables[t], copy); !problem.empty())
      return "finding table " + std::to_string(t + 1) + ": " + problem;
    out.tables.push_back(std::move(copy));
  }
  return {};
}

std::int32_t api_emit(traceprism_run_ctx* ctx, const traceprism_finding_v1* finding) {
  if (!ctx->outcome) return TRACEPRISM_ERROR;  // op models cannot emit
  if (!finding) {
    log_to(ctx, TRACEPRISM_LOG_WARNING, "emit was called with no finding");
    ++ctx->outcome->refused_findings;
    return TRACEPRISM_ERROR;
  }
  Finding copy;
  if (std::string problem = copy_finding(ctx, *finding, copy); !problem.empty()) {
    log_to(ctx, TRACEPRISM_LOG_WARNING, "finding dropped: " + problem);
    ++ctx->outcome->refused_findings;
    return TRACEPRISM_ERROR;
  }
  copy.analyzer = ctx->outcome->name;
  copy.plugin = ctx->outcome->plugin;
  copy.plugin_version = ctx->outcome->plugin_version;
  ctx->outcome->findings.push_back(std::move(copy));
  return TRACEPRISM_OK;
}

void api_record(traceprism_run_ctx* ctx, const traceprism_metric_v1* figures, std::uint32_t count) {
  if (!ctx->outcome || !figures) return;
  for (std::uint32_t i = 0; i < count; ++i) {
    if (!valid(figures[i].key) || figures[i].key.size == 0) continue;
    std::string key(view(figures[i].key));
    auto& list = ctx->outcome->figures;
    auto it = std::find_if(list.begin(), list.end(), [&](const auto& f) { return f.first == key; });
    if (it != list.end())
      it->second = figures[i].value;  // recorded twice: the last value counts
    else
      list.emplace_back(std::move(key), figures[i].value);
  }
}

void api_log(traceprism_run_ctx* ctx, std::int32_t level, traceprism_str message) {
  if (!valid(message)) return;
  log_to(ctx, level, std::string(view(message)));
}

void api_set_error(traceprism_run_ctx* ctx, traceprism_str message) {
  if (ctx->outcome && valid(message)) ctx->outcome->error = std::string(view(message));
}

const std::int32_t* api_python_tree_parents(const traceprism_run_ctx* ctx, std::uint64_t* count) {
  const auto parents = ctx->products->python_tree_parents();
  if (count) *count = parents.size();
  return parents.data();
}

const std::uint32_t* api_unified_perf_events(const traceprism_run_ctx* ctx, std::uint64_t* count) {
  const auto events = ctx->products->unified_events();
  if (count) *count = events.size();
  return events.data();
}

std::int32_t api_publish(traceprism_run_ctx* ctx, traceprism_str name,
                         const traceprism_table_v1* table) {
  if (!ctx->outcome) return TRACEPRISM_ERROR;  // op models cannot publish
  std::string problem;
  if (!valid(name) || name.size == 0)
    problem = "a product needs a name";
  else if (!table || table->struct_size < sizeof(traceprism_table_v1))
    problem = "product '" + std::string(view(name)) + "' has no table";
  findings::DataTable copy;
  if (problem.empty()) problem = copy_table(*table, copy);
  if (!problem.empty()) {
    log_to(ctx, TRACEPRISM_LOG_WARNING, "product refused: " + problem);
    return TRACEPRISM_ERROR;
  }
  copy.title = view(name);
  auto& products = ctx->outcome->products;
  std::erase_if(products, [&](const findings::DataTable& t) { return t.title == copy.title; });
  products.push_back(std::move(copy));
  return TRACEPRISM_OK;
}

std::int32_t api_product(const traceprism_run_ctx* ctx, traceprism_str name,
                         traceprism_table_v1* out) {
  if (!valid(name) || !out || out->struct_size < sizeof(traceprism_table_v1))
    return TRACEPRISM_ABSENT;
  const std::string_view wanted = view(name);
  if (auto it = ctx->product_views.find(wanted); it != ctx->product_views.end()) {
    *out = it->second.table;
    return TRACEPRISM_OK;
  }
  for (const findings::AnalyzerOutcome* dependency : ctx->dependencies)
    for (const findings::DataTable& t : dependency->products) {
      if (t.title != wanted) continue;
      traceprism_run_ctx::ProductView& v = ctx->product_views[t.title];
      for (const auto& c : t.columns) v.columns.push_back(str(c));
      for (const auto& row : t.rows)
        for (const auto& c : row) v.cells.push_back(str(c));
      v.table.struct_size = sizeof(traceprism_table_v1);
      v.table.column_count = static_cast<std::uint32_t>(t.columns.size());
      v.table.row_count = t.rows.size();
      v.table.title = str(t.title);
      v.table.columns = v.columns.data();
      v.table.cells = v.cells.data();
      *out = v.table;
      return TRACEPRISM_OK;
    }
  return TRACEPRISM_ABSENT;
}

const traceprism_op_metrics_v1* api_op_metrics(const traceprism_run_ctx* ctx) {
  return ctx->products->op_metrics();
}

const traceprism_idle_attribution_v1* api_idle_attribution(const traceprism_run_ctx* ctx) {
  return ctx->products->idle_attribution();
}

const traceprism_trace_diff_v1* api_trace_diff(const traceprism_run_ctx* ctx) {
  return ctx->products->trace_diff();
}

const traceprism_host_api_v1 kHostApi = {
    sizeof(traceprism_host_api_v1),
    TRACEPRISM_ABI_MAJOR,
    TRACEPRISM_ABI_MINOR,
    0,
    api_events,
    api_string,
    api_find_string,
    api_rows_of_kind,
    api_gpu_args,
    api_timeline,
    api_op_instances,
    api_option,
    api_platform_number,
    api_trace_info,
    api_emit,
    api_record,
    api_log,
    api_set_error,
    api_op_call,
    api_perf_sheet,
    api_python_tree_parents,
    api_publish,
    api_product,
    api_unified_perf_events,
    api_core_events,
    api_gpu_events,
    api_op_metrics,
    api_idle_attribution,
    api_comm_args,
    api_trace_diff,
};

}  // namespace

const traceprism_host_api_v1* host_api() {
  return &kHostApi;
}

}  // namespace traceprism::plugins
