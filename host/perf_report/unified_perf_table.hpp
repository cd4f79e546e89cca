#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "index/event_index.hpp"
#include "model/computation_partition.hpp"
#include "model/op_metrics.hpp"
#include "perf_report/gpu_subtrees.hpp"
#include "perf_report/kernel_details_summary.hpp"
#include "perf_report/ops_sheets.hpp"
#include "perf_report/perf_sheet_inputs.hpp"
#include "perf_report/sheet_table.hpp"

namespace traceprism::perf_report {

// One collected event of the unified perf table (trace-format spec §8.5 steps 1–3): an op with
// a perf model (outermost on its path), a "sole backward" op timed with its forward op's
// backward model, a leaf op that launches kernels, or a Synthetic Op standing for a kernel no
// collected op covers. Texts are views of the index's string pool or of interned texts
// (intern_report_text): equal texts share one address, which the grouping relies on.
struct UnifiedPerfRow {
  index::Row row = 0;     // the event; for a Synthetic Op the event it copies
  std::uint64_t uid = 0;  // == row, or a fresh UID above every row for a Synthetic Op
  bool synthetic = false;
  std::string_view name;
  std::string_view category;  // spec §7, or the forward model's bwd_category for a sole backward
  HostNames names;
  // Python str() of the shape args after list -> tuple ("((512,), (141, 512))"); "None" when
  // the arg is absent.
  std::string_view input_dims, input_type, input_strides, concrete_inputs;
  double duration_us = 0;  // the event's CPU dur
  bool has_perf_model = false;
  bool sole_backward = false;  // numbers are the linked forward op's backward numbers
  double kernel_time_us = 0;   // busy time of the timed GPU events
  // Perf-model numbers, when the model computed them (not for ops without a model or whose
  // model raised).
  std::optional<model::OpMetrics> metrics;
  std::string_view compute_spec;                // with `metrics`; "" when unknown
  std::optional<std::string_view> perf_params;  // Python dict repr, with `metrics`
  std::vector<index::Row> gpu_events;           // the event's GPU events, reference order
  KernelDetails kernel_details;                 // of `gpu_events`, same order
};

// mean / median / std (sample) / min / max of a per-instance column over a group, NaNs
// skipped as pandas does; NaN where there is no value (std: fewer than two).
struct SeriesStats {
  double mean, median, std, min, max;
};

// TraceDiff's columns of a trace-1 row in a comparison (spec §14.2), inserted after
// `Kernel Time (µs)_sum`: the lowest common ancestors (LCAs) of the merged trees whose trace-1
// GPU events the row stands for. Set by comparison::add_lca_columns.
struct LcaColumns {
  double count_trace2 = 0;              // lca_count_trace2: LCAs that have trace-2 events
  std::string ids, names;               // lca_id, lca_name: "; "-joined
  double trace1_us = 0, trace2_us = 0;  // lca_total_kernel_time_trace{1,2}_us
  // speedup (trace2/trace1); NaN when trace 1's time is 0.
  double speedup() const;
};

// One row of unified_perf_summary (spec §8.5 step 4): the collected rows sharing name,
// category, process/thread names and shape args.
struct UnifiedGroup {
  std::string name;
  std::string category;
  std::string process_name, process_label, thread_name;
  std::string input_dims, input_type, input_strides, concrete_inputs;  // "None" when absent
  std::uint64_t ex_uid = 0;  // UID of the group's first row (collection order)
  std::size_t operation_count = 0;
  double total_duration_us = 0;
  SeriesStats duration;
  // First known value in group order; NaN / nullopt when no row has one.
  double gflops = 0, data_moved_mb = 0, flops_per_byte = 0;
  std::optional<std::string> compute_spec;
  std::optional<std::string> roofline_bound;  // "COMPUTE_BOUND" / "MEMORY_BOUND"
  double roofline_time_us = 0;
  SeriesStats tb_per_s, tflops_per_s, pct_roofline, kernel_time;
  double kernel_time_sum_us = 0;
  std::vector<KernelSummaryEntry> kernel_summary;  // spec §9
  std::optional<std::string> perf_params;
  bool has_perf_model = false;
  double percentage = 0, cumulative_percentage = 0;  // of the total kernel time
  std::vector<index::Row> gpu_events;                // every row's GPU events, ascending
  std::optional<LcaColumns> lca;                     // comparison trace 1 only
  // --include_call_stack (call_stacks.hpp): the source line the op is called from, and the
  // kernels' call stacks.
  std::string entry_point, call_stack_full;
};

struct UnifiedPerfTable {
  // Collection order (Synthetic Ops last); filled only when asked for: the summary is built
  // row by row and does not need them (hundreds of thousands on big traces).
  std::vector<UnifiedPerfRow> rows;
  // The events the table stands for (collect_unified_perf_events), in traversal order, also
  // those whose row is dropped; Synthetic Ops not included.
  std::vector<Row> events;
  std::vector<UnifiedGroup> groups;  // summary order: kernel time sum desc, ex_UID asc
  // What the computation partition buckets kernels by (diagnosis.md §1.2): each GPU event of a
  // kept row in bucket model::category_bucket(its row's category in bucket_categories, whether
  // the row has a perf model); the first row wins; sorted by event.
  std::vector<std::string> bucket_categories;
  std::vector<model::KernelBucket> kernel_buckets;
  bool has_model_columns = false;       // some row has perf-model numbers (GFLOPS, TB/s, ...)
  bool has_roofline_columns = false;    // some row has roofline numbers
  bool has_lca_columns = false;         // trace 1 of a comparison: the TraceDiff columns
  bool has_call_stack_columns = false;  // entry_point and call_stack_full
};

// Builds the unified perf table of a trace with cpu_ops (empty for a trace without), with its
// rows. The second form shares the caller's GpuSubtrees and keeps the rows only when asked.
UnifiedPerfTable build_unified_perf_table(const UnifiedPerfInputs& inputs);
UnifiedPerfTable build_unified_perf_table(const UnifiedPerfInputs& inputs,
                                          const GpuSubtrees& subtrees, bool keep_rows);

// The unified_perf_summary sheet, golden column order (spec §8.5 rule for optional columns);
// no columns when the table is empty (the reference then omits the sheet).
SheetTable unified_perf_summary_sheet(const UnifiedPerfTable& table);

}  // namespace traceprism::perf_report
