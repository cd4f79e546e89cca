/* The v1 structs as a C99 compiler lays them out; layout_v1_test.cpp compares these numbers
 * with the C++ compiler's, so a plugin written in C and a host written in C++ agree. */
#include <stddef.h>

#include <traceprism/abi.h>

const size_t traceprism_c_sizes[] = {
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
    /* the last field of the structs whose tail is most likely to move */
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
const size_t traceprism_c_size_count = sizeof(traceprism_c_sizes) / sizeof(traceprism_c_sizes[0]);
