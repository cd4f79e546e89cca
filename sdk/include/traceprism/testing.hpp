// traceprism SDK: a fake host for plugin unit tests (header-only, C++17, no test framework).
//
//   traceprism::testing::FakeTrace trace;
//   auto launch = trace.runtime("cudaLaunchKernel", 10, 5).correlation(1);
//   trace.kernel("gemm_kernel", 20, 100).launcher(launch).correlation(1);
//   trace.set_option("my-analyzer.Limit", "3");
//   auto result = traceprism::testing::run<MyAnalyzer>(trace, "my-analyzer");
//   assert(result.status == traceprism::Status::kOk && result.findings.size() == 1);
//
// FakeTrace holds events, options, platform numbers and derived products in plain vectors and
// implements every function of traceprism_host_api_v1 over them, the way the host does: rows are
// numbered in insertion order (file order), rows_of_kind is sorted by (ts, row), and everything
// an analyzer emits, records, logs or reports as its error is deep-copied into a RunResult.
#pragma once

#include <traceprism/collective.hpp>
#include <traceprism/sdk.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace traceprism::testing {

// ---- what a run captured (deep copies; valid after the run) --------------------------------
struct FindingTable {
  std::string title;
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
};

struct Finding {
  Tier tier = Tier::kSystem;
  Severity severity = Severity::kInfo;
  std::int32_t impact_kind = TRACEPRISM_IMPACT_NOT_QUANTIFIABLE;
  std::string category, key, title, insight, action, identification, reasoning, resolution, library;
  std::string cause;  // ABI 1.6; empty when the finding names none
  double impact_low = 0, impact_mid = 0, impact_high = 0, share_percent = -1, confidence = -1;
  std::vector<Row> rows;
  std::vector<Row> kernel_rows;  // ABI 1.7: every GPU event the finding is about
  std::vector<std::pair<std::string, double>> metrics;
  std::vector<FindingTable> tables;

  // The value of metric `name`, or NaN when the finding has none.
  double metric(std::string_view name) const {
    for (const auto& [k, v] : metrics)
      if (k == name) return v;
    return std::nan("");
  }
};

struct LogLine {
  std::int32_t level;  // TRACEPRISM_LOG_*
  std::string message;
};

// A named table (ABI 1.2 products): what an analyzer published, or what a test hands it as
// a dependency's product.
struct Product {
  std::string name;
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
};

struct RunResult {
  Status status = Status::kError;
  std::vector<Product> products;  // published by the run
  std::vector<Finding> findings;
  std::vector<std::pair<std::string, double>> figures;
  std::vector<LogLine> logs;
  std::string error;  // the message given to set_error (ctx.fail), empty if none

  // The value of figure `name`, or NaN when it was not recorded.
  double figure(std::string_view name) const {
    for (const auto& [k, v] : figures)
      if (k == name) return v;
    return std::nan("");
  }
};

// The result of one op model call (run_op_model).
struct OpModelRun {
  Status status = Status::kError;
  OpModelResult result;
};

// A phase-1 op instance: the host event that owns GPU work, with its kernels.
struct OpInstance {
  Row row = kNoRow;
  std::vector<Row> kernels;
  double direct_busy_us = -1;   // -1: the union of the kernels' intervals
  double subtree_busy_us = -1;  // -1: same as direct_busy_us
  std::string category;         // empty: no op model claimed it
  double flops = -1, bytes = -1;
};

class FakeTrace;
class EventRef;
namespace detail {
class Session;
}

// ---- the fake trace ------------------------------------------------------------------------
class FakeTrace {
 public:
  FakeTrace() { strings_.emplace_back(); }  // id 0 is the empty string

  // Adds an event; times in microseconds (as in Kineto JSON). Use EventRef::ns for exact ns.
  EventRef add(Kind kind, std::string_view name, double ts_us, double dur_us);
  EventRef cpu_op(std::string_view name, double ts_us, double dur_us);
  EventRef user_annotation(std::string_view name, double ts_us, double dur_us);
  EventRef runtime(std::string_view name, double ts_us, double dur_us);
  EventRef kernel(std::string_view name, double ts_us, double dur_us);
  EventRef memcpy(std::string_view name, double ts_us, double dur_us);
  EventRef memset(std::string_view name, double ts_us, double dur_us);

  // Derived products. Without set_timeline, timeline() is computed from the GPU rows (and is
  // TRACEPRISM_SKIPPED when there are none).
  void set_timeline(const traceprism_timeline_v1& t) { timeline_ = t, has_timeline_ = true; }
  OpInstance& add_op_instance(Row row, std::vector<Row> kernels) {
    OpInstance& op = op_instances_.emplace_back();
    op.row = row;
    op.kernels = std::move(kernels);
    return op;
  }

  // Run settings. Option keys are "<analyzer>.<Option>", as in --config files.
  void set_option(std::string key, std::string value) {
    options_[std::move(key)] = std::move(value);
  }
  void set_platform_number(std::string key, double v) { platform_[std::move(key)] = v; }
  void set_trace_info(std::string key, std::string v) { info_[std::move(key)] = std::move(v); }
  // A product of one of the analyzer's dependencies, readable with Context::product.
  void add_product(Product p) { products_.push_back(std::move(p)); }
  // The rows unified_perf_summary stands for, read with Context::unified_perf_events.
  void set_unified_perf_events(std::vector<Row> rows) { unified_perf_events_ = std::move(rows); }
  // The op metrics table Context::op_metrics reads (ABI 1.5); the caller keeps it alive (the
  // host's own columns, e.g. built by traceprism's OpMetricsTable, or hand-made ones). Null:
  // the run has no unified_perf_summary.
  void set_op_metrics(const traceprism_op_metrics_v1* table) { op_metrics_ = table; }
  // The idle attribution Context::idle_attribution reads (ABI 1.6); the caller keeps it alive
  // (hand-made columns, or the host's). Null: none, as for a trace without GPU events.
  void set_idle_attribution(const traceprism_idle_attribution_v1* table) {
    idle_attribution_ = table;
  }
  // The collective message args Context::comm_args reads for `row` (ABI 1.7).
  void set_comm_args(Row row, std::int64_t in_nelems, std::int64_t out_nelems,
                     std::int64_t group_size, std::string dtype, std::string collective) {
    comm_args_[row] = {in_nelems, out_nelems, group_size, std::move(dtype), std::move(collective)};
  }

  std::size_t size() const { return events_.size(); }
  // The id of a string, added to the trace's string table if new.
  StringId intern(std::string_view s) const {
    if (s.empty()) return kNoString;
    for (std::size_t i = 1; i < strings_.size(); ++i)
      if (strings_[i] == s) return static_cast<StringId>(i);
    strings_.emplace_back(s);
    return static_cast<StringId>(strings_.size() - 1);
  }

 private:
  friend class EventRef;
  friend class detail::Session;
  struct Event {
    std::int64_t ts_ns, dur_ns;
    Kind kind;
    StringId name, category;
    std::uint32_t thread;
    std::int32_t device, stream;
    std::int64_t correlation = 0, external_id = 0;
    Row parent = kNoRow, launcher = kNoRow;
    GpuClass gpu_class;
    traceprism_gpu_args_v1 args;
  };
  std::vector<Event> events_;
  mutable std::vector<std::string> strings_;  // interning does not change the trace
  std::vector<OpInstance> op_instances_;
  std::map<std::string, std::string> options_, info_;
  std::map<std::string, double> platform_;
  traceprism_timeline_v1 timeline_{};
  bool has_timeline_ = false;
  std::vector<Product> products_;
  std::vector<Row> unified_perf_events_;
  const traceprism_op_metrics_v1* op_metrics_ = nullptr;
  const traceprism_idle_attribution_v1* idle_attribution_ = nullptr;
  struct FakeCommArgs {
    std::int64_t in_nelems, out_nelems, group_size;
    std::string dtype, collective;
  };
  std::map<Row, FakeCommArgs> comm_args_;
};

// A handle on an added event, to set its other columns; converts to its Row.
class EventRef {
 public:
  EventRef(FakeTrace& trace, Row row) : trace_(&trace), row_(row) {}
  operator Row() const { return row_; }
  Row row() const { return row_; }

  EventRef& ns(std::int64_t ts, std::int64_t dur) {
    return set(e().ts_ns, ts).set(e().dur_ns, dur);
  }
  EventRef& category(std::string_view c) { return set(e().category, trace_->intern(c)); }
  EventRef& thread(std::uint32_t t) { return set(e().thread, t); }
  EventRef& device(std::int32_t d) { return set(e().device, d).set(e().args.device, d); }
  EventRef& stream(std::int32_t s) { return set(e().stream, s).set(e().args.stream, s); }
  EventRef& correlation(std::int64_t c) { return set(e().correlation, c); }
  EventRef& external_id(std::int64_t x) { return set(e().external_id, x); }
  EventRef& parent(Row p) { return set(e().parent, p); }
  EventRef& launcher(Row l) { return set(e().launcher, l); }
  EventRef& gpu_class(GpuClass g) { return set(e().gpu_class, g); }
  EventRef& grid(std::int32_t x, std::int32_t y, std::int32_t z) {
    e().args.grid[0] = x, e().args.grid[1] = y, e().args.grid[2] = z;
    return *this;
  }
  EventRef& block(std::int32_t x, std::int32_t y, std::int32_t z) {
    e().args.block[0] = x, e().args.block[1] = y, e().args.block[2] = z;
    return *this;
  }
  EventRef& registers(std::int32_t r) { return set(e().args.registers_per_thread, r); }
  EventRef& shared_memory(std::int32_t b) { return set(e().args.shared_memory, b); }
  EventRef& bytes(std::int64_t b) { return set(e().args.bytes, b); }
  // TRACEPRISM_COPY_* direction, TRACEPRISM_MEMORY_* source and destination.
  EventRef& copy(std::int32_t direction, std::int32_t source, std::int32_t destination) {
    e().args.copy_direction = direction, e().args.copy_source = source;
    return set(e().args.copy_destination, destination);
  }

 private:
  FakeTrace::Event& e() { return trace_->events_[row_]; }
  template <class F, class V>
  EventRef& set(F& field, V value) {
    field = static_cast<F>(value);
    return *this;
  }
  FakeTrace* trace_;
  Row row_;
};

inline EventRef FakeTrace::add(Kind kind, std::string_view name, double ts_us, double dur_us) {
  const bool gpu = kind == Kind::kKernel || kind == Kind::kMemcpy || kind == Kind::kMemset;
  Event e{};
  e.ts_ns = std::llround(ts_us * 1000.0);
  e.dur_ns = std::llround(dur_us * 1000.0);
  e.kind = kind;
  e.name = intern(name);
  e.thread = gpu ? kNoRow : 0;  // GPU rows: device 0, stream 7 unless set
  e.device = gpu ? 0 : -1;
  e.stream = gpu ? 7 : -1;
  const bool comm = collective::classify_kernel(name).type != collective::Type::kNone;
  e.gpu_class = !gpu                    ? GpuClass::kNone
                : kind == Kind::kMemcpy ? GpuClass::kMemcpy
                : comm                  ? GpuClass::kCommunication
                                        : GpuClass::kComputation;
  e.args.struct_size = sizeof(traceprism_gpu_args_v1);
  e.args.device = e.device, e.args.stream = e.stream;
  e.args.registers_per_thread = e.args.shared_memory = -1;
  e.args.bytes = -1;
  events_.push_back(e);
  return EventRef(*this, static_cast<Row>(events_.size() - 1));
}
inline EventRef FakeTrace::cpu_op(std::string_view n, double ts, double dur) {
  return add(Kind::kCpuOp, n, ts, dur).category("cpu_op");
}
inline EventRef FakeTrace::user_annotation(std::string_view n, double ts, double dur) {
  return add(Kind::kUserAnnotation, n, ts, dur).category("user_annotation");
}
inline EventRef FakeTrace::runtime(std::string_view n, double ts, double dur) {
  return add(Kind::kRuntime, n, ts, dur).category("cuda_runtime");
}
inline EventRef FakeTrace::kernel(std::string_view n, double ts, double dur) {
  return add(Kind::kKernel, n, ts, dur).category("kernel");
}
inline EventRef FakeTrace::memcpy(std::string_view n, double ts, double dur) {
  return add(Kind::kMemcpy, n, ts, dur).category("gpu_memcpy");
}
inline EventRef FakeTrace::memset(std::string_view n, double ts, double dur) {
  return add(Kind::kMemset, n, ts, dur).category("gpu_memset");
}

namespace detail {

// Total length of the union of [start, end) intervals.
inline double union_length(std::vector<std::pair<double, double>> v) {
  std::sort(v.begin(), v.end());
  double total = 0, start = 0, end = 0;
  bool open = false;
  for (const auto& [s, e] : v) {
    if (open && s <= end) {
      end = std::max(end, e);
      continue;
    }
    if (open) total += end - start;
    start = s, end = e, open = true;
  }
  return open ? total + end - start : total;
}

// One run of one callback: the frozen columns of a FakeTrace plus what the callback produced.
// The traceprism_run_ctx* handed to the plugin points at this object.
class Session {
 public:
  Session(const FakeTrace& trace, const char* name, const traceprism_analyzer_v1* entry)
      : t_(trace), analyzer_(name ? name : ""), entry_(entry) {
    for (const auto& e : t_.events_) {
      ts_.push_back(e.ts_ns), dur_.push_back(e.dur_ns), kind_.push_back(std::uint8_t(e.kind));
      name_.push_back(e.name), cat_.push_back(e.category), thread_.push_back(e.thread);
      device_.push_back(e.device), stream_.push_back(e.stream), corr_.push_back(e.correlation);
      ext_.push_back(e.external_id), parent_.push_back(e.parent), launcher_.push_back(e.launcher);
      gpu_class_.push_back(std::uint8_t(e.gpu_class));
    }
    // clang-format off
    columns_ = {sizeof(traceprism_event_columns_v1), 0, t_.events_.size(), ts_.data(),
        dur_.data(), kind_.data(), name_.data(), cat_.data(), thread_.data(), device_.data(),
        stream_.data(), corr_.data(), ext_.data(), parent_.data(), launcher_.data(),
        gpu_class_.data()};
    // clang-format on
    core_columns_ = columns_;
    core_columns_.thread = nullptr;
    core_columns_.device = core_columns_.stream = nullptr;
    core_columns_.gpu_class = nullptr;
    for (Row r = 0; r < t_.events_.size(); ++r) {
      const std::uint8_t k = kind_[r];
      if (k != TRACEPRISM_KIND_KERNEL && k != TRACEPRISM_KIND_MEMCPY && k != TRACEPRISM_KIND_MEMSET)
        continue;
      gpu_row_.push_back(r), gpu_device_.push_back(device_[r]);
      gpu_stream_.push_back(stream_[r]), gpu_class_of_row_.push_back(gpu_class_[r]);
    }
    gpu_table_ = {sizeof(traceprism_gpu_events_v1),
                  0,
                  gpu_row_.size(),
                  gpu_row_.data(),
                  gpu_device_.data(),
                  gpu_stream_.data(),
                  gpu_class_of_row_.data()};
    for (Row r = 0; r < t_.events_.size(); ++r) by_kind_[kind_[r]].push_back(r);
    for (auto& rows : by_kind_)
      std::sort(rows.begin(), rows.end(),
                [&](Row a, Row b) { return ts_[a] != ts_[b] ? ts_[a] < ts_[b] : a < b; });
    build_op_instances();
    for (Row p : parent_)
      python_parents_.push_back(p == kNoRow ? -1 : static_cast<std::int32_t>(p));
    for (const Product& p : t_.products_) {
      ProductView& v = product_views_.emplace_back();
      for (const auto& c : p.columns) v.columns.push_back(to_str(c));
      for (const auto& row : p.rows)
        for (std::size_t i = 0; i < p.columns.size(); ++i)
          v.cells.push_back(i < row.size() ? to_str(row[i]) : traceprism_str{"", 0});
      v.table.struct_size = sizeof v.table;
      v.table.column_count = static_cast<std::uint32_t>(p.columns.size());
      v.table.row_count = p.rows.size();
      v.table.title = to_str(p.name);
      v.table.columns = v.columns.data();
      v.table.cells = v.cells.data();
    }
  }
  traceprism_run_ctx* ctx() { return reinterpret_cast<traceprism_run_ctx*>(this); }
  RunResult result;

  static const traceprism_host_api_v1* api() {
    // clang-format off
    static const traceprism_host_api_v1 table = {sizeof(traceprism_host_api_v1),
        TRACEPRISM_ABI_MAJOR, TRACEPRISM_ABI_MINOR, 0, &events, &string, &find_string,
        &rows_of_kind, &gpu_args, &timeline, &op_instances, &option, &platform_number,
        &trace_info, &emit, &record, &log, &set_error, &op_call, nullptr,
        &python_tree_parents, &publish, &product, &unified_perf_events, &core_events,
        &gpu_events, &op_metrics, &idle_attribution, &comm_args, nullptr};
    // clang-format on
    return &table;
  }

 private:
  static const Session& self(const traceprism_run_ctx* c) {
    return *reinterpret_cast<const Session*>(c);
  }
  static Session& self(traceprism_run_ctx* c) { return *reinterpret_cast<Session*>(c); }

  // ---- the host API ----
  static const traceprism_event_columns_v1* events(const traceprism_run_ctx* c) {
    return &self(c).columns_;
  }
  static const traceprism_event_columns_v1* core_events(const traceprism_run_ctx* c) {
    return &self(c).core_columns_;
  }
  static const traceprism_gpu_events_v1* gpu_events(const traceprism_run_ctx* c) {
    return &self(c).gpu_table_;
  }
  // Fake traces carry no shape args: an op call is its name, with no kernels.
  static std::int32_t op_call(const traceprism_run_ctx* c, std::uint32_t row,
                              traceprism_op_call_v1* out) {
    const Session& s = self(c);
    if (row >= s.columns_.count || s.kind_[row] != TRACEPRISM_KIND_CPU_OP) return TRACEPRISM_ABSENT;
    out->name = string(c, s.name_[row]);
    out->input_dims = out->input_types = out->input_strides = out->concrete_inputs = {nullptr, 0};
    out->sequence_number = INT64_MIN;
    out->kernel_rows = nullptr;
    out->kernel_count = 0;
    return TRACEPRISM_OK;
  }
  // Fake traces nest python_function events like any other: the parent column is the tree.
  static const std::int32_t* python_tree_parents(const traceprism_run_ctx* c,
                                                 std::uint64_t* count) {
    const Session& s = self(c);
    if (count) *count = s.python_parents_.size();
    return s.python_parents_.data();
  }
  static const std::uint32_t* unified_perf_events(const traceprism_run_ctx* c,
                                                  std::uint64_t* count) {
    const Session& s = self(c);
    if (count) *count = s.t_.unified_perf_events_.size();
    return s.t_.unified_perf_events_.data();
  }
  static const traceprism_op_metrics_v1* op_metrics(const traceprism_run_ctx* c) {
    return self(c).t_.op_metrics_;
  }
  static const traceprism_idle_attribution_v1* idle_attribution(const traceprism_run_ctx* c) {
    return self(c).t_.idle_attribution_;
  }
  static std::int32_t comm_args(const traceprism_run_ctx* c, std::uint32_t row,
                                traceprism_comm_args_v1* out) {
    const auto& args = self(c).t_.comm_args_;
    const auto it = args.find(row);
    if (!out || out->struct_size < sizeof(*out) || it == args.end()) return TRACEPRISM_ABSENT;
    out->in_nelems = it->second.in_nelems;
    out->out_nelems = it->second.out_nelems;
    out->group_size = it->second.group_size;
    out->dtype = to_str(it->second.dtype);
    out->collective = to_str(it->second.collective);
    return TRACEPRISM_OK;
  }
  static std::int32_t publish(traceprism_run_ctx* c, traceprism_str name,
                              const traceprism_table_v1* t) {
    if (!name.data || !t) return TRACEPRISM_ERROR;
    Product p;
    p.name = std::string(to_view(name));
    for (std::uint32_t i = 0; i < t->column_count; ++i)
      p.columns.emplace_back(to_view(t->columns[i]));
    for (std::uint64_t r = 0; r < t->row_count; ++r) {
      auto& row = p.rows.emplace_back();
      for (std::uint32_t i = 0; i < t->column_count; ++i)
        row.emplace_back(to_view(t->cells[r * t->column_count + i]));
    }
    self(c).result.products.push_back(std::move(p));
    return TRACEPRISM_OK;
  }
  static std::int32_t product(const traceprism_run_ctx* c, traceprism_str name,
                              traceprism_table_v1* out) {
    const Session& s = self(c);
    for (std::size_t i = 0; i < s.t_.products_.size(); ++i) {
      if (s.t_.products_[i].name != to_view(name)) continue;
      *out = s.product_views_[i].table;
      return TRACEPRISM_OK;
    }
    return TRACEPRISM_ABSENT;
  }
  static traceprism_str string(const traceprism_run_ctx* c, std::uint32_t id) {
    const auto& s = self(c).t_.strings_;
    return id < s.size() ? to_str(s[id]) : traceprism_str{nullptr, 0};
  }
  static std::uint32_t find_string(const traceprism_run_ctx* c, traceprism_str text) {
    const auto& s = self(c).t_.strings_;
    for (std::size_t i = 1; i < s.size(); ++i)
      if (s[i] == to_view(text)) return static_cast<std::uint32_t>(i);
    return kNoString;
  }
  static const std::uint32_t* rows_of_kind(const traceprism_run_ctx* c, std::int32_t kind,
                                           std::uint64_t* count) {
    const bool valid = kind >= 0 && kind < TRACEPRISM_KIND_COUNT;
    const auto& rows = self(c).by_kind_[valid ? kind : 0];
    if (count) *count = valid ? rows.size() : 0;
    return valid ? rows.data() : nullptr;
  }
  static std::int32_t gpu_args(const traceprism_run_ctx* c, std::uint32_t row,
                               traceprism_gpu_args_v1* out) {
    const auto& ev = self(c).t_.events_;
    if (!out || out->struct_size < sizeof(*out)) return TRACEPRISM_ERROR;
    if (row >= ev.size() || ev[row].gpu_class == GpuClass::kNone) return TRACEPRISM_ABSENT;
    const std::uint32_t size = out->struct_size;
    *out = ev[row].args;
    out->struct_size = size;
    return TRACEPRISM_OK;
  }
  static std::int32_t timeline(const traceprism_run_ctx* c, traceprism_timeline_v1* out);
  static const traceprism_op_instances_v1* op_instances(const traceprism_run_ctx* c) {
    return &self(c).ops_;
  }
  static traceprism_str option(const traceprism_run_ctx* c, traceprism_str local_name) {
    const Session& s = self(c);
    const std::string_view local = to_view(local_name);
    for (const auto& [key, value] : s.t_.options_) {
      const auto dot = key.find('.');
      const std::string_view owner = dot == key.npos ? "" : std::string_view(key).substr(0, dot);
      const std::string_view name = dot == key.npos ? key : std::string_view(key).substr(dot + 1);
      // An unnamed run (run<T>(trace)) accepts the option of any analyzer.
      if (name == local && (owner == s.analyzer_ || s.analyzer_.empty())) return to_str(value);
    }
    // Unset: the default the analyzer declared in its option table, as the host does.
    for (std::uint32_t i = 0; s.entry_ && i < s.entry_->option_count; ++i)
      if (s.entry_->options[i].name && local == s.entry_->options[i].name)
        return to_str(s.entry_->options[i].default_value);
    return {nullptr, 0};
  }
  static std::int32_t platform_number(const traceprism_run_ctx* c, traceprism_str key,
                                      double* out) {
    const auto& p = self(c).t_.platform_;
    auto it = p.find(std::string(to_view(key)));
    if (it == p.end()) return TRACEPRISM_ABSENT;
    *out = it->second;
    return TRACEPRISM_OK;
  }
  static traceprism_str trace_info(const traceprism_run_ctx* c, traceprism_str key) {
    const auto& i = self(c).t_.info_;
    auto it = i.find(std::string(to_view(key)));
    return it == i.end() ? traceprism_str{nullptr, 0} : to_str(it->second);
  }
  static std::int32_t emit(traceprism_run_ctx* c, const traceprism_finding_v1* f);
  static void record(traceprism_run_ctx* c, const traceprism_metric_v1* m, std::uint32_t n) {
    auto& figures = self(c).result.figures;
    for (std::uint32_t i = 0; m && i < n; ++i) {
      const std::string_view key = to_view(m[i].key);
      if (key.empty()) continue;
      auto it = std::find_if(figures.begin(), figures.end(),
                             [&](const auto& f) { return f.first == key; });
      if (it != figures.end())
        it->second = m[i].value;  // recorded twice: the last value counts
      else
        figures.emplace_back(key, m[i].value);
    }
  }
  static void log(traceprism_run_ctx* c, std::int32_t level, traceprism_str message) {
    self(c).result.logs.push_back({level, std::string(to_view(message))});
  }
  static void set_error(traceprism_run_ctx* c, traceprism_str message) {
    self(c).result.error = std::string(to_view(message));
  }

  void build_op_instances();

  const FakeTrace& t_;
  std::string analyzer_;
  const traceprism_analyzer_v1* entry_;  // null for op models, which cannot emit
  std::vector<std::int64_t> ts_, dur_, corr_, ext_;
  std::vector<std::uint8_t> kind_, gpu_class_;
  std::vector<std::uint32_t> name_, cat_, thread_, parent_, launcher_;
  std::vector<std::int32_t> device_, stream_;
  traceprism_event_columns_v1 columns_{};
  traceprism_event_columns_v1 core_columns_{};  // ABI 1.4: without the four per-row columns
  std::vector<Row> gpu_row_;
  std::vector<std::int32_t> gpu_device_, gpu_stream_;
  std::vector<std::uint8_t> gpu_class_of_row_;
  traceprism_gpu_events_v1 gpu_table_{};
  std::vector<Row> by_kind_[TRACEPRISM_KIND_COUNT];
  std::vector<std::uint32_t> op_row_, op_begin_, op_count_, op_kernels_, op_category_;
  std::vector<double> op_direct_, op_subtree_, op_flops_, op_bytes_;
  traceprism_op_instances_v1 ops_{};
  std::vector<std::int32_t> python_parents_;
  struct ProductView {
    std::vector<traceprism_str> columns, cells;
    traceprism_table_v1 table{};
  };
  std::vector<ProductView> product_views_;
};

inline std::int32_t Session::timeline(const traceprism_run_ctx* c, traceprism_timeline_v1* out) {
  const Session& s = self(c);
  if (!out || out->struct_size < sizeof(*out)) return TRACEPRISM_ERROR;
  if (s.t_.has_timeline_) {
    *out = s.t_.timeline_;
    out->struct_size = sizeof(*out);
    return TRACEPRISM_OK;
  }
  using Spans = std::vector<std::pair<double, double>>;
  Spans all, comp, comp_comm, comm, copy;
  for (const auto& e : s.t_.events_) {
    if (e.gpu_class == GpuClass::kNone) continue;
    const std::pair<double, double> span{e.ts_ns / 1000.0, (e.ts_ns + e.dur_ns) / 1000.0};
    all.push_back(span);
    if (e.gpu_class == GpuClass::kComputation) comp.push_back(span);
    if (e.gpu_class == GpuClass::kCommunication) comm.push_back(span);
    if (e.gpu_class == GpuClass::kMemcpy) copy.push_back(span);
    if (e.gpu_class != GpuClass::kMemcpy) comp_comm.push_back(span);
  }
  if (all.empty()) return TRACEPRISM_SKIPPED;
  traceprism_timeline_v1 t{};
  t.struct_size = sizeof(t);
  t.gpu_event_count = all.size();
  double first = all[0].first, last = all[0].second;
  for (const auto& [a, b] : all) first = std::min(first, a), last = std::max(last, b);
  t.total_us = last - first;
  t.busy_us = union_length(all);
  t.idle_us = t.total_us - t.busy_us;
  t.computation_us = union_length(comp);
  t.total_comm_us = union_length(comm);
  t.total_memcpy_us = union_length(copy);
  const double comp_comm_us = union_length(comp_comm);
  t.exposed_comm_us = comp_comm_us - t.computation_us;  // |comp ∪ comm| - |comp|
  t.exposed_memcpy_us = t.busy_us - comp_comm_us;       // |all| - |comp ∪ comm|
  *out = t;
  return TRACEPRISM_OK;
}

inline void Session::build_op_instances() {
  for (const OpInstance& op : t_.op_instances_) {
    std::vector<std::pair<double, double>> spans;
    op_row_.push_back(op.row);
    op_begin_.push_back(static_cast<std::uint32_t>(op_kernels_.size()));
    op_count_.push_back(static_cast<std::uint32_t>(op.kernels.size()));
    for (Row k : op.kernels) {
      op_kernels_.push_back(k);
      spans.emplace_back(ts_[k] / 1000.0, (ts_[k] + dur_[k]) / 1000.0);
    }
    const double direct = op.direct_busy_us >= 0 ? op.direct_busy_us : union_length(spans);
    op_direct_.push_back(direct);
    op_subtree_.push_back(op.subtree_busy_us >= 0 ? op.subtree_busy_us : direct);
    op_category_.push_back(t_.intern(op.category));
    op_flops_.push_back(op.flops), op_bytes_.push_back(op.bytes);
  }
  // clang-format off
  ops_ = {sizeof(traceprism_op_instances_v1), 0, op_row_.size(), op_row_.data(),
      op_direct_.data(), op_subtree_.data(), op_begin_.data(), op_count_.data(),
      op_kernels_.data(), op_category_.data(), op_flops_.data(), op_bytes_.data()};
  // clang-format on
}

// Refuses what the host refuses (logged as a warning, finding dropped), deep-copies the rest.
inline std::int32_t Session::emit(traceprism_run_ctx* c, const traceprism_finding_v1* f) {
  Session& s = self(c);
  if (!s.entry_) return TRACEPRISM_ERROR;  // op models cannot emit
  const char* problem = nullptr;
  if (!f || f->struct_size < sizeof(traceprism_finding_v1))
    problem = "finding struct_size is smaller than ABI 1.0's";
  else if (f->tier < TRACEPRISM_TIER_COMPUTE || f->tier > TRACEPRISM_TIER_SYSTEM)
    problem = "finding tier is not 1, 2 or 3";
  else if (f->severity < TRACEPRISM_SEVERITY_INFO || f->severity > TRACEPRISM_SEVERITY_CRITICAL)
    problem = "finding severity is unknown";
  else if (f->impact_kind < 0 || f->impact_kind > TRACEPRISM_IMPACT_HEURISTIC)
    problem = "finding impact kind is unknown";
  else if (f->title.size == 0)
    problem = "finding has no title";
  else if (f->category.size == 0)
    problem = "finding has no category";
  for (std::uint32_t i = 0; !problem && i < f->row_count; ++i)
    if (f->rows[i] >= s.columns_.count) problem = "finding evidence row is past the last event";
  if (!problem && f->struct_size >= offsetof(traceprism_finding_v1, kernel_row_count) +
                                        sizeof(f->kernel_row_count))
    for (std::uint64_t i = 0; !problem && i < f->kernel_row_count; ++i)
      if (f->kernel_rows[i] >= s.columns_.count)
        problem = "finding kernel row is past the last event";
  if (problem) {
    s.result.logs.push_back({TRACEPRISM_LOG_WARNING, std::string("finding dropped: ") + problem});
    return TRACEPRISM_ERROR;
  }
  Finding out;
  out.tier = static_cast<Tier>(f->tier);
  out.severity = static_cast<Severity>(f->severity);
  out.impact_kind = f->impact_kind;
  auto text = [](traceprism_str v) { return std::string(to_view(v)); };
  out.category = text(f->category), out.key = text(f->key), out.title = text(f->title);
  out.insight = text(f->insight), out.action = text(f->action);
  out.identification = text(f->identification), out.reasoning = text(f->reasoning);
  out.resolution = text(f->resolution), out.library = text(f->library);
  if (f->struct_size >= offsetof(traceprism_finding_v1, cause) + sizeof(f->cause))
    out.cause = text(f->cause);
  out.impact_low = f->impact_low, out.impact_mid = f->impact_mid, out.impact_high = f->impact_high;
  out.share_percent = f->share_percent, out.confidence = f->confidence;
  out.rows.assign(f->rows, f->rows + f->row_count);
  if (f->struct_size >=
          offsetof(traceprism_finding_v1, kernel_row_count) + sizeof(f->kernel_row_count) &&
      f->kernel_rows)
    out.kernel_rows.assign(f->kernel_rows, f->kernel_rows + f->kernel_row_count);
  for (std::uint32_t i = 0; i < f->metric_count; ++i)
    out.metrics.emplace_back(to_view(f->metrics[i].key), f->metrics[i].value);
  for (std::uint32_t i = 0; i < f->table_count; ++i) {
    const traceprism_table_v1& t = f->tables[i];
    FindingTable table{std::string(to_view(t.title)), {}, {}};
    for (std::uint32_t col = 0; col < t.column_count; ++col)
      table.columns.emplace_back(to_view(t.columns[col]));
    for (std::uint64_t r = 0; r < t.row_count; ++r) {
      table.rows.emplace_back();
      for (std::uint32_t col = 0; col < t.column_count; ++col)
        table.rows.back().emplace_back(to_view(t.cells[r * t.column_count + col]));
    }
    out.tables.push_back(std::move(table));
  }
  s.result.findings.push_back(std::move(out));
  return TRACEPRISM_OK;
}

}  // namespace detail

// ---- running analyzers and op models -------------------------------------------------------

// Runs a C analyzer entry (what a plugin's table holds) against the trace.
inline RunResult run(const FakeTrace& trace, const traceprism_analyzer_v1& analyzer) {
  detail::Session session(trace, analyzer.name, &analyzer);
  if (!analyzer.run) {
    session.result.error = "analyzer has no run function";
    return session.result;
  }
  const std::int32_t status = analyzer.run(session.ctx(), detail::Session::api(), analyzer.user);
  session.result.status = static_cast<Status>(status);
  return std::move(session.result);
}

// Runs the analyzer `name` of a plugin, e.g. run(trace, *traceprism_plugin_query_v1(), "hello").
inline RunResult run(const FakeTrace& trace, const traceprism_plugin_v1& plugin,
                     std::string_view name) {
  for (std::uint32_t i = 0; i < plugin.analyzer_count; ++i)
    if (plugin.analyzers[i].name && name == plugin.analyzers[i].name)
      return run(trace, plugin.analyzers[i]);
  RunResult missing;
  missing.error = "plugin has no analyzer '" + std::string(name) + "'";
  return missing;
}

// Runs an sdk.hpp analyzer class through the same wrapper a plugin uses. `name` selects its
// options ("<name>.<Option>"); without a name, any analyzer's option with that local name counts.
template <class T>
RunResult run(const FakeTrace& trace, std::string_view name = {}) {
  const std::string n(name);
  return run(trace, analyzer<T>(n.c_str(), ""));
}

// Calls an op model for the op instance at `row`; the result is copied out.
inline OpModelRun run_op_model(const FakeTrace& trace, const traceprism_op_model_v1& model,
                               Row row) {
  detail::Session session(trace, model.name, nullptr);
  traceprism_op_model_result_v1 out{};
  out.struct_size = sizeof(out);
  OpModelRun r;
  r.status = static_cast<Status>(
      model.model(session.ctx(), detail::Session::api(), row, &out, model.user));
  r.result.category = std::string(to_view(out.category));
  if (r.status != Status::kOk) return r;
  r.result.compute_spec = std::string(to_view(out.compute_spec));
  r.result.flops = out.flops, r.result.bytes = out.bytes;
  for (std::uint32_t i = 0; i < out.param_count; ++i)
    r.result.params.push_back({std::string(to_view(out.params[i].key)),
                               out.param_texts ? std::string(to_view(out.param_texts[i])) : "",
                               out.params[i].value});
  r.result.bwd_category = std::string(to_view(out.bwd_category));
  r.result.sheet = std::string(to_view(out.sheet));
  r.result.has_model = out.has_model != 0;
  r.result.flops_bwd = out.flops_bwd, r.result.bytes_bwd = out.bytes_bwd;
  return r;
}

}  // namespace traceprism::testing
