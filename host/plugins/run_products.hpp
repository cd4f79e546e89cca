#pragma once

#include <traceprism/abi.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "index/event_index.hpp"
#include "model/call_tree.hpp"
#include "model/gpu_timeline.hpp"
#include "model/kernel_launchers.hpp"
#include "model/launch_links.hpp"
#include "model/op_work.hpp"
#include "model/step_binding.hpp"
#include "perf_report/perf_report.hpp"
#include "perf_report/unified_perf_table.hpp"
#include "plugins/op_metrics_table.hpp"

namespace traceprism::plugins {

// Everything the host API shows plugins during one run, built once before the graph starts and
// read-only afterwards, so analyzers on any thread read it without locks. Views point into the
// index and the model products where the layouts already match, and into columns built here
// where they do not.
class RunProducts {
 public:
  RunProducts(const index::EventIndex& index, const model::CallTree& tree,
              const model::LaunchLinks& links, const model::GpuTimeline& timeline,
              const model::KernelLaunchers& launchers);
  ~RunProducts();
  RunProducts(const RunProducts&) = delete;
  RunProducts& operator=(const RunProducts&) = delete;

  const index::EventIndex& index() const { return index_; }
  const model::KernelLaunchers& launchers() const { return launchers_; }
  // The event columns without thread, device and stream (ABI 1.4 core_events; gpu_class, which
  // the ABI lets a host leave NULL there, is filled: a byte a row).
  const traceprism_event_columns_v1* core_columns() const { return &core_columns_; }
  // All event columns (ABI events()). The four per-row columns only plugins read are built on
  // first use (thread-safe): 13 B a row, which in-tree plugins never ask for.
  const traceprism_event_columns_v1* columns() const;
  bool derived_columns_built() const { return derived_built_.load(); }
  // GPU rows with their device, stream and class (ABI 1.4 gpu_events).
  const traceprism_gpu_events_v1* gpu_events() const { return &gpu_table_; }
  // Rows of one kind sorted by (ts, row): the index's own list when it is already in that order.
  std::span<const index::Row> rows_of_kind(int kind) const { return rows_by_kind_[kind]; }
  const model::GpuTimeline& timeline() const { return timeline_; }
  const traceprism_op_instances_v1* op_instances() const { return &op_table_; }

  // Strings of the index plus the ones the host made during the run (op categories); ids of
  // the latter follow the index's.
  std::string_view string(index::StringId id) const;
  index::StringId find_string(std::string_view text) const;

  // Phase 1 results (owned by the caller, outliving this object); set before analyzers run.
  // Op instances then carry the category, FLOPs and bytes the op models gave their op.
  void set_op_work(const model::OpWorkTable* work);
  const model::OpWorkTable* op_work() const { return op_work_; }

  // The perf report's sheets, for the host API's perf_sheet (parsed once, kept for the run).
  void set_perf_sheets(const std::vector<perf_report::PerfSheet>& sheets);
  // The events unified_perf_summary stands for, in the report's traversal order (ABI 1.3).
  void set_unified_events(std::vector<index::Row> events) { unified_events_ = std::move(events); }
  std::span<const index::Row> unified_events() const { return unified_events_; }
  // The sheet as an ABI table, or null when the report has no sheet of that name.
  const traceprism_table_v1* perf_sheet(std::string_view name) const;
  // The typed unified_perf_summary (ABI 1.5 op_metrics), its columns built once from the
  // report's groups (build_perf_report's unified_table). `gpu_total_ms` is gpu_timeline's
  // total_time; by default the timeline's, as the sheet prints it (total_us / 1e3).
  void set_op_metrics(perf_report::UnifiedPerfTable table,
                      std::optional<double> gpu_total_ms = std::nullopt);
  // Null when the run has no unified_perf_summary (no groups, or set_op_metrics not called).
  const traceprism_op_metrics_v1* op_metrics() const;
  // The same table as the host's typed form; null when op_metrics() is.
  const perf_report::UnifiedPerfTable* unified_perf_table() const {
    return op_metrics_ ? &op_metrics_->table() : nullptr;
  }

  // GPU idle time by cause (ABI 1.6 idle_attribution); the caller keeps the table alive. Null
  // when the trace has no GPU events.
  void set_idle_attribution(const traceprism_idle_attribution_v1* table) {
    idle_attribution_ = table;
  }
  const traceprism_idle_attribution_v1* idle_attribution() const { return idle_attribution_; }

  // TraceDiff's diff_stats in trace 1 of a comparison (ABI 1.8 trace_diff); the caller keeps
  // the table alive. Null in a standalone run.
  void set_trace_diff(const traceprism_trace_diff_v1* table) { trace_diff_ = table; }
  const traceprism_trace_diff_v1* trace_diff() const { return trace_diff_; }

  // Every GPU event below a host op (through the launches of its subtree), by (start, row).
  // Thread-safe: phase 1 calls it from every worker.
  void subtree_gpu_rows(index::Row op, std::vector<index::Row>& out) const;
  const model::CallTree& tree() const { return tree_; }
  // Parents in the call tree that also nests python_function frames; built on first use
  // (thread-safe), since only analyzers that walk python frames need it.
  std::span<const std::int32_t> python_tree_parents() const;
  // The token sums of the serving step an inference attention op is bound to (op_call, ABI
  // 1.9); built on first use.
  std::optional<model::StepStats> step_stats(index::Row op) const;
  const model::LaunchLinks& links() const { return links_; }

 private:
  const index::EventIndex& index_;
  const model::CallTree& tree_;
  const model::LaunchLinks& links_;
  const model::GpuTimeline& timeline_;
  const model::OpWorkTable* op_work_ = nullptr;
  const model::KernelLaunchers& launchers_;

  void build_gpu_events();
  void build_derived_columns() const;

  traceprism_event_columns_v1 core_columns_{};
  std::vector<index::Row> gpu_row_;
  std::vector<std::int32_t> gpu_device_, gpu_stream_;
  std::vector<std::uint8_t> gpu_class_;
  std::vector<std::uint8_t> row_gpu_class_;  // gpu_class_ by row, TRACEPRISM_GPU_NONE elsewhere
  traceprism_gpu_events_v1 gpu_table_{};
  mutable std::once_flag derived_once_;
  mutable std::atomic<bool> derived_built_{false};
  mutable std::vector<std::uint32_t> thread_;
  mutable std::vector<std::int32_t> device_;
  mutable std::vector<std::int32_t> stream_;
  mutable traceprism_event_columns_v1 columns_{};
  std::array<std::span<const index::Row>, index::kEventKindCount> rows_by_kind_;
  std::array<std::vector<index::Row>, index::kEventKindCount> sorted_copies_;  // when not in order
  // Per row: a GPU event is launched at or below it (subtree walks skip the other branches).
  std::vector<bool> launches_below_;

  std::vector<std::uint32_t> op_row_, op_kernel_begin_, op_kernel_count_;
  std::vector<double> op_direct_busy_, op_subtree_busy_, op_flops_, op_bytes_;
  std::vector<std::uint32_t> op_category_;
  std::vector<std::string> extra_strings_;
  // A perf sheet as the ABI 1.4 perf_sheet hands it out: each cell's display text.
  struct SheetView {
    std::vector<std::string> names, texts;  // own what `columns` and `cells` point into
    std::vector<traceprism_str> columns, cells;
    traceprism_table_v1 table{};
  };
  std::map<std::string, SheetView, std::less<>> perf_sheets_;
  std::unique_ptr<OpMetricsTable> op_metrics_;
  traceprism_op_instances_v1 op_table_{};
  mutable std::once_flag step_binding_once_;
  mutable model::StepBinding step_binding_;
  mutable std::once_flag python_tree_once_;
  mutable std::vector<std::int32_t> python_tree_parents_;
  std::vector<index::Row> unified_events_;
  const traceprism_idle_attribution_v1* idle_attribution_ = nullptr;
  const traceprism_trace_diff_v1* trace_diff_ = nullptr;
};

}  // namespace traceprism::plugins
