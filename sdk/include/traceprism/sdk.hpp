// traceprism SDK: the header-only C++17 wrapper over abi.h that plugin authors write against.
//
//   class MyAnalyzer : public traceprism::Analyzer {
//    public:
//     explicit MyAnalyzer(traceprism::Context& ctx) : limit_(ctx.option("Limit", 10.0)) {}
//     traceprism::Status run(traceprism::Context& ctx) override;
//   };
//   static constexpr traceprism_option_v1 kMyOptions[] = {{"Limit", "10", "What it limits."}};
//   TRACEPRISM_ANALYZERS(traceprism::analyzer<MyAnalyzer>("my-analyzer", "One line.", kMyOptions));
//   TRACEPRISM_PLUGIN("my_plugin", "1.0.0");
//
// The wrapper is compiled into the plugin; only the C structs of abi.h cross the boundary.
// Every exception thrown by an analyzer is caught here and reported as the analyzer's failure.
#pragma once

#include <traceprism/abi.h>
#include <traceprism/op_model.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

// The lowest host minor version this plugin needs (traceprism_add_plugin(... ABI_MINOR n)).
#ifndef TRACEPRISM_PLUGIN_ABI_MINOR
#define TRACEPRISM_PLUGIN_ABI_MINOR TRACEPRISM_ABI_MINOR
#endif

// Whether the host API table `api` has `field`: its struct_size reaches past the field (a host
// of an older minor has a shorter table) and the host filled it in.
#define TRACEPRISM_HOST_HAS_(api, field)                                                   \
  ((api)->struct_size >= offsetof(traceprism_host_api_v1, field) + sizeof((api)->field) && \
   (api)->field != nullptr)

namespace traceprism {

using Row = std::uint32_t;
using StringId = std::uint32_t;
inline constexpr Row kNoRow = TRACEPRISM_NO_ROW;
inline constexpr StringId kNoString = TRACEPRISM_NO_STRING;

enum class Status : std::int32_t {
  kOk = TRACEPRISM_OK,
  kError = TRACEPRISM_ERROR,
  kSkipped = TRACEPRISM_SKIPPED
};

enum class Kind : std::uint8_t {
  kCpuOp = TRACEPRISM_KIND_CPU_OP,
  kPythonFunction = TRACEPRISM_KIND_PYTHON_FUNCTION,
  kUserAnnotation = TRACEPRISM_KIND_USER_ANNOTATION,
  kGpuUserAnnotation = TRACEPRISM_KIND_GPU_USER_ANNOTATION,
  kRuntime = TRACEPRISM_KIND_RUNTIME,
  kDriver = TRACEPRISM_KIND_DRIVER,
  kKernel = TRACEPRISM_KIND_KERNEL,
  kMemcpy = TRACEPRISM_KIND_MEMCPY,
  kMemset = TRACEPRISM_KIND_MEMSET,
  kCudaSync = TRACEPRISM_KIND_CUDA_SYNC,
  kFlowStart = TRACEPRISM_KIND_FLOW_START,
  kFlowEnd = TRACEPRISM_KIND_FLOW_END,
  kInstant = TRACEPRISM_KIND_INSTANT,
  kCounter = TRACEPRISM_KIND_COUNTER,
  kMetadata = TRACEPRISM_KIND_METADATA,
  kEnd = TRACEPRISM_KIND_END,
  kOther = TRACEPRISM_KIND_OTHER,
};

enum class GpuClass : std::uint8_t {
  kNone = TRACEPRISM_GPU_NONE,
  kComputation = TRACEPRISM_GPU_COMPUTATION,
  kCommunication = TRACEPRISM_GPU_COMMUNICATION,
  kMemcpy = TRACEPRISM_GPU_MEMCPY,
};

enum class Tier : std::int32_t {
  kCompute = TRACEPRISM_TIER_COMPUTE,
  kFusion = TRACEPRISM_TIER_FUSION,
  kSystem = TRACEPRISM_TIER_SYSTEM,
};

enum class Severity : std::int32_t {
  kInfo = TRACEPRISM_SEVERITY_INFO,
  kWarning = TRACEPRISM_SEVERITY_WARNING,
  kCritical = TRACEPRISM_SEVERITY_CRITICAL,
};

inline traceprism_str to_str(std::string_view s) {
  return {s.data(), s.size()};
}
inline std::string_view to_view(traceprism_str s) {
  return s.data ? std::string_view(s.data, s.size) : std::string_view();
}

template <class T>
struct Span {  // std::span is C++20; plugins may be C++17
  const T* first = nullptr;
  std::size_t count = 0;
  const T* begin() const { return first; }
  const T* end() const { return first + count; }
  std::size_t size() const { return count; }
  bool empty() const { return count == 0; }
  const T& operator[](std::size_t i) const { return first[i]; }
};

// Read-only view of the event columns; pointers are valid for the whole run.
// From ABI 1.4 the view holds the host's core columns and reads GPU rows' device, stream and
// class from its sparse GPU table, so the host never builds those per-row columns for it; a
// row's thread comes from the full columns, which the host then builds in this process.
// A view remembers where its last GPU-table look-up ended: threads each take their own copy
// (ctx.events(), or a copy of a view: a few pointers).
class EventView {
 public:
  EventView(const traceprism_event_columns_v1* c, const traceprism_run_ctx* ctx,
            const traceprism_host_api_v1* api, const traceprism_gpu_events_v1* gpu = nullptr)
      : c_(c), ctx_(ctx), api_(api), gpu_(gpu) {}
  std::size_t size() const { return static_cast<std::size_t>(c_->count); }
  std::int64_t ts_ns(Row r) const { return c_->ts_ns[r]; }
  std::int64_t dur_ns(Row r) const { return c_->dur_ns[r]; }
  std::int64_t end_ns(Row r) const { return c_->ts_ns[r] + c_->dur_ns[r]; }
  double ts_us(Row r) const { return static_cast<double>(c_->ts_ns[r]) / 1000.0; }
  double dur_us(Row r) const { return static_cast<double>(c_->dur_ns[r]) / 1000.0; }
  Kind kind(Row r) const { return static_cast<Kind>(c_->kind[r]); }
  StringId name_id(Row r) const { return c_->name_id[r]; }
  std::string_view name(Row r) const { return to_view(api_->string(ctx_, c_->name_id[r])); }
  std::string_view category(Row r) const { return to_view(api_->string(ctx_, c_->cat_id[r])); }
  Row thread(Row r) const {
    if (!c_->thread && !full_) full_ = api_->events(ctx_);
    return (c_->thread ? c_ : full_)->thread[r];
  }
  std::int32_t device(Row r) const {
    if (c_->device) return c_->device[r];
    const std::size_t i = gpu_slot(r);
    return i < gpu_->count ? gpu_->device[i] : -1;
  }
  std::int32_t stream(Row r) const {
    if (c_->stream) return c_->stream[r];
    const std::size_t i = gpu_slot(r);
    return i < gpu_->count ? gpu_->stream[i] : -1;
  }
  std::int64_t correlation(Row r) const { return c_->correlation[r]; }
  std::int64_t external_id(Row r) const { return c_->external_id[r]; }
  Row parent(Row r) const { return c_->parent[r]; }
  Row launcher(Row r) const { return c_->launcher[r]; }
  GpuClass gpu_class(Row r) const {
    if (c_->gpu_class) return static_cast<GpuClass>(c_->gpu_class[r]);
    const std::size_t i = gpu_slot(r);
    return static_cast<GpuClass>(i < gpu_->count ? gpu_->gpu_class[i] : TRACEPRISM_GPU_NONE);
  }
  // The raw columns. From ABI 1.4 thread, device, stream and gpu_class may be NULL here: read
  // them through the accessors above.
  const traceprism_event_columns_v1& columns() const { return *c_; }

 private:
  // Position of row r in the GPU table, or its count when r is not a GPU event. Analyzers ask
  // for one row's device, stream and class in turn and walk GPU rows in file order, so the
  // search starts at the slot found last: that slot, else a gallop forward from it (a few
  // steps for a nearby row), else a binary search below it.
  std::size_t gpu_slot(Row r) const {
    const Row* rows = gpu_->row;
    const auto count = static_cast<std::size_t>(gpu_->count);
    std::size_t first = 0, last = count;
    if (last_slot_ < count) {
      if (rows[last_slot_] == r) return last_slot_;
      if (rows[last_slot_] < r) {
        first = last_slot_ + 1;  // rows[first - 1] < r
        std::size_t step = 1;
        while (first + step < count && rows[first + step - 1] < r) {
          first += step;
          step *= 2;
        }
        last = std::min(count, first + step);
      } else {
        last = last_slot_;
      }
    }
    const Row* it = std::lower_bound(rows + first, rows + last, r);
    if (it == rows + last || *it != r) return count;
    last_slot_ = static_cast<std::size_t>(it - rows);
    return last_slot_;
  }

  const traceprism_event_columns_v1* c_;
  const traceprism_run_ctx* ctx_;
  const traceprism_host_api_v1* api_;
  const traceprism_gpu_events_v1* gpu_;
  mutable const traceprism_event_columns_v1* full_ = nullptr;  // fetched for thread() only
  mutable std::size_t last_slot_ = 0;  // gpu_slot()'s last answer (a view is one thread's)
};

struct GpuArgs : traceprism_gpu_args_v1 {};
struct Timeline : traceprism_timeline_v1 {};

class OpInstances {
 public:
  explicit OpInstances(const traceprism_op_instances_v1* t) : t_(t) {}
  std::size_t size() const { return t_ ? static_cast<std::size_t>(t_->count) : 0; }
  Row row(std::size_t i) const { return t_->row[i]; }
  double direct_busy_us(std::size_t i) const { return t_->direct_busy_us[i]; }
  double subtree_busy_us(std::size_t i) const { return t_->subtree_busy_us[i]; }
  Span<std::uint32_t> kernels(std::size_t i) const {
    return {t_->kernel_rows + t_->kernel_begin[i], t_->kernel_count[i]};
  }
  StringId category_id(std::size_t i) const { return t_->category_id[i]; }
  double flops(std::size_t i) const { return t_->flops[i]; }
  double bytes(std::size_t i) const { return t_->bytes[i]; }

 private:
  const traceprism_op_instances_v1* t_;
};

// Series statistics of one op-metrics column (NaN where the sheet's cell is empty).
struct SeriesStats {
  double mean, median, std, min, max;
};

enum class Bound : std::int32_t {
  kNone = TRACEPRISM_BOUND_NONE,
  kCompute = TRACEPRISM_BOUND_COMPUTE,
  kMemory = TRACEPRISM_BOUND_MEMORY,
};

// One entry of an op's kernel details (its kernel_details_summary dict), typed.
class OpKernel {
 public:
  OpKernel(const traceprism_op_metrics_v1* t, std::size_t k) : t_(t), k_(k) {}
  std::string_view name() const { return to_view(t_->kernel_name[k_]); }
  std::optional<std::int64_t> stream() const {
    if (t_->kernel_stream[k_] == INT64_MIN) return std::nullopt;
    return t_->kernel_stream[k_];
  }
  std::uint64_t count() const { return t_->kernel_calls[k_]; }
  double total_us() const { return t_->kernel_total_us[k_]; }
  double mean_us() const { return t_->kernel_mean_us[k_]; }
  double median_us() const { return t_->kernel_median_us[k_]; }
  double std_us() const { return t_->kernel_std_us[k_]; }  // ddof 0
  double min_us() const { return t_->kernel_min_us[k_]; }
  double max_us() const { return t_->kernel_max_us[k_]; }
  // Further keys of the entry in dict order ("call_stack"), values as Python repr.
  std::size_t extra_count() const { return t_->kernel_extra_count[k_]; }
  std::string_view extra_key(std::size_t e) const {
    return to_view(t_->extra_key[t_->kernel_extra_begin[k_] + e]);
  }
  std::string_view extra_value(std::size_t e) const {
    return to_view(t_->extra_value[t_->kernel_extra_begin[k_] + e]);
  }

 private:
  const traceprism_op_metrics_v1* t_;
  std::size_t k_;
};

class OpKernels {
 public:
  OpKernels(const traceprism_op_metrics_v1* t, std::size_t row) : t_(t), row_(row) {}
  std::size_t size() const { return t_->kernel_count[row_]; }
  bool empty() const { return size() == 0; }
  OpKernel operator[](std::size_t j) const { return OpKernel(t_, t_->kernel_begin[row_] + j); }

 private:
  const traceprism_op_metrics_v1* t_;
  std::size_t row_;
};

// The run's unified_perf_summary as typed columns (Context::op_metrics, hosts from ABI 1.5):
// one row per op signature in the sheet's order, each number the double the sheet's cell
// prints, NaN where the cell is empty; nullopt texts where the sheet prints Python None.
class OpMetrics {
 public:
  explicit OpMetrics(const traceprism_op_metrics_v1* t) : t_(t) {}
  std::size_t size() const { return static_cast<std::size_t>(t_->count); }
  bool empty() const { return size() == 0; }
  // The sheet has the perf-model columns (GFLOPS ... TFLOPS/s) / the roofline columns.
  bool has_model_columns() const { return t_->has_model_columns != 0; }
  bool has_roofline_columns() const { return t_->has_roofline_columns != 0; }
  // gpu_timeline's total_time (ms), the impact baseline.
  double gpu_total_ms() const { return t_->gpu_total_ms; }

  std::string_view name(std::size_t i) const { return to_view(t_->name[i]); }
  std::string_view op_category(std::size_t i) const { return to_view(t_->op_category[i]); }
  std::string_view process_name(std::size_t i) const { return to_view(t_->process_name[i]); }
  std::string_view process_label(std::size_t i) const { return to_view(t_->process_label[i]); }
  std::string_view thread_name(std::size_t i) const { return to_view(t_->thread_name[i]); }
  std::optional<std::string_view> input_dims(std::size_t i) const { return opt(t_->input_dims[i]); }
  std::optional<std::string_view> input_type(std::size_t i) const { return opt(t_->input_type[i]); }
  std::optional<std::string_view> input_strides(std::size_t i) const {
    return opt(t_->input_strides[i]);
  }
  std::optional<std::string_view> concrete_inputs(std::size_t i) const {
    return opt(t_->concrete_inputs[i]);
  }
  std::uint64_t ex_uid(std::size_t i) const { return t_->ex_uid[i]; }
  std::uint64_t operation_count(std::size_t i) const { return t_->operation_count[i]; }
  double total_duration_us(std::size_t i) const { return t_->total_duration_us[i]; }
  SeriesStats duration_us(std::size_t i) const {
    return {t_->duration_mean_us[i], t_->duration_median_us[i], t_->duration_std_us[i],
            t_->duration_min_us[i], t_->duration_max_us[i]};
  }
  double gflops(std::size_t i) const { return t_->gflops[i]; }
  double data_moved_mb(std::size_t i) const { return t_->data_moved_mb[i]; }
  double flops_per_byte(std::size_t i) const { return t_->flops_per_byte[i]; }
  std::optional<std::string_view> compute_spec(std::size_t i) const {
    return opt(t_->compute_spec[i]);
  }
  Bound bound(std::size_t i) const { return static_cast<Bound>(t_->bound[i]); }
  SeriesStats tb_per_s(std::size_t i) const {
    return {t_->tb_per_s_mean[i], t_->tb_per_s_median[i], t_->tb_per_s_std[i], t_->tb_per_s_min[i],
            t_->tb_per_s_max[i]};
  }
  SeriesStats tflops_per_s(std::size_t i) const {
    return {t_->tflops_per_s_mean[i], t_->tflops_per_s_median[i], t_->tflops_per_s_std[i],
            t_->tflops_per_s_min[i], t_->tflops_per_s_max[i]};
  }
  double roofline_time_us(std::size_t i) const { return t_->roofline_time_us[i]; }
  SeriesStats pct_roofline(std::size_t i) const {
    return {t_->pct_roofline_mean[i], t_->pct_roofline_median[i], t_->pct_roofline_std[i],
            t_->pct_roofline_min[i], t_->pct_roofline_max[i]};
  }
  double kernel_time_sum_us(std::size_t i) const { return t_->kernel_time_sum_us[i]; }
  SeriesStats kernel_time_us(std::size_t i) const {
    return {t_->kernel_time_mean_us[i], t_->kernel_time_median_us[i], t_->kernel_time_std_us[i],
            t_->kernel_time_min_us[i], t_->kernel_time_max_us[i]};
  }
  std::optional<std::string_view> perf_params(std::size_t i) const {
    return opt(t_->perf_params[i]);
  }
  bool has_perf_model(std::size_t i) const { return t_->has_perf_model[i] != 0; }
  double percentage(std::size_t i) const { return t_->percentage[i]; }
  double cumulative_percentage(std::size_t i) const { return t_->cumulative_percentage[i]; }
  OpKernels kernels(std::size_t i) const { return OpKernels(t_, i); }
  // The GPU events row i stands for, ascending (hosts from ABI 1.7; empty on older ones).
  Span<const Row> gpu_events(std::size_t i) const {
    if (t_->struct_size < offsetof(traceprism_op_metrics_v1, gpu_rows) + sizeof(t_->gpu_rows) ||
        !t_->gpu_rows)
      return {};
    return {t_->gpu_rows + t_->gpu_begin[i], t_->gpu_count[i]};
  }
  // Trace 1 of a comparison (hosts from ABI 1.8): the rows carry TraceDiff's trace-2 figures.
  bool comparative() const { return has_comparison() && t_->comparative != 0; }
  // TraceDiff's columns of row i; NaN where no LCA maps to the row or the run is standalone.
  double speedup(std::size_t i) const { return comparison_value(t_->speedup, i); }
  double delta_us(std::size_t i) const { return comparison_value(t_->delta_us, i); }
  double lca_count_trace2(std::size_t i) const { return comparison_value(t_->lca_count_trace2, i); }
  double lca_time_trace1_us(std::size_t i) const {
    return comparison_value(t_->lca_time_trace1_us, i);
  }
  double lca_time_trace2_us(std::size_t i) const {
    return comparison_value(t_->lca_time_trace2_us, i);
  }
  // Where row i's op is called from and its kernels' call stacks (hosts from ABI 1.10, when
  // the run has call stacks; nullopt otherwise). See abi.h.
  std::optional<std::string_view> entry_point(std::size_t i) const {
    return has_call_stacks() ? opt(t_->entry_point[i]) : std::nullopt;
  }
  std::optional<std::string_view> call_stack_full(std::size_t i) const {
    return has_call_stacks() ? opt(t_->call_stack_full[i]) : std::nullopt;
  }
  const traceprism_op_metrics_v1* raw() const { return t_; }

 private:
  static std::optional<std::string_view> opt(traceprism_str s) {
    if (!s.data) return std::nullopt;
    return std::string_view(s.data, s.size);
  }
  bool has_call_stacks() const {
    return t_->struct_size >= offsetof(traceprism_op_metrics_v1, call_stack_full) +
                                  sizeof(const traceprism_str*) &&
           t_->entry_point && t_->call_stack_full;
  }
  bool has_comparison() const {
    return t_->struct_size >=
           offsetof(traceprism_op_metrics_v1, lca_time_trace2_us) + sizeof(t_->lca_time_trace2_us);
  }
  double comparison_value(const double* column, std::size_t i) const {
    if (!comparative() || !column) return std::numeric_limits<double>::quiet_NaN();
    return column[i];
  }
  const traceprism_op_metrics_v1* t_;
};

// TraceDiff's diff_stats in trace 1 of a comparison (Context::trace_diff, ABI 1.8): per GPU
// event under a point where the two traces' merged call trees diverge, its side, its divergence
// point (lca_id, -1 for none) and times. A trace-2 entry's row is trace 2's (its name is given).
class TraceDiffRows {
 public:
  explicit TraceDiffRows(const traceprism_trace_diff_v1* t) : t_(t) {}
  std::size_t size() const { return static_cast<std::size_t>(t_->count); }
  int source(std::size_t i) const { return t_->source[i]; }  // 1 or 2
  Row gpu_row(std::size_t i) const { return t_->gpu_row[i]; }
  std::int64_t lca_id(std::size_t i) const { return t_->lca_id[i]; }
  double kernel_time_us(std::size_t i) const { return t_->kernel_time_us[i]; }
  double busy_time_us(std::size_t i) const { return t_->busy_time_us[i]; }
  std::string_view kernel_name(std::size_t i) const {
    return {t_->kernel_name[i].data, t_->kernel_name[i].size};
  }

 private:
  const traceprism_trace_diff_v1* t_;
};

// Why the GPU sat idle (ABI 1.6, diagnosis.md §2): the closed vocabulary of causes.
enum class IdleCause : std::uint8_t {
  kDataloader = TRACEPRISM_CAUSE_DATALOADER,
  kBlockingCopy = TRACEPRISM_CAUSE_BLOCKING_COPY,
  kSync = TRACEPRISM_CAUSE_SYNC,
  kAllocator = TRACEPRISM_CAUSE_ALLOCATOR,
  kLaunchOverhead = TRACEPRISM_CAUSE_LAUNCH_OVERHEAD,
  kHostCompute = TRACEPRISM_CAUSE_HOST_COMPUTE,
  kDependency = TRACEPRISM_CAUSE_DEPENDENCY,
  kUntraced = TRACEPRISM_CAUSE_UNTRACED,
};
inline constexpr std::size_t kIdleCauseCount = TRACEPRISM_CAUSE_COUNT;

// The findings.json key of a cause: "dataloader", "blocking_copy", ...
inline const char* idle_cause_key(IdleCause c) {
  static const char* const kKeys[kIdleCauseCount] = {
      "dataloader",      "blocking_copy", "sync",       "allocator",
      "launch_overhead", "host_compute",  "dependency", "untraced"};
  const auto i = static_cast<std::size_t>(c);
  return i < kIdleCauseCount ? kKeys[i] : "untraced";
}

// Every GPU idle microsecond of the timeline's window with its cause (Context::idle_attribution,
// hosts from ABI 1.6). Gaps in time order; each gap's parts in time order.
class IdleAttribution {
 public:
  struct Gap {
    std::int64_t start_ns, dur_ns;
    Row next;    // the GPU event that ends the gap
    Row launch;  // its launching call, or kNoRow
    std::size_t part_begin, part_count;
  };
  struct Part {
    std::int64_t start_ns, dur_ns;
    IdleCause cause;
    Row holder;  // the host event whose match gave the cause, or kNoRow
    Row top;     // the outermost host event of that stack, or kNoRow
    Row frame;   // the innermost python frame of that stack, or kNoRow
  };
  struct StreamQueue {
    std::int32_t device, stream;
    double mean;
    std::uint32_t max;
  };

  explicit IdleAttribution(const traceprism_idle_attribution_v1* t) : t_(t) {}
  std::int64_t window_start_ns() const { return t_->window_start_ns; }
  std::int64_t window_end_ns() const { return t_->window_end_ns; }
  double window_us() const {
    return static_cast<double>(t_->window_end_ns - t_->window_start_ns) / 1000.0;
  }
  double idle_us(IdleCause c) const { return t_->idle_us[static_cast<std::size_t>(c)]; }
  double idle_us() const {
    double sum = 0;
    for (double v : t_->idle_us) sum += v;
    return sum;
  }
  double launch_delay_median_us() const { return t_->launch_delay_median_us; }
  double launch_delay_p95_us() const { return t_->launch_delay_p95_us; }
  double launch_call_mean_us() const { return t_->launch_call_mean_us; }

  std::size_t gap_count() const { return static_cast<std::size_t>(t_->gap_count); }
  Gap gap(std::size_t i) const {
    return {t_->gap_start_ns[i], t_->gap_dur_ns[i],     t_->gap_next[i],
            t_->gap_launch[i],   t_->gap_part_begin[i], t_->gap_part_count[i]};
  }
  std::size_t part_count() const { return static_cast<std::size_t>(t_->part_count); }
  Part part(std::size_t p) const {
    return {t_->part_start_ns[p], t_->part_dur_ns[p], static_cast<IdleCause>(t_->part_cause[p]),
            t_->part_holder[p],   t_->part_top[p],    t_->part_frame[p]};
  }
  std::size_t stream_count() const { return static_cast<std::size_t>(t_->stream_count); }
  StreamQueue stream(std::size_t i) const {
    return {t_->stream_device[i], t_->stream_id[i], t_->queue_mean[i], t_->queue_max[i]};
  }
  const traceprism_idle_attribution_v1* raw() const { return t_; }

 private:
  const traceprism_idle_attribution_v1* t_;
};

// A data table for a finding; cells are copied by the host on emit.
class Table {
 public:
  Table(std::string title, std::vector<std::string> columns)
      : title_(std::move(title)), columns_(std::move(columns)) {}
  Table& row(std::vector<std::string> cells) {
    cells.resize(columns_.size());
    for (auto& c : cells) cells_.push_back(std::move(c));
    return *this;
  }
  std::size_t row_count() const { return columns_.empty() ? 0 : cells_.size() / columns_.size(); }

 private:
  friend class FindingBuilder;
  friend class Context;
  std::string title_;
  std::vector<std::string> columns_;
  std::vector<std::string> cells_;
};

// A perf-report sheet (Context::perf_sheet): text cells as the CSV holds them, so numbers
// read back exactly (number() parses Python repr text; an empty cell is NaN).
class Sheet {
 public:
  explicit Sheet(const traceprism_table_v1& t) : t_(t) {}
  std::size_t row_count() const { return static_cast<std::size_t>(t_.row_count); }
  std::size_t column_count() const { return t_.column_count; }
  std::string_view column_name(std::size_t c) const { return to_view(t_.columns[c]); }
  // Index of a column, or column_count() when the sheet has none of that name.
  std::size_t column(std::string_view name) const {
    for (std::size_t c = 0; c < t_.column_count; ++c)
      if (to_view(t_.columns[c]) == name) return c;
    return t_.column_count;
  }
  bool has(std::string_view name) const { return column(name) < t_.column_count; }
  std::string_view cell(std::size_t row, std::size_t c) const {
    if (c >= t_.column_count || row >= t_.row_count) return {};
    return to_view(t_.cells[row * t_.column_count + c]);
  }
  std::string_view cell(std::size_t row, std::string_view name) const {
    return cell(row, column(name));
  }
  // The cell as a number; NaN when empty or not a number.
  double number(std::size_t row, std::string_view name) const {
    const std::string text(cell(row, name));
    if (text.empty()) return std::nan("");
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    return end == text.c_str() + text.size() ? v : std::nan("");
  }

 private:
  traceprism_table_v1 t_;
};

class Context;

// Collects one finding; emit() hands it to the host, which copies it.
class FindingBuilder {
 public:
  FindingBuilder(Context& ctx, Tier tier, std::string category, std::string title)
      : ctx_(ctx), tier_(tier), category_(std::move(category)), title_(std::move(title)) {}
  FindingBuilder& key(std::string v) {
    key_ = std::move(v);
    return *this;
  }
  FindingBuilder& severity(Severity v) {
    severity_ = v;
    return *this;
  }
  FindingBuilder& insight(std::string v) {
    insight_ = std::move(v);
    return *this;
  }
  FindingBuilder& action(std::string v) {
    action_ = std::move(v);
    return *this;
  }
  FindingBuilder& identification(std::string v) {
    identification_ = std::move(v);
    return *this;
  }
  FindingBuilder& reasoning(std::string v) {
    reasoning_ = std::move(v);
    return *this;
  }
  FindingBuilder& resolution(std::string v) {
    resolution_ = std::move(v);
    return *this;
  }
  FindingBuilder& library(std::string v) {
    library_ = std::move(v);
    return *this;
  }
  FindingBuilder& impact(double low, double mid, double high, bool heuristic = false) {
    impact_kind_ = heuristic ? TRACEPRISM_IMPACT_HEURISTIC : TRACEPRISM_IMPACT_QUANTIFIED;
    low_ = low, mid_ = mid, high_ = high;
    return *this;
  }
  // The findings.json cause key ("dataloader", "exposed_comm", "roofline", ...); hosts from
  // ABI 1.6 record it, older ones ignore it.
  FindingBuilder& cause(std::string v) {
    cause_ = std::move(v);
    return *this;
  }
  FindingBuilder& cause(IdleCause c) { return cause(std::string(idle_cause_key(c))); }
  FindingBuilder& share_percent(double v) {
    share_ = v;
    return *this;
  }
  FindingBuilder& confidence(double v) {
    confidence_ = v;
    return *this;
  }
  FindingBuilder& evidence(Row r) {
    rows_.push_back(r);
    return *this;
  }
  template <class Rows>
  FindingBuilder& evidence_rows(const Rows& rows) {
    for (Row r : rows) rows_.push_back(r);
    return *this;
  }
  // Every GPU event whose time the finding is about, uncapped (hosts from ABI 1.7): the host
  // reports the same kernel time in the most specific finding only (diagnosis.md §1.5).
  template <class Rows>
  FindingBuilder& kernel_rows(const Rows& rows) {
    for (Row r : rows) kernel_rows_.push_back(r);
    return *this;
  }
  FindingBuilder& metric(std::string key, double value) {
    metrics_.emplace_back(std::move(key), value);
    return *this;
  }
  FindingBuilder& table(Table t) {
    tables_.push_back(std::move(t));
    return *this;
  }
  // Returns false when the host refused the finding (it logs why).
  bool emit();

 private:
  Context& ctx_;
  Tier tier_;
  Severity severity_ = Severity::kWarning;
  std::int32_t impact_kind_ = TRACEPRISM_IMPACT_NOT_QUANTIFIABLE;
  std::string category_, key_, title_, insight_, action_, identification_, reasoning_, resolution_,
      library_, cause_;
  double low_ = 0, mid_ = 0, high_ = 0, share_ = -1, confidence_ = -1;
  std::vector<Row> rows_, kernel_rows_;
  std::vector<std::pair<std::string, double>> metrics_;
  std::vector<Table> tables_;
};

// The message of a collective (Context::comm_args, ABI 1.7): counts -1 when absent.
struct CommArgs {
  std::int64_t in_nelems = -1, out_nelems = -1, group_size = -1;
  std::string_view dtype, collective;  // "Float", "allreduce"; empty when absent

  // Bytes of an element of `dtype` (PyTorch's c10 ScalarType names), 0 when unknown.
  std::size_t element_bytes() const {
    struct Size {
      std::string_view name;
      std::size_t bytes;
    };
    static constexpr Size kSizes[] = {{"Float", 4},        {"Double", 8},        {"Half", 2},
                                      {"BFloat16", 2},     {"Int", 4},           {"Long", 8},
                                      {"Short", 2},        {"Char", 1},          {"Byte", 1},
                                      {"Bool", 1},         {"Float8_e4m3fn", 1}, {"Float8_e5m2", 1},
                                      {"ComplexFloat", 8}, {"ComplexDouble", 16}};
    for (const Size& s : kSizes)
      if (s.name == dtype) return s.bytes;
    return 0;
  }
  // The larger of the sent and received message in bytes; 0 when the args do not say.
  double message_bytes() const {
    const std::int64_t n = in_nelems > out_nelems ? in_nelems : out_nelems;
    return n > 0 ? static_cast<double>(n) * static_cast<double>(element_bytes()) : 0.0;
  }
};

// What an analyzer sees of the host during one run.
class Context {
 public:
  Context(traceprism_run_ctx* ctx, const traceprism_host_api_v1* api) : ctx_(ctx), api_(api) {}

  EventView events() const {
    if (has_minor4()) return EventView(api_->core_events(ctx_), ctx_, api_, api_->gpu_events(ctx_));
    return EventView(api_->events(ctx_), ctx_, api_);
  }
  std::string_view string(StringId id) const { return to_view(api_->string(ctx_, id)); }
  StringId find_string(std::string_view text) const {
    return api_->find_string(ctx_, to_str(text));
  }
  Span<Row> rows(Kind kind) const {
    std::uint64_t n = 0;
    const Row* r = api_->rows_of_kind(ctx_, static_cast<std::int32_t>(kind), &n);
    return {r, static_cast<std::size_t>(n)};
  }
  std::optional<GpuArgs> gpu_args(Row r) const {
    GpuArgs out{};
    out.struct_size = sizeof(traceprism_gpu_args_v1);
    if (api_->gpu_args(ctx_, r, &out) != TRACEPRISM_OK) return std::nullopt;
    return out;
  }
  std::optional<Timeline> timeline() const {
    Timeline out{};
    out.struct_size = sizeof(traceprism_timeline_v1);
    if (api_->timeline(ctx_, &out) != TRACEPRISM_OK) return std::nullopt;
    return out;
  }
  OpInstances op_instances() const { return OpInstances(api_->op_instances(ctx_)); }
  // A sheet of the run's perf report (hosts from ABI 1.1), or nullopt when absent.
  std::optional<Sheet> perf_sheet(std::string_view name) const {
    const bool has = TRACEPRISM_HOST_HAS_(api_, perf_sheet);
    traceprism_table_v1 out{};
    out.struct_size = sizeof out;
    if (!has || api_->perf_sheet(ctx_, to_str(name), &out) != TRACEPRISM_OK) return std::nullopt;
    return Sheet(out);
  }

#if TRACEPRISM_PLUGIN_ABI_MINOR >= 5
  // The unified_perf_summary as typed columns (hosts from ABI 1.5); nullopt on older hosts
  // and runs without that sheet.
  std::optional<OpMetrics> op_metrics() const {
    if (!has_minor5()) return std::nullopt;
    const traceprism_op_metrics_v1* t = api_->op_metrics(ctx_);
    // The minor-5 part is enough: later columns are read only when struct_size has them.
    if (!t || t->struct_size < offsetof(traceprism_op_metrics_v1, gpu_total)) return std::nullopt;
    return OpMetrics(t);
  }
#endif

#if TRACEPRISM_PLUGIN_ABI_MINOR >= 6
  // GPU idle time attributed to its causes (hosts from ABI 1.6); nullopt on older hosts and
  // traces without GPU events.
  std::optional<IdleAttribution> idle_attribution() const {
    if (!has_minor6()) return std::nullopt;
    const traceprism_idle_attribution_v1* t = api_->idle_attribution(ctx_);
    if (!t || t->struct_size < sizeof(traceprism_idle_attribution_v1)) return std::nullopt;
    return IdleAttribution(t);
  }
#endif

#if TRACEPRISM_PLUGIN_ABI_MINOR >= 7
  // The collective message an event carries (record_param_comms / c10d ops; NCCL kernels from
  // PyTorch 2.x; hosts from ABI 1.7); nullopt when it carries none or the host is older.
  std::optional<CommArgs> comm_args(Row r) const {
    if (!TRACEPRISM_HOST_HAS_(api_, comm_args)) return std::nullopt;
    traceprism_comm_args_v1 out{};
    out.struct_size = sizeof out;
    if (api_->comm_args(ctx_, r, &out) != TRACEPRISM_OK) return std::nullopt;
    return CommArgs{out.in_nelems, out.out_nelems, out.group_size, to_view(out.dtype),
                    to_view(out.collective)};
  }
#endif

#if TRACEPRISM_PLUGIN_ABI_MINOR >= 8
  // TraceDiff's diff_stats when the run is trace 1 of `traceprism compare` (hosts from ABI
  // 1.8); nullopt in a standalone run and on older hosts.
  std::optional<TraceDiffRows> trace_diff() const {
    if (!TRACEPRISM_HOST_HAS_(api_, trace_diff)) return std::nullopt;
    const traceprism_trace_diff_v1* t = api_->trace_diff(ctx_);
    if (!t || t->struct_size < sizeof(traceprism_trace_diff_v1)) return std::nullopt;
    return TraceDiffRows(t);
  }
#endif

  // Parent of every row in the call tree with python_function frames (hosts from ABI 1.2;
  // -1: root or not in the tree); an empty span on older hosts.
  Span<const std::int32_t> python_tree_parents() const {
    if (!has_minor2()) return {nullptr, 0};
    std::uint64_t n = 0;
    const std::int32_t* p = api_->python_tree_parents(ctx_, &n);
    return {p, p ? static_cast<std::size_t>(n) : 0};
  }
  // The rows unified_perf_summary stands for, in the report's order (hosts from ABI 1.3); an
  // empty span on older hosts and runs without that sheet.
  Span<const Row> unified_perf_events() const {
    if (!has_minor3()) return {nullptr, 0};
    std::uint64_t n = 0;
    const std::uint32_t* p = api_->unified_perf_events(ctx_, &n);
    return {p, p ? static_cast<std::size_t>(n) : 0};
  }
  // Publishes a table for the analyzers that depend on this one (hosts from ABI 1.2); false
  // when the host refused it or is older.
  bool publish(std::string_view name, const Table& table);
  // A table published by one of this analyzer's dependencies, or nullopt.
  std::optional<Sheet> product(std::string_view name) const {
    traceprism_table_v1 out{};
    out.struct_size = sizeof out;
    if (!has_minor2() || api_->product(ctx_, to_str(name), &out) != TRACEPRISM_OK)
      return std::nullopt;
    return Sheet(out);
  }

  // Options: the value configured for this analyzer, or `fallback` when unset or unparsable
  // (a bad value is logged, never fatal).
  std::string option(std::string_view name, const char* fallback) const {
    traceprism_str v = api_->option(ctx_, to_str(name));
    return v.data ? std::string(v.data, v.size) : std::string(fallback);
  }
  double option(std::string_view name, double fallback) const {
    traceprism_str v = api_->option(ctx_, to_str(name));
    if (!v.data) return fallback;
    std::string text(v.data, v.size);
    char* end = nullptr;
    double parsed = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(parsed)) {
      warn("option " + std::string(name) + " = '" + text + "' is not a number; using the default");
      return fallback;
    }
    return parsed;
  }
  std::int64_t option(std::string_view name, std::int64_t fallback) const {
    traceprism_str v = api_->option(ctx_, to_str(name));
    if (!v.data) return fallback;
    std::int64_t parsed = 0;
    auto [ptr, ec] = std::from_chars(v.data, v.data + v.size, parsed);
    if (ec != std::errc() || ptr != v.data + v.size) {
      warn("option " + std::string(name) + " = '" + std::string(v.data, v.size) +
           "' is not an integer; using the default");
      return fallback;
    }
    return parsed;
  }
  std::int64_t option(std::string_view name, int fallback) const {
    return option(name, static_cast<std::int64_t>(fallback));
  }
  bool option(std::string_view name, bool fallback) const {
    traceprism_str v = api_->option(ctx_, to_str(name));
    if (!v.data) return fallback;
    std::string_view s(v.data, v.size);
    if (s == "true" || s == "1") return true;
    if (s == "false" || s == "0") return false;
    warn("option " + std::string(name) + " = '" + std::string(s) +
         "' is not true/false; using the default");
    return fallback;
  }

  // The option's value, else the default `declared` (the analyzer's option table, as passed to
  // analyzer<>()) gives it: each default is written once, in the table. Value is double,
  // std::int64_t or bool. An option the table lacks, or a default that does not read as Value,
  // is a bug in the plugin: std::logic_error, so the analyzer fails with that sentence.
  template <class Value, std::size_t N>
  Value declared_option(std::string_view name, const traceprism_option_v1 (&declared)[N]) const {
    for (const traceprism_option_v1& o : declared) {
      if (!o.name || name != o.name || !o.default_value) continue;
      return option(name, declared_default<Value>(name, o.default_value));
    }
    throw std::logic_error("option " + std::string(name) +
                           " is not in the analyzer's option table");
  }

  std::optional<double> platform_number(std::string_view key) const {
    double out = 0;
    if (api_->platform_number(ctx_, to_str(key), &out) != TRACEPRISM_OK) return std::nullopt;
    return out;
  }
  std::optional<std::string> trace_info(std::string_view key) const {
    traceprism_str v = api_->trace_info(ctx_, to_str(key));
    if (!v.data) return std::nullopt;
    return std::string(v.data, v.size);
  }

  FindingBuilder report(Tier tier, std::string category, std::string title) {
    return FindingBuilder(*this, tier, std::move(category), std::move(title));
  }
  // A figure for findings.json "figures", recorded whether or not a finding is emitted.
  void record(std::string_view key, double value) {
    traceprism_metric_v1 m{to_str(key), value};
    api_->record(ctx_, &m, 1);
  }
  void info(std::string_view message) const {
    log(TRACEPRISM_LOG_INFO, message);
  }
  void warn(std::string_view message) const {
    log(TRACEPRISM_LOG_WARNING, message);
  }
  void debug(std::string_view message) const {
    log(TRACEPRISM_LOG_DEBUG, message);
  }
  // Fails the run with this message (return Status::kError after calling it).
  Status fail(std::string_view message) {
    api_->set_error(ctx_, to_str(message));
    return Status::kError;
  }

  traceprism_run_ctx* raw() const {
    return ctx_;
  }
  bool has_minor2() const {
    return TRACEPRISM_HOST_HAS_(api_, product);
  }
  bool has_minor3() const {
    return TRACEPRISM_HOST_HAS_(api_, unified_perf_events);
  }
  bool has_minor4() const {
    return TRACEPRISM_HOST_HAS_(api_, core_events) && TRACEPRISM_HOST_HAS_(api_, gpu_events);
  }
  bool has_minor5() const {
    return TRACEPRISM_HOST_HAS_(api_, op_metrics);
  }
  bool has_minor6() const {
    return TRACEPRISM_HOST_HAS_(api_, idle_attribution);
  }
  const traceprism_host_api_v1* api() const {
    return api_;
  }

 private:
  void log(std::int32_t level, std::string_view message) const {
    api_->log(ctx_, level, to_str(message));
  }
  template <class Value>
  static Value declared_default(std::string_view name, std::string_view text) {
    const std::string bad = "option " + std::string(name) + ": declared default '" +
                            std::string(text) + "' does not read as its type";
    if constexpr (std::is_same_v<Value, bool>) {
      if (text == "true" || text == "1") return true;
      if (text == "false" || text == "0") return false;
      throw std::logic_error(bad);
    } else if constexpr (std::is_integral_v<Value>) {
      Value v{};
      const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (ec != std::errc() || ptr != text.data() + text.size()) throw std::logic_error(bad);
      return v;
    } else {
      const std::string s(text);
      char* end = nullptr;
      const double v = std::strtod(s.c_str(), &end);
      if (s.empty() || end != s.c_str() + s.size()) throw std::logic_error(bad);
      return static_cast<Value>(v);
    }
  }
  traceprism_run_ctx* ctx_;
  const traceprism_host_api_v1* api_;
};

inline bool Context::publish(std::string_view name, const Table& table) {
  if (!has_minor2()) return false;
  std::vector<traceprism_str> columns, cells;
  for (const auto& c : table.columns_) columns.push_back(to_str(c));
  for (const auto& c : table.cells_) cells.push_back(to_str(c));
  traceprism_table_v1 t{};
  t.struct_size = sizeof t;
  t.column_count = static_cast<std::uint32_t>(columns.size());
  t.row_count = table.row_count();
  t.title = to_str(table.title_);
  t.columns = columns.data();
  t.cells = cells.data();
  return api_->publish(ctx_, to_str(name), &t) == TRACEPRISM_OK;
}

inline bool FindingBuilder::emit() {
  std::vector<traceprism_metric_v1> metrics;
  metrics.reserve(metrics_.size());
  for (const auto& [k, v] : metrics_) metrics.push_back({to_str(k), v});
  std::vector<std::vector<traceprism_str>> columns(tables_.size()), cells(tables_.size());
  std::vector<traceprism_table_v1> tables;
  for (std::size_t t = 0; t < tables_.size(); ++t) {
    for (const auto& c : tables_[t].columns_) columns[t].push_back(to_str(c));
    for (const auto& c : tables_[t].cells_) cells[t].push_back(to_str(c));
    traceprism_table_v1 table{};
    table.struct_size = sizeof(traceprism_table_v1);
    table.column_count = static_cast<std::uint32_t>(columns[t].size());
    table.row_count = tables_[t].row_count();
    table.title = to_str(tables_[t].title_);
    table.columns = columns[t].data();
    table.cells = cells[t].data();
    tables.push_back(table);
  }
  traceprism_finding_v1 f{};
  f.struct_size = sizeof(traceprism_finding_v1);
  f.tier = static_cast<std::int32_t>(tier_);
  f.severity = static_cast<std::int32_t>(severity_);
  f.impact_kind = impact_kind_;
  f.category = to_str(category_);
  f.key = to_str(key_);
  f.title = to_str(title_);
  f.insight = to_str(insight_);
  f.action = to_str(action_);
  f.identification = to_str(identification_);
  f.reasoning = to_str(reasoning_);
  f.resolution = to_str(resolution_);
  f.library = to_str(library_);
  f.impact_low = low_;
  f.impact_mid = mid_;
  f.impact_high = high_;
  f.share_percent = share_;
  f.confidence = confidence_;
  f.rows = rows_.data();
  f.row_count = static_cast<std::uint32_t>(rows_.size());
  f.metric_count = static_cast<std::uint32_t>(metrics.size());
  f.metrics = metrics.data();
  f.table_count = static_cast<std::uint32_t>(tables.size());
  f.tables = tables.data();
  f.cause = cause_.empty() ? traceprism_str{nullptr, 0} : to_str(cause_);
  std::sort(kernel_rows_.begin(), kernel_rows_.end());
  kernel_rows_.erase(std::unique(kernel_rows_.begin(), kernel_rows_.end()), kernel_rows_.end());
  f.kernel_rows = kernel_rows_.data();
  f.kernel_row_count = kernel_rows_.size();
  return ctx_.api()->emit(ctx_.raw(), &f) == TRACEPRISM_OK;
}

// Base class of every analyzer. A fresh instance is made for each run, so members are per run.
// Derive, give it a constructor taking Context& (to read options) or none, and override run().
class Analyzer {
 public:
  virtual ~Analyzer() = default;
  virtual Status run(Context& ctx) = 0;
};

namespace detail {

inline void report_exception(traceprism_run_ctx* ctx, const traceprism_host_api_v1* api,
                             const char* what) {
  std::string message = std::string("unhandled exception: ") + what;
  api->set_error(ctx, to_str(message));
}

template <class T>
std::int32_t run_analyzer(traceprism_run_ctx* ctx, const traceprism_host_api_v1* api, void*) {
  try {
    Context context(ctx, api);
    if constexpr (std::is_constructible_v<T, Context&>) {
      T analyzer(context);
      return static_cast<std::int32_t>(analyzer.run(context));
    } else {
      T analyzer;
      return static_cast<std::int32_t>(analyzer.run(context));
    }
  } catch (const std::exception& e) {
    report_exception(ctx, api, e.what());
  } catch (...) {
    report_exception(ctx, api, "(not a std::exception)");
  }
  return TRACEPRISM_ERROR;
}

// An op model function (see op_model.hpp): fills `out`, throws NotModelled or fails.
using OpModelFn = void (*)(const OpCall&, OpModelResult&);

inline std::string_view view_of(traceprism_str s) {
  return s.data ? std::string_view(s.data, s.size) : std::string_view();
}
inline std::optional<std::string_view> optional_view(traceprism_str s) {
  if (!s.data) return std::nullopt;
  return std::string_view(s.data, s.size);
}

// The op call at `row`, read through the host API (hosts before ABI 1.1: name only).
inline OpCall read_op_call(const traceprism_run_ctx* ctx, const traceprism_host_api_v1* api,
                           Row row) {
  // Op models run in the host process: the core columns spare it the per-row plugin columns.
  const bool has_core = TRACEPRISM_HOST_HAS_(api, core_events);
  const traceprism_event_columns_v1* ev = has_core ? api->core_events(ctx) : api->events(ctx);
  std::string name(view_of(api->string(ctx, ev->name_id[row])));
  const bool has_op_call = TRACEPRISM_HOST_HAS_(api, op_call);
  traceprism_op_call_v1 call{};
  call.struct_size = sizeof call;
  if (!has_op_call || api->op_call(ctx, row, &call) != TRACEPRISM_OK) {
    return OpCall(std::move(name), std::nullopt, std::nullopt, std::nullopt, std::nullopt);
  }
  std::vector<std::string> kernels;
  kernels.reserve(call.kernel_count);
  for (std::uint32_t i = 0; i < call.kernel_count; ++i)
    kernels.emplace_back(view_of(api->string(ctx, ev->name_id[call.kernel_rows[i]])));
  OpCall op(std::move(name), optional_view(call.input_dims), optional_view(call.input_types),
            optional_view(call.input_strides), optional_view(call.concrete_inputs),
            std::move(kernels), call.sequence_number);
  if (call.has_step_stats) {  // hosts before 1.9 leave the zero-initialized field as it is
    const int64_t* v = call.step_stats;
    op.set_step_stats(OpCall::StepStats{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]});
  }
  // Hosts before 1.11 leave the zero-initialized field as it is.
  if (const std::optional<std::string_view> args = optional_view(call.pseudo_op_args))
    op.set_pseudo_op_args(*args);
  return op;
}

template <OpModelFn Fn>
std::int32_t run_op_model(const traceprism_run_ctx* ctx, const traceprism_host_api_v1* api, Row row,
                          traceprism_op_model_result_v1* out, void*) {
  // Buffers stay valid until the next call on this thread: the host copies before that.
  thread_local OpModelResult result;
  thread_local std::vector<traceprism_metric_v1> params;
  thread_local std::vector<traceprism_str> texts;
  OpStatus status = OpStatus::kFailed;
  try {
    result = OpModelResult{};
    const OpCall call = read_op_call(ctx, api, row);
    status = run_op_model_guarded(Fn, call, result);
  } catch (...) {
    status = OpStatus::kFailed;
  }
  params.clear();
  texts.clear();
  for (const auto& p : result.params) {
    params.push_back({to_str(p.key), p.value});
    texts.push_back(to_str(p.repr));
  }
  out->category = to_str(result.category);
  out->compute_spec = to_str(result.compute_spec);
  out->flops = result.flops;
  out->bytes = result.bytes;
  out->params = params.data();
  out->param_count = static_cast<std::uint32_t>(params.size());
  if (out->struct_size >= offsetof(traceprism_op_model_result_v1, bytes_bwd) + sizeof(double)) {
    out->param_texts = texts.data();
    out->bwd_category = to_str(result.bwd_category);
    out->sheet = to_str(result.sheet);
    out->has_model = result.has_model ? 1 : 0;
    out->bwd_status = static_cast<std::int32_t>(result.bwd_status);
    out->flops_bwd = result.flops_bwd;
    out->bytes_bwd = result.bytes_bwd;
  }
  switch (status) {
    case OpStatus::kOk:
      return TRACEPRISM_OK;
    case OpStatus::kNotModelled:
      return TRACEPRISM_SKIPPED;
    default:
      return TRACEPRISM_ERROR;
  }
}

}  // namespace detail

// Describes an analyzer class for TRACEPRISM_ANALYZERS. `depends_on` is a NULL-terminated
// array of analyzer names, or nullptr.
template <class T>
constexpr traceprism_analyzer_v1 analyzer(const char* name, const char* summary,
                                          const char* const* depends_on = nullptr) {
  return {sizeof(traceprism_analyzer_v1), 0,      name, summary, depends_on, nullptr,
          &detail::run_analyzer<T>,       nullptr};
}
template <class T, std::size_t N>
constexpr traceprism_analyzer_v1 analyzer(const char* name, const char* summary,
                                          const traceprism_option_v1 (&options)[N],
                                          const char* const* depends_on = nullptr) {
  return {sizeof(traceprism_analyzer_v1),
          static_cast<std::uint32_t>(N),
          name,
          summary,
          depends_on,
          options,
          &detail::run_analyzer<T>,
          nullptr};
}

// Describes an op model for TRACEPRISM_OP_MODELS. `op_names` is NULL-terminated.
template <detail::OpModelFn Fn>
constexpr traceprism_op_model_v1 op_model(const char* name, const char* summary,
                                          const char* const* op_names) {
  return {sizeof(traceprism_op_model_v1), 0,      name, summary, op_names,
          &detail::run_op_model<Fn>,      nullptr};
}

}  // namespace traceprism

// The plugin's analyzers, in a static table (constant-initialized: no static constructors).
#define TRACEPRISM_ANALYZERS(...) \
  static constexpr traceprism_analyzer_v1 traceprism_plugin_analyzers_[] = {__VA_ARGS__}

// The plugin's op models, if it has any.
#define TRACEPRISM_OP_MODELS(...) \
  static constexpr traceprism_op_model_v1 traceprism_plugin_op_models_[] = {__VA_ARGS__}

#define TRACEPRISM_DEFINE_QUERY_(NAME, VERSION, OP_MODEL_COUNT, OP_MODELS)                    \
  static constexpr traceprism_plugin_v1 traceprism_plugin_info_ = {                           \
      sizeof(traceprism_plugin_v1),                                                           \
      TRACEPRISM_ABI_MAJOR,                                                                   \
      TRACEPRISM_PLUGIN_ABI_MINOR,                                                            \
      static_cast<std::uint32_t>(sizeof(traceprism_plugin_analyzers_) /                       \
                                 sizeof(traceprism_plugin_analyzers_[0])),                    \
      NAME,                                                                                   \
      VERSION,                                                                                \
      traceprism_plugin_analyzers_,                                                           \
      OP_MODEL_COUNT,                                                                         \
      0,                                                                                      \
      OP_MODELS};                                                                             \
  extern "C" TRACEPRISM_EXPORT const traceprism_plugin_v1* traceprism_plugin_query_v1(void) { \
    return &traceprism_plugin_info_;                                                          \
  }

// Defines the exported query function of a plugin made of the TRACEPRISM_ANALYZERS table.
#define TRACEPRISM_PLUGIN(NAME, VERSION) TRACEPRISM_DEFINE_QUERY_(NAME, VERSION, 0u, nullptr)

// Same, for a plugin that also has a TRACEPRISM_OP_MODELS table.
#define TRACEPRISM_PLUGIN_WITH_OP_MODELS(NAME, VERSION)                                         \
  TRACEPRISM_DEFINE_QUERY_(NAME, VERSION,                                                       \
                           static_cast<std::uint32_t>(sizeof(traceprism_plugin_op_models_) /    \
                                                      sizeof(traceprism_plugin_op_models_[0])), \
                           traceprism_plugin_op_models_)

// Defines the exported query function of a plugin that has op models and no analyzers (yet).
#define TRACEPRISM_OP_MODEL_PLUGIN(NAME, VERSION)                                             \
  static constexpr traceprism_plugin_v1 traceprism_plugin_info_ = {                           \
      sizeof(traceprism_plugin_v1),                                                           \
      TRACEPRISM_ABI_MAJOR,                                                                   \
      TRACEPRISM_PLUGIN_ABI_MINOR,                                                            \
      0u,                                                                                     \
      NAME,                                                                                   \
      VERSION,                                                                                \
      nullptr,                                                                                \
      static_cast<std::uint32_t>(sizeof(traceprism_plugin_op_models_) /                       \
                                 sizeof(traceprism_plugin_op_models_[0])),                    \
      0,                                                                                      \
      traceprism_plugin_op_models_};                                                          \
  extern "C" TRACEPRISM_EXPORT const traceprism_plugin_v1* traceprism_plugin_query_v1(void) { \
    return &traceprism_plugin_info_;                                                          \
  }
