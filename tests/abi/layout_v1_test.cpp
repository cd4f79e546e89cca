// Freezes the layout of every v1 struct of abi.h on LP64 (x86-64 and aarch64 Linux).
//
// A plugin built against SDK 1.0 must keep loading into every 1.x host, so within a major
// version a struct may only grow at its end (docs/abi-versioning.md). If an assertion here
// fails, a frozen field moved or changed size: undo the change, or bump TRACEPRISM_ABI_MAJOR,
// rename the structs to _v2 and start a new layout_v2_test.cpp. A field appended in a minor
// version gets its own assertions here; the sizes below then become "at least" checks.
#include <gtest/gtest.h>

#include <traceprism/abi.h>

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <type_traits>

static_assert(sizeof(void*) == 8 && sizeof(std::size_t) == 8 && alignof(std::int64_t) == 8 &&
                  alignof(double) == 8,
              "the frozen layout below is the LP64 one");

// The handshake constants the host and every plugin agree on.
static_assert(TRACEPRISM_ABI_MAJOR == 1);
static_assert(TRACEPRISM_NO_ROW == 0xFFFFFFFFu && TRACEPRISM_NO_STRING == 0u);
static_assert(TRACEPRISM_OK == 0 && TRACEPRISM_ERROR == 1 && TRACEPRISM_SKIPPED == 2 &&
              TRACEPRISM_ABSENT == 3);
static_assert(TRACEPRISM_KIND_KERNEL == 6 && TRACEPRISM_KIND_COUNT == 17);

// The value of every kind constant is part of the ABI (stored in the kind column).
static_assert(TRACEPRISM_KIND_CPU_OP == 0 && TRACEPRISM_KIND_PYTHON_FUNCTION == 1 &&
              TRACEPRISM_KIND_USER_ANNOTATION == 2 && TRACEPRISM_KIND_GPU_USER_ANNOTATION == 3 &&
              TRACEPRISM_KIND_RUNTIME == 4 && TRACEPRISM_KIND_DRIVER == 5 &&
              TRACEPRISM_KIND_MEMCPY == 7 && TRACEPRISM_KIND_MEMSET == 8 &&
              TRACEPRISM_KIND_CUDA_SYNC == 9 && TRACEPRISM_KIND_FLOW_START == 10 &&
              TRACEPRISM_KIND_FLOW_END == 11 && TRACEPRISM_KIND_INSTANT == 12 &&
              TRACEPRISM_KIND_COUNTER == 13 && TRACEPRISM_KIND_METADATA == 14 &&
              TRACEPRISM_KIND_END == 15 && TRACEPRISM_KIND_OTHER == 16);
static_assert(TRACEPRISM_GPU_NONE == 0 && TRACEPRISM_GPU_COMPUTATION == 1 &&
              TRACEPRISM_GPU_COMMUNICATION == 2 && TRACEPRISM_GPU_MEMCPY == 3);
static_assert(TRACEPRISM_COPY_UNKNOWN == 0 && TRACEPRISM_COPY_HTOD == 1 &&
              TRACEPRISM_COPY_DTOH == 2 && TRACEPRISM_COPY_DTOD == 3 && TRACEPRISM_COPY_HTOH == 4 &&
              TRACEPRISM_COPY_PTOP == 5);
static_assert(TRACEPRISM_MEMORY_UNKNOWN == 0 && TRACEPRISM_MEMORY_PAGEABLE == 1 &&
              TRACEPRISM_MEMORY_PINNED == 2 && TRACEPRISM_MEMORY_DEVICE == 3 &&
              TRACEPRISM_MEMORY_HOST == 4 && TRACEPRISM_MEMORY_MANAGED == 5 &&
              TRACEPRISM_MEMORY_ARRAY == 6);
static_assert(TRACEPRISM_TIER_COMPUTE == 1 && TRACEPRISM_TIER_FUSION == 2 &&
              TRACEPRISM_TIER_SYSTEM == 3);
static_assert(TRACEPRISM_SEVERITY_INFO == 0 && TRACEPRISM_SEVERITY_WARNING == 1 &&
              TRACEPRISM_SEVERITY_CRITICAL == 2);
static_assert(TRACEPRISM_IMPACT_NOT_QUANTIFIABLE == 0 && TRACEPRISM_IMPACT_QUANTIFIED == 1 &&
              TRACEPRISM_IMPACT_HEURISTIC == 2);
static_assert(TRACEPRISM_LOG_DEBUG == 0 && TRACEPRISM_LOG_INFO == 1 && TRACEPRISM_LOG_WARNING == 2);

// Every struct is plain data, so C and C++ compilers agree on it.
#define TRACEPRISM_PLAIN_DATA(T) \
  static_assert(std::is_standard_layout_v<T> && std::is_trivial_v<T>, #T)
TRACEPRISM_PLAIN_DATA(traceprism_str);
TRACEPRISM_PLAIN_DATA(traceprism_event_columns_v1);
TRACEPRISM_PLAIN_DATA(traceprism_gpu_args_v1);
TRACEPRISM_PLAIN_DATA(traceprism_timeline_v1);
TRACEPRISM_PLAIN_DATA(traceprism_op_instances_v1);
TRACEPRISM_PLAIN_DATA(traceprism_metric_v1);
TRACEPRISM_PLAIN_DATA(traceprism_table_v1);
TRACEPRISM_PLAIN_DATA(traceprism_finding_v1);
TRACEPRISM_PLAIN_DATA(traceprism_host_api_v1);
TRACEPRISM_PLAIN_DATA(traceprism_option_v1);
TRACEPRISM_PLAIN_DATA(traceprism_op_model_result_v1);
TRACEPRISM_PLAIN_DATA(traceprism_op_model_v1);
TRACEPRISM_PLAIN_DATA(traceprism_analyzer_v1);
TRACEPRISM_PLAIN_DATA(traceprism_plugin_v1);
TRACEPRISM_PLAIN_DATA(traceprism_op_call_v1);
TRACEPRISM_PLAIN_DATA(traceprism_gpu_events_v1);
TRACEPRISM_PLAIN_DATA(traceprism_op_metrics_v1);
#undef TRACEPRISM_PLAIN_DATA

// clang-format off
// traceprism_str
static_assert(sizeof(traceprism_str) == 16);
static_assert(offsetof(traceprism_str, data) == 0);
static_assert(offsetof(traceprism_str, size) == 8);

// traceprism_event_columns_v1
static_assert(sizeof(traceprism_event_columns_v1) == 120);
static_assert(offsetof(traceprism_event_columns_v1, struct_size) == 0);
static_assert(offsetof(traceprism_event_columns_v1, reserved) == 4);
static_assert(offsetof(traceprism_event_columns_v1, count) == 8);
static_assert(offsetof(traceprism_event_columns_v1, ts_ns) == 16);
static_assert(offsetof(traceprism_event_columns_v1, dur_ns) == 24);
static_assert(offsetof(traceprism_event_columns_v1, kind) == 32);
static_assert(offsetof(traceprism_event_columns_v1, name_id) == 40);
static_assert(offsetof(traceprism_event_columns_v1, cat_id) == 48);
static_assert(offsetof(traceprism_event_columns_v1, thread) == 56);
static_assert(offsetof(traceprism_event_columns_v1, device) == 64);
static_assert(offsetof(traceprism_event_columns_v1, stream) == 72);
static_assert(offsetof(traceprism_event_columns_v1, correlation) == 80);
static_assert(offsetof(traceprism_event_columns_v1, external_id) == 88);
static_assert(offsetof(traceprism_event_columns_v1, parent) == 96);
static_assert(offsetof(traceprism_event_columns_v1, launcher) == 104);
static_assert(offsetof(traceprism_event_columns_v1, gpu_class) == 112);

// traceprism_gpu_args_v1
static_assert(sizeof(traceprism_gpu_args_v1) == 72);
static_assert(offsetof(traceprism_gpu_args_v1, struct_size) == 0);
static_assert(offsetof(traceprism_gpu_args_v1, device) == 4);
static_assert(offsetof(traceprism_gpu_args_v1, stream) == 8);
static_assert(offsetof(traceprism_gpu_args_v1, grid) == 12);
static_assert(offsetof(traceprism_gpu_args_v1, block) == 24);
static_assert(offsetof(traceprism_gpu_args_v1, registers_per_thread) == 36);
static_assert(offsetof(traceprism_gpu_args_v1, shared_memory) == 40);
static_assert(offsetof(traceprism_gpu_args_v1, copy_direction) == 44);
static_assert(offsetof(traceprism_gpu_args_v1, copy_source) == 48);
static_assert(offsetof(traceprism_gpu_args_v1, copy_destination) == 52);
static_assert(offsetof(traceprism_gpu_args_v1, reserved) == 56);
static_assert(sizeof(traceprism_gpu_args_v1::reserved) == 8);  // no hidden padding before bytes
static_assert(offsetof(traceprism_gpu_args_v1, bytes) == 64);  // 4 bytes of padding at 60

// traceprism_timeline_v1
static_assert(sizeof(traceprism_timeline_v1) == 80);
static_assert(offsetof(traceprism_timeline_v1, struct_size) == 0);
static_assert(offsetof(traceprism_timeline_v1, reserved) == 4);
static_assert(offsetof(traceprism_timeline_v1, gpu_event_count) == 8);
static_assert(offsetof(traceprism_timeline_v1, total_us) == 16);
static_assert(offsetof(traceprism_timeline_v1, busy_us) == 24);
static_assert(offsetof(traceprism_timeline_v1, idle_us) == 32);
static_assert(offsetof(traceprism_timeline_v1, computation_us) == 40);
static_assert(offsetof(traceprism_timeline_v1, exposed_comm_us) == 48);
static_assert(offsetof(traceprism_timeline_v1, exposed_memcpy_us) == 56);
static_assert(offsetof(traceprism_timeline_v1, total_comm_us) == 64);
static_assert(offsetof(traceprism_timeline_v1, total_memcpy_us) == 72);

// traceprism_op_instances_v1
static_assert(sizeof(traceprism_op_instances_v1) == 88);
static_assert(offsetof(traceprism_op_instances_v1, struct_size) == 0);
static_assert(offsetof(traceprism_op_instances_v1, reserved) == 4);
static_assert(offsetof(traceprism_op_instances_v1, count) == 8);
static_assert(offsetof(traceprism_op_instances_v1, row) == 16);
static_assert(offsetof(traceprism_op_instances_v1, direct_busy_us) == 24);
static_assert(offsetof(traceprism_op_instances_v1, subtree_busy_us) == 32);
static_assert(offsetof(traceprism_op_instances_v1, kernel_begin) == 40);
static_assert(offsetof(traceprism_op_instances_v1, kernel_count) == 48);
static_assert(offsetof(traceprism_op_instances_v1, kernel_rows) == 56);
static_assert(offsetof(traceprism_op_instances_v1, category_id) == 64);
static_assert(offsetof(traceprism_op_instances_v1, flops) == 72);
static_assert(offsetof(traceprism_op_instances_v1, bytes) == 80);

// traceprism_metric_v1
static_assert(sizeof(traceprism_metric_v1) == 24);
static_assert(offsetof(traceprism_metric_v1, key) == 0);
static_assert(offsetof(traceprism_metric_v1, value) == 16);

// traceprism_table_v1
static_assert(sizeof(traceprism_table_v1) == 48);
static_assert(offsetof(traceprism_table_v1, struct_size) == 0);
static_assert(offsetof(traceprism_table_v1, column_count) == 4);
static_assert(offsetof(traceprism_table_v1, row_count) == 8);
static_assert(offsetof(traceprism_table_v1, title) == 16);
static_assert(offsetof(traceprism_table_v1, columns) == 32);
static_assert(offsetof(traceprism_table_v1, cells) == 40);

// traceprism_finding_v1
static_assert(sizeof(traceprism_finding_v1) == 272);  // 240 before minor 6, 256 before 7
static_assert(offsetof(traceprism_finding_v1, struct_size) == 0);
static_assert(offsetof(traceprism_finding_v1, tier) == 4);
static_assert(offsetof(traceprism_finding_v1, severity) == 8);
static_assert(offsetof(traceprism_finding_v1, impact_kind) == 12);
static_assert(offsetof(traceprism_finding_v1, category) == 16);
static_assert(offsetof(traceprism_finding_v1, key) == 32);
static_assert(offsetof(traceprism_finding_v1, title) == 48);
static_assert(offsetof(traceprism_finding_v1, insight) == 64);
static_assert(offsetof(traceprism_finding_v1, action) == 80);
static_assert(offsetof(traceprism_finding_v1, identification) == 96);
static_assert(offsetof(traceprism_finding_v1, reasoning) == 112);
static_assert(offsetof(traceprism_finding_v1, resolution) == 128);
static_assert(offsetof(traceprism_finding_v1, library) == 144);
static_assert(offsetof(traceprism_finding_v1, impact_low) == 160);
static_assert(offsetof(traceprism_finding_v1, impact_mid) == 168);
static_assert(offsetof(traceprism_finding_v1, impact_high) == 176);
static_assert(offsetof(traceprism_finding_v1, share_percent) == 184);
static_assert(offsetof(traceprism_finding_v1, confidence) == 192);
static_assert(offsetof(traceprism_finding_v1, rows) == 200);
static_assert(offsetof(traceprism_finding_v1, row_count) == 208);
static_assert(offsetof(traceprism_finding_v1, metric_count) == 212);
static_assert(offsetof(traceprism_finding_v1, metrics) == 216);
static_assert(offsetof(traceprism_finding_v1, table_count) == 224);
static_assert(offsetof(traceprism_finding_v1, reserved) == 228);
static_assert(offsetof(traceprism_finding_v1, tables) == 232);
static_assert(offsetof(traceprism_finding_v1, cause) == 240);  // minor 6
static_assert(offsetof(traceprism_finding_v1, kernel_rows) == 256);       // minor 7
static_assert(offsetof(traceprism_finding_v1, kernel_row_count) == 264);  // minor 7

// traceprism_host_api_v1
static_assert(sizeof(traceprism_host_api_v1) == 224);  // 128 in 1.0, 144 in 1.1, 168 in 1.2,
                                                       // 176 in 1.3, 192 in 1.4, 200 in 1.5,
                                                       // 208 in 1.6, 216 in 1.7
static_assert(offsetof(traceprism_host_api_v1, struct_size) == 0);
static_assert(offsetof(traceprism_host_api_v1, abi_major) == 4);
static_assert(offsetof(traceprism_host_api_v1, abi_minor) == 8);
static_assert(offsetof(traceprism_host_api_v1, reserved) == 12);
static_assert(offsetof(traceprism_host_api_v1, events) == 16);
static_assert(offsetof(traceprism_host_api_v1, string) == 24);
static_assert(offsetof(traceprism_host_api_v1, find_string) == 32);
static_assert(offsetof(traceprism_host_api_v1, rows_of_kind) == 40);
static_assert(offsetof(traceprism_host_api_v1, gpu_args) == 48);
static_assert(offsetof(traceprism_host_api_v1, timeline) == 56);
static_assert(offsetof(traceprism_host_api_v1, op_instances) == 64);
static_assert(offsetof(traceprism_host_api_v1, option) == 72);
static_assert(offsetof(traceprism_host_api_v1, platform_number) == 80);
static_assert(offsetof(traceprism_host_api_v1, trace_info) == 88);
static_assert(offsetof(traceprism_host_api_v1, emit) == 96);
static_assert(offsetof(traceprism_host_api_v1, record) == 104);
static_assert(offsetof(traceprism_host_api_v1, log) == 112);
static_assert(offsetof(traceprism_host_api_v1, set_error) == 120);
static_assert(offsetof(traceprism_host_api_v1, op_call) == 128);  // minor 1
static_assert(offsetof(traceprism_host_api_v1, perf_sheet) == 136);
static_assert(offsetof(traceprism_host_api_v1, python_tree_parents) == 144);  // minor 2
static_assert(offsetof(traceprism_host_api_v1, publish) == 152);
static_assert(offsetof(traceprism_host_api_v1, product) == 160);
static_assert(offsetof(traceprism_host_api_v1, unified_perf_events) == 168);  // minor 3
static_assert(offsetof(traceprism_host_api_v1, core_events) == 176);          // minor 4
static_assert(offsetof(traceprism_host_api_v1, gpu_events) == 184);
static_assert(offsetof(traceprism_host_api_v1, op_metrics) == 192);           // minor 5
static_assert(offsetof(traceprism_host_api_v1, idle_attribution) == 200);     // minor 6
static_assert(offsetof(traceprism_host_api_v1, comm_args) == 208);            // minor 7
static_assert(offsetof(traceprism_host_api_v1, trace_diff) == 216);           // minor 8

// traceprism_trace_diff_v1 (minor 8)
static_assert(sizeof(traceprism_trace_diff_v1) == 64);
static_assert(offsetof(traceprism_trace_diff_v1, count) == 8);
static_assert(offsetof(traceprism_trace_diff_v1, source) == 16);
static_assert(offsetof(traceprism_trace_diff_v1, gpu_row) == 24);
static_assert(offsetof(traceprism_trace_diff_v1, lca_id) == 32);
static_assert(offsetof(traceprism_trace_diff_v1, kernel_time_us) == 40);
static_assert(offsetof(traceprism_trace_diff_v1, busy_time_us) == 48);
static_assert(offsetof(traceprism_trace_diff_v1, kernel_name) == 56);

// traceprism_comm_args_v1 (minor 7)
static_assert(sizeof(traceprism_comm_args_v1) == 64);
static_assert(offsetof(traceprism_comm_args_v1, in_nelems) == 8);
static_assert(offsetof(traceprism_comm_args_v1, out_nelems) == 16);
static_assert(offsetof(traceprism_comm_args_v1, group_size) == 24);
static_assert(offsetof(traceprism_comm_args_v1, dtype) == 32);
static_assert(offsetof(traceprism_comm_args_v1, collective) == 48);

// traceprism_idle_attribution_v1 (minor 6)
static_assert(sizeof(traceprism_idle_attribution_v1) == 264);
static_assert(offsetof(traceprism_idle_attribution_v1, window_start_ns) == 8);
static_assert(offsetof(traceprism_idle_attribution_v1, window_end_ns) == 16);
static_assert(offsetof(traceprism_idle_attribution_v1, idle_us) == 24);
static_assert(offsetof(traceprism_idle_attribution_v1, launch_delay_median_us) == 88);
static_assert(offsetof(traceprism_idle_attribution_v1, launch_delay_p95_us) == 96);
static_assert(offsetof(traceprism_idle_attribution_v1, launch_call_mean_us) == 104);
static_assert(offsetof(traceprism_idle_attribution_v1, gap_count) == 112);
static_assert(offsetof(traceprism_idle_attribution_v1, gap_start_ns) == 120);
static_assert(offsetof(traceprism_idle_attribution_v1, gap_part_count) == 160);
static_assert(offsetof(traceprism_idle_attribution_v1, part_count) == 168);
static_assert(offsetof(traceprism_idle_attribution_v1, part_cause) == 192);
static_assert(offsetof(traceprism_idle_attribution_v1, part_frame) == 216);
static_assert(offsetof(traceprism_idle_attribution_v1, stream_count) == 224);
static_assert(offsetof(traceprism_idle_attribution_v1, queue_max) == 256);

// traceprism_gpu_events_v1 (minor 4)
static_assert(sizeof(traceprism_gpu_events_v1) == 48);
static_assert(offsetof(traceprism_gpu_events_v1, struct_size) == 0);
static_assert(offsetof(traceprism_gpu_events_v1, reserved) == 4);
static_assert(offsetof(traceprism_gpu_events_v1, count) == 8);
static_assert(offsetof(traceprism_gpu_events_v1, row) == 16);
static_assert(offsetof(traceprism_gpu_events_v1, device) == 24);
static_assert(offsetof(traceprism_gpu_events_v1, stream) == 32);
static_assert(offsetof(traceprism_gpu_events_v1, gpu_class) == 40);

// traceprism_op_metrics_v1 (minor 5)
// 632 before minor 10, 584 before 8, 552 before 7
static_assert(sizeof(traceprism_op_metrics_v1) == 648);
static_assert(offsetof(traceprism_op_metrics_v1, gpu_total) == 552);
static_assert(offsetof(traceprism_op_metrics_v1, comparative) == 584);
static_assert(offsetof(traceprism_op_metrics_v1, reserved8) == 588);
static_assert(offsetof(traceprism_op_metrics_v1, speedup) == 592);
static_assert(offsetof(traceprism_op_metrics_v1, delta_us) == 600);
static_assert(offsetof(traceprism_op_metrics_v1, lca_count_trace2) == 608);
static_assert(offsetof(traceprism_op_metrics_v1, lca_time_trace1_us) == 616);
static_assert(offsetof(traceprism_op_metrics_v1, lca_time_trace2_us) == 624);
static_assert(offsetof(traceprism_op_metrics_v1, entry_point) == 632);
static_assert(offsetof(traceprism_op_metrics_v1, call_stack_full) == 640);
static_assert(offsetof(traceprism_op_metrics_v1, struct_size) == 0);
static_assert(offsetof(traceprism_op_metrics_v1, reserved) == 4);
static_assert(offsetof(traceprism_op_metrics_v1, count) == 8);
static_assert(offsetof(traceprism_op_metrics_v1, kernel_total) == 16);
static_assert(offsetof(traceprism_op_metrics_v1, extra_total) == 24);
static_assert(offsetof(traceprism_op_metrics_v1, has_model_columns) == 32);
static_assert(offsetof(traceprism_op_metrics_v1, has_roofline_columns) == 36);
static_assert(offsetof(traceprism_op_metrics_v1, gpu_total_ms) == 40);
static_assert(offsetof(traceprism_op_metrics_v1, name) == 48);
static_assert(offsetof(traceprism_op_metrics_v1, op_category) == 56);
static_assert(offsetof(traceprism_op_metrics_v1, process_name) == 64);
static_assert(offsetof(traceprism_op_metrics_v1, process_label) == 72);
static_assert(offsetof(traceprism_op_metrics_v1, thread_name) == 80);
static_assert(offsetof(traceprism_op_metrics_v1, input_dims) == 88);
static_assert(offsetof(traceprism_op_metrics_v1, input_type) == 96);
static_assert(offsetof(traceprism_op_metrics_v1, input_strides) == 104);
static_assert(offsetof(traceprism_op_metrics_v1, concrete_inputs) == 112);
static_assert(offsetof(traceprism_op_metrics_v1, ex_uid) == 120);
static_assert(offsetof(traceprism_op_metrics_v1, operation_count) == 128);
static_assert(offsetof(traceprism_op_metrics_v1, total_duration_us) == 136);
static_assert(offsetof(traceprism_op_metrics_v1, duration_mean_us) == 144);
static_assert(offsetof(traceprism_op_metrics_v1, duration_std_us) == 152);
static_assert(offsetof(traceprism_op_metrics_v1, duration_median_us) == 160);
static_assert(offsetof(traceprism_op_metrics_v1, duration_min_us) == 168);
static_assert(offsetof(traceprism_op_metrics_v1, duration_max_us) == 176);
static_assert(offsetof(traceprism_op_metrics_v1, gflops) == 184);
static_assert(offsetof(traceprism_op_metrics_v1, data_moved_mb) == 192);
static_assert(offsetof(traceprism_op_metrics_v1, flops_per_byte) == 200);
static_assert(offsetof(traceprism_op_metrics_v1, compute_spec) == 208);
static_assert(offsetof(traceprism_op_metrics_v1, bound) == 216);
static_assert(offsetof(traceprism_op_metrics_v1, tb_per_s_mean) == 224);
static_assert(offsetof(traceprism_op_metrics_v1, tb_per_s_std) == 232);
static_assert(offsetof(traceprism_op_metrics_v1, tb_per_s_median) == 240);
static_assert(offsetof(traceprism_op_metrics_v1, tb_per_s_min) == 248);
static_assert(offsetof(traceprism_op_metrics_v1, tb_per_s_max) == 256);
static_assert(offsetof(traceprism_op_metrics_v1, tflops_per_s_mean) == 264);
static_assert(offsetof(traceprism_op_metrics_v1, tflops_per_s_std) == 272);
static_assert(offsetof(traceprism_op_metrics_v1, tflops_per_s_median) == 280);
static_assert(offsetof(traceprism_op_metrics_v1, tflops_per_s_min) == 288);
static_assert(offsetof(traceprism_op_metrics_v1, tflops_per_s_max) == 296);
static_assert(offsetof(traceprism_op_metrics_v1, roofline_time_us) == 304);
static_assert(offsetof(traceprism_op_metrics_v1, pct_roofline_mean) == 312);
static_assert(offsetof(traceprism_op_metrics_v1, pct_roofline_std) == 320);
static_assert(offsetof(traceprism_op_metrics_v1, pct_roofline_median) == 328);
static_assert(offsetof(traceprism_op_metrics_v1, pct_roofline_min) == 336);
static_assert(offsetof(traceprism_op_metrics_v1, pct_roofline_max) == 344);
static_assert(offsetof(traceprism_op_metrics_v1, kernel_time_sum_us) == 352);
static_assert(offsetof(traceprism_op_metrics_v1, kernel_time_mean_us) == 360);
static_assert(offsetof(traceprism_op_metrics_v1, kernel_time_std_us) == 368);
static_assert(offsetof(traceprism_op_metrics_v1, kernel_time_median_us) == 376);
static_assert(offsetof(traceprism_op_metrics_v1, kernel_time_min_us) == 384);
static_assert(offsetof(traceprism_op_metrics_v1, kernel_time_max_us) == 392);
static_assert(offsetof(traceprism_op_metrics_v1, perf_params) == 400);
static_assert(offsetof(traceprism_op_metrics_v1, has_perf_model) == 408);
static_assert(offsetof(traceprism_op_metrics_v1, percentage) == 416);
static_assert(offsetof(traceprism_op_metrics_v1, cumulative_percentage) == 424);
static_assert(offsetof(traceprism_op_metrics_v1, kernel_begin) == 432);
static_assert(offsetof(traceprism_op_metrics_v1, kernel_count) == 440);
static_assert(offsetof(traceprism_op_metrics_v1, kernel_name) == 448);
static_assert(offsetof(traceprism_op_metrics_v1, kernel_stream) == 456);
static_assert(offsetof(traceprism_op_metrics_v1, kernel_calls) == 464);
static_assert(offsetof(traceprism_op_metrics_v1, kernel_total_us) == 472);
static_assert(offsetof(traceprism_op_metrics_v1, kernel_mean_us) == 480);
static_assert(offsetof(traceprism_op_metrics_v1, kernel_median_us) == 488);
static_assert(offsetof(traceprism_op_metrics_v1, kernel_std_us) == 496);
static_assert(offsetof(traceprism_op_metrics_v1, kernel_min_us) == 504);
static_assert(offsetof(traceprism_op_metrics_v1, kernel_max_us) == 512);
static_assert(offsetof(traceprism_op_metrics_v1, kernel_extra_begin) == 520);
static_assert(offsetof(traceprism_op_metrics_v1, kernel_extra_count) == 528);
static_assert(offsetof(traceprism_op_metrics_v1, extra_key) == 536);
static_assert(offsetof(traceprism_op_metrics_v1, extra_value) == 544);
static_assert(offsetof(traceprism_op_metrics_v1, gpu_total) == 552);  // minor 7
static_assert(offsetof(traceprism_op_metrics_v1, gpu_begin) == 560);
static_assert(offsetof(traceprism_op_metrics_v1, gpu_count) == 568);
static_assert(offsetof(traceprism_op_metrics_v1, gpu_rows) == 576);

// traceprism_op_call_v1 (minor 1)
static_assert(sizeof(traceprism_op_call_v1) == 192);
static_assert(offsetof(traceprism_op_call_v1, struct_size) == 0);
static_assert(offsetof(traceprism_op_call_v1, kernel_count) == 4);
static_assert(offsetof(traceprism_op_call_v1, name) == 8);
static_assert(offsetof(traceprism_op_call_v1, input_dims) == 24);
static_assert(offsetof(traceprism_op_call_v1, input_types) == 40);
static_assert(offsetof(traceprism_op_call_v1, input_strides) == 56);
static_assert(offsetof(traceprism_op_call_v1, concrete_inputs) == 72);
static_assert(offsetof(traceprism_op_call_v1, sequence_number) == 88);
static_assert(offsetof(traceprism_op_call_v1, kernel_rows) == 96);
static_assert(offsetof(traceprism_op_call_v1, has_step_stats) == 104);  // minor 9
static_assert(offsetof(traceprism_op_call_v1, step_stats) == 112);
static_assert(offsetof(traceprism_op_call_v1, pseudo_op_args) == 176);  // minor 11

// traceprism_option_v1
static_assert(sizeof(traceprism_option_v1) == 24);
static_assert(offsetof(traceprism_option_v1, name) == 0);
static_assert(offsetof(traceprism_option_v1, default_value) == 8);
static_assert(offsetof(traceprism_option_v1, description) == 16);

// traceprism_op_model_result_v1
static_assert(sizeof(traceprism_op_model_result_v1) == 128);  // 64 in ABI 1.0
static_assert(offsetof(traceprism_op_model_result_v1, struct_size) == 0);
static_assert(offsetof(traceprism_op_model_result_v1, param_count) == 4);
static_assert(offsetof(traceprism_op_model_result_v1, category) == 8);
static_assert(offsetof(traceprism_op_model_result_v1, compute_spec) == 24);
static_assert(offsetof(traceprism_op_model_result_v1, flops) == 40);
static_assert(offsetof(traceprism_op_model_result_v1, bytes) == 48);
static_assert(offsetof(traceprism_op_model_result_v1, params) == 56);
static_assert(offsetof(traceprism_op_model_result_v1, param_texts) == 64);  // minor 1
static_assert(offsetof(traceprism_op_model_result_v1, bwd_category) == 72);
static_assert(offsetof(traceprism_op_model_result_v1, sheet) == 88);
static_assert(offsetof(traceprism_op_model_result_v1, has_model) == 104);
static_assert(offsetof(traceprism_op_model_result_v1, bwd_status) == 108);
static_assert(offsetof(traceprism_op_model_result_v1, flops_bwd) == 112);
static_assert(offsetof(traceprism_op_model_result_v1, bytes_bwd) == 120);

// traceprism_op_model_v1
static_assert(sizeof(traceprism_op_model_v1) == 48);
static_assert(offsetof(traceprism_op_model_v1, struct_size) == 0);
static_assert(offsetof(traceprism_op_model_v1, reserved) == 4);
static_assert(offsetof(traceprism_op_model_v1, name) == 8);
static_assert(offsetof(traceprism_op_model_v1, summary) == 16);
static_assert(offsetof(traceprism_op_model_v1, op_names) == 24);
static_assert(offsetof(traceprism_op_model_v1, model) == 32);
static_assert(offsetof(traceprism_op_model_v1, user) == 40);

// traceprism_analyzer_v1
static_assert(sizeof(traceprism_analyzer_v1) == 56);
static_assert(offsetof(traceprism_analyzer_v1, struct_size) == 0);
static_assert(offsetof(traceprism_analyzer_v1, option_count) == 4);
static_assert(offsetof(traceprism_analyzer_v1, name) == 8);
static_assert(offsetof(traceprism_analyzer_v1, summary) == 16);
static_assert(offsetof(traceprism_analyzer_v1, depends_on) == 24);
static_assert(offsetof(traceprism_analyzer_v1, options) == 32);
static_assert(offsetof(traceprism_analyzer_v1, run) == 40);
static_assert(offsetof(traceprism_analyzer_v1, user) == 48);

// traceprism_plugin_v1
static_assert(sizeof(traceprism_plugin_v1) == 56);
static_assert(offsetof(traceprism_plugin_v1, struct_size) == 0);
static_assert(offsetof(traceprism_plugin_v1, abi_major) == 4);
static_assert(offsetof(traceprism_plugin_v1, abi_minor) == 8);
static_assert(offsetof(traceprism_plugin_v1, analyzer_count) == 12);
static_assert(offsetof(traceprism_plugin_v1, name) == 16);
static_assert(offsetof(traceprism_plugin_v1, version) == 24);
static_assert(offsetof(traceprism_plugin_v1, analyzers) == 32);
static_assert(offsetof(traceprism_plugin_v1, op_model_count) == 40);
static_assert(offsetof(traceprism_plugin_v1, reserved) == 44);
static_assert(offsetof(traceprism_plugin_v1, op_models) == 48);
// clang-format on

// The first three fields of traceprism_plugin_v1 are frozen across every major version: a host
// reads them before it trusts anything else in the plugin.
static_assert(offsetof(traceprism_plugin_v1, struct_size) == 0 &&
              offsetof(traceprism_plugin_v1, abi_major) == 4 &&
              offsetof(traceprism_plugin_v1, abi_minor) == 8);

// Filled by layout_v1_c.c, compiled as C99.
extern "C" const std::size_t traceprism_c_sizes[];
extern "C" const std::size_t traceprism_c_size_count;

TEST(AbiLayoutV1, CAndCppCompilersAgree) {
  const std::size_t cpp[] = {
      sizeof(traceprism_str),
      sizeof(traceprism_event_columns_v1),
      sizeof(traceprism_gpu_args_v1),
      sizeof(traceprism_timeline_v1),
      sizeof(traceprism_op_instances_v1),
      sizeof(traceprism_metric_v1),
      sizeof(traceprism_table_v1),
      sizeof(traceprism_finding_v1),
      sizeof(traceprism_host_api_v1),
      sizeof(traceprism_option_v1),
      sizeof(traceprism_op_model_result_v1),
      sizeof(traceprism_op_model_v1),
      sizeof(traceprism_analyzer_v1),
      sizeof(traceprism_plugin_v1),
      offsetof(traceprism_gpu_args_v1, bytes),
      offsetof(traceprism_finding_v1, tables),
      offsetof(traceprism_host_api_v1, set_error),
      offsetof(traceprism_plugin_v1, op_models),
      sizeof(traceprism_op_call_v1),
      offsetof(traceprism_host_api_v1, op_call),
      offsetof(traceprism_host_api_v1, perf_sheet),
      offsetof(traceprism_op_model_result_v1, bytes_bwd),
      offsetof(traceprism_host_api_v1, python_tree_parents),
      offsetof(traceprism_host_api_v1, product),
      offsetof(traceprism_host_api_v1, unified_perf_events),
      offsetof(traceprism_host_api_v1, gpu_events),
      sizeof(traceprism_gpu_events_v1),
      offsetof(traceprism_host_api_v1, op_metrics),
      sizeof(traceprism_op_metrics_v1),
      offsetof(traceprism_op_metrics_v1, gpu_total_ms),
      offsetof(traceprism_op_metrics_v1, extra_value),
      offsetof(traceprism_finding_v1, cause),
      offsetof(traceprism_host_api_v1, idle_attribution),
      sizeof(traceprism_idle_attribution_v1),
      offsetof(traceprism_idle_attribution_v1, idle_us),
      offsetof(traceprism_idle_attribution_v1, queue_max),
      offsetof(traceprism_finding_v1, kernel_rows),
      offsetof(traceprism_op_metrics_v1, gpu_total),
      offsetof(traceprism_op_metrics_v1, gpu_rows),
      offsetof(traceprism_host_api_v1, comm_args),
      sizeof(traceprism_comm_args_v1),
      offsetof(traceprism_op_metrics_v1, call_stack_full),
  };
  ASSERT_EQ(traceprism_c_size_count, std::size(cpp));
  for (std::size_t i = 0; i < std::size(cpp); ++i) EXPECT_EQ(traceprism_c_sizes[i], cpp[i]) << i;
}
