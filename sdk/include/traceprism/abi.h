/* traceprism plugin ABI, major version 1.
 *
 * The one boundary between the traceprism host and its plugins. C99, fixed-width types, no enums
 * in structs, no bool, no bitfields, so a plugin built by any C or C++ compiler loads into any
 * 1.x host.
 *
 * Versioning rules (docs/abi-versioning.md):
 *  - A breaking change bumps TRACEPRISM_ABI_MAJOR; the host loads only plugins of its own major.
 *  - Within a major, structs only grow at the end and every addition bumps TRACEPRISM_ABI_MINOR;
 *    the host loads plugins built for its minor or an older one.
 *  - Every struct starts with `struct_size`; a reader uses a trailing field only when the size
 *    says it is there. The first three fields of traceprism_plugin_v1 never change, across majors.
 *  - Nothing crosses as a C++ type and nothing throws across: plugins return status codes, the
 *    host deep-copies everything a plugin hands it, and host pointers are valid during the call
 *    that returned them (host tables: for the whole run).
 */
#ifndef TRACEPRISM_ABI_H
#define TRACEPRISM_ABI_H

/* The struct fields' comments are aligned as tables by hand. */
/* clang-format off */

#include <stddef.h>
#include <stdint.h>

#define TRACEPRISM_ABI_MAJOR 1
#define TRACEPRISM_ABI_MINOR 11

#if defined(_WIN32)
#define TRACEPRISM_EXPORT __declspec(dllexport)
#else
#define TRACEPRISM_EXPORT __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- status codes, returned by plugin callbacks and some host functions ------------------ */
#define TRACEPRISM_OK 0
#define TRACEPRISM_ERROR 1   /* failed; the message given to set_error is reported            */
#define TRACEPRISM_SKIPPED 2 /* not applicable to this trace (e.g. no GPU events)             */
#define TRACEPRISM_ABSENT 3  /* host function: the requested value does not exist             */

#define TRACEPRISM_NO_ROW 0xFFFFFFFFu
#define TRACEPRISM_NO_STRING 0u /* string id 0 is the empty/null string                        */

/* ---- event kinds (traceprism_event_columns_v1.kind) -------------------------------------- */
#define TRACEPRISM_KIND_CPU_OP 0              /* cat cpu_op: ATen / dispatcher ops             */
#define TRACEPRISM_KIND_PYTHON_FUNCTION 1     /* python_function: frames and nn.Module spans   */
#define TRACEPRISM_KIND_USER_ANNOTATION 2     /* ProfilerStep#N, record_function ranges        */
#define TRACEPRISM_KIND_GPU_USER_ANNOTATION 3 /* GPU-side spans of annotations                 */
#define TRACEPRISM_KIND_RUNTIME 4             /* CUDA / HIP runtime API calls                  */
#define TRACEPRISM_KIND_DRIVER 5              /* cuLaunchKernel and other driver calls         */
#define TRACEPRISM_KIND_KERNEL 6
#define TRACEPRISM_KIND_MEMCPY 7
#define TRACEPRISM_KIND_MEMSET 8
#define TRACEPRISM_KIND_CUDA_SYNC 9 /* synchronization spans recorded by newer Kineto        */
#define TRACEPRISM_KIND_FLOW_START 10
#define TRACEPRISM_KIND_FLOW_END 11
#define TRACEPRISM_KIND_INSTANT 12
#define TRACEPRISM_KIND_COUNTER 13
#define TRACEPRISM_KIND_METADATA 14
#define TRACEPRISM_KIND_END 15 /* ph E rows; the pair became one complete event on the B row */
#define TRACEPRISM_KIND_OTHER 16
#define TRACEPRISM_KIND_COUNT 17

/* ---- GPU activity classes (traceprism_event_columns_v1.gpu_class) ------------------------ */
#define TRACEPRISM_GPU_NONE 0 /* not a GPU event                                              */
#define TRACEPRISM_GPU_COMPUTATION 1
#define TRACEPRISM_GPU_COMMUNICATION 2 /* NCCL / RCCL collectives                              */
#define TRACEPRISM_GPU_MEMCPY 3

/* ---- copy directions and memory kinds (traceprism_gpu_args_v1) --------------------------- */
#define TRACEPRISM_COPY_UNKNOWN 0
#define TRACEPRISM_COPY_HTOD 1
#define TRACEPRISM_COPY_DTOH 2
#define TRACEPRISM_COPY_DTOD 3
#define TRACEPRISM_COPY_HTOH 4
#define TRACEPRISM_COPY_PTOP 5
#define TRACEPRISM_MEMORY_UNKNOWN 0
#define TRACEPRISM_MEMORY_PAGEABLE 1
#define TRACEPRISM_MEMORY_PINNED 2
#define TRACEPRISM_MEMORY_DEVICE 3
#define TRACEPRISM_MEMORY_HOST 4
#define TRACEPRISM_MEMORY_MANAGED 5
#define TRACEPRISM_MEMORY_ARRAY 6

/* ---- roofline bounds (traceprism_op_metrics_v1.bound, minor 5+) ------------------------- */
#define TRACEPRISM_BOUND_NONE 0    /* no roofline numbers (the sheet's empty Roofline Bound)    */
#define TRACEPRISM_BOUND_COMPUTE 1 /* "COMPUTE_BOUND"                                           */
#define TRACEPRISM_BOUND_MEMORY 2  /* "MEMORY_BOUND"                                            */

/* ---- findings ---------------------------------------------------------------------------- */
#define TRACEPRISM_TIER_COMPUTE 1 /* per-kernel efficiency                                     */
#define TRACEPRISM_TIER_FUSION 2  /* kernel fusion opportunities                               */
#define TRACEPRISM_TIER_SYSTEM 3  /* idle GPU, host overhead, memcpy, communication            */

#define TRACEPRISM_SEVERITY_INFO 0
#define TRACEPRISM_SEVERITY_WARNING 1
#define TRACEPRISM_SEVERITY_CRITICAL 2

#define TRACEPRISM_IMPACT_NOT_QUANTIFIABLE 0 /* impact_* fields are ignored                   */
#define TRACEPRISM_IMPACT_QUANTIFIED 1       /* projected from a model (roofline gap, ...)    */
#define TRACEPRISM_IMPACT_HEURISTIC 2        /* derived from a time share, no model           */

/* ---- causes of GPU idle time (traceprism_idle_attribution_v1.part_cause, minor 6+) -------- */
/* The closed vocabulary of diagnosis.md §2.2-§2.3; findings.json writes the lower-case keys. */
#define TRACEPRISM_CAUSE_DATALOADER 0      /* the host waits in the DataLoader iterator        */
#define TRACEPRISM_CAUSE_BLOCKING_COPY 1   /* a synchronous copy, or one whose call blocks     */
#define TRACEPRISM_CAUSE_SYNC 2            /* device / stream / event synchronize              */
#define TRACEPRISM_CAUSE_ALLOCATOR 3       /* cudaMalloc / cudaFree / pinned host allocation   */
#define TRACEPRISM_CAUSE_LAUNCH_OVERHEAD 4 /* the host issues launches back to back            */
#define TRACEPRISM_CAUSE_HOST_COMPUTE 5    /* any other host work                              */
#define TRACEPRISM_CAUSE_DEPENDENCY 6      /* the work was queued: a device-side wait          */
#define TRACEPRISM_CAUSE_UNTRACED 7        /* no host event of any thread covers the time      */
#define TRACEPRISM_CAUSE_COUNT 8

#define TRACEPRISM_LOG_DEBUG 0
#define TRACEPRISM_LOG_INFO 1
#define TRACEPRISM_LOG_WARNING 2

/* A string as pointer + length; never NUL-dependent. */
typedef struct traceprism_str {
  const char* data;
  size_t size;
} traceprism_str;

typedef struct traceprism_run_ctx traceprism_run_ctx; /* opaque, host-owned, one per callback */

/* The event index as struct-of-arrays; every array has `count` entries and row i is the i-th
 * entry of the trace's traceEvents (file order). Times are integer nanoseconds. */
typedef struct traceprism_event_columns_v1 {
  uint32_t struct_size;
  uint32_t reserved;
  uint64_t count;
  const int64_t* ts_ns;
  const int64_t* dur_ns;
  const uint8_t* kind;      /* TRACEPRISM_KIND_*                                                */
  const uint32_t* name_id;  /* string ids, see traceprism_host_api_v1.string                    */
  const uint32_t* cat_id;
  const uint32_t* thread;   /* host rows: index of the (pid, tid) thread; GPU rows: NO_ROW      */
  const int32_t* device;    /* GPU rows: device index; others -1                                */
  const int32_t* stream;    /* GPU rows: stream id; others -1                                   */
  const int64_t* correlation; /* runtime and GPU rows; 0 when absent                            */
  const int64_t* external_id; /* 0 when absent                                                  */
  const uint32_t* parent;   /* enclosing host event in the call tree, or NO_ROW                 */
  const uint32_t* launcher; /* GPU rows: the runtime/driver call that launched it, or NO_ROW    */
  const uint8_t* gpu_class; /* TRACEPRISM_GPU_*                                                 */
} traceprism_event_columns_v1;

/* The GPU events (kernels, copies, memsets) with their device, stream and class, in row order:
 * the sparse form of the event columns' device, stream and gpu_class (host API gpu_events,
 * minor 4+). Every array has `count` entries; `row` is ascending. */
typedef struct traceprism_gpu_events_v1 {
  uint32_t struct_size;
  uint32_t reserved;
  uint64_t count;
  const uint32_t* row;
  const int32_t* device;    /* -1 when the event names none                                    */
  const int32_t* stream;    /* -1 when the event names none                                    */
  const uint8_t* gpu_class; /* TRACEPRISM_GPU_*                                                */
} traceprism_gpu_events_v1;

/* Launch geometry and copy details of one GPU event (host API gpu_args). */
typedef struct traceprism_gpu_args_v1 {
  uint32_t struct_size;
  int32_t device;
  int32_t stream;
  int32_t grid[3];
  int32_t block[3];
  int32_t registers_per_thread; /* -1 when absent                                               */
  int32_t shared_memory;        /* -1 when absent                                               */
  int32_t copy_direction;       /* TRACEPRISM_COPY_*                                            */
  int32_t copy_source;          /* TRACEPRISM_MEMORY_*                                          */
  int32_t copy_destination;     /* TRACEPRISM_MEMORY_*                                          */
  int32_t reserved[2];          /* explicit padding: bytes starts at offset 64                  */
  int64_t bytes; /* memcpy / memset size, -1 when absent                                        */
} traceprism_gpu_args_v1;

/* Where GPU time goes over the trace span (the perf report's gpu_timeline), in microseconds
 * computed exactly as the reference does. */
typedef struct traceprism_timeline_v1 {
  uint32_t struct_size;
  uint32_t reserved;
  uint64_t gpu_event_count;
  double total_us;          /* first GPU start to last GPU end                                  */
  double busy_us;           /* union of all GPU intervals                                       */
  double idle_us;           /* total - busy                                                     */
  double computation_us;    /* union of computation intervals                                   */
  double exposed_comm_us;   /* communication not under computation                              */
  double exposed_memcpy_us; /* memcpy not under computation or communication                    */
  double total_comm_us;     /* union of communication intervals                                */
  double total_memcpy_us;   /* union of memcpy intervals                                        */
} traceprism_timeline_v1;

/* Op instances: the host events that own GPU work (one per launching op call), with their
 * kernels and busy times; columns of `count` entries. `category_id` is the op category (string
 * id): the one the phase-1 op models give the op's name, else the reference's fallbacks
 * ("triton", "elementwise" from the kernel name, ..., "other"). */
typedef struct traceprism_op_instances_v1 {
  uint32_t struct_size;
  uint32_t reserved;
  uint64_t count;
  const uint32_t* row;
  const double* direct_busy_us;  /* union of the op's own GPU events                            */
  const double* subtree_busy_us; /* union of every GPU event below the op                       */
  const uint32_t* kernel_begin;  /* range into kernel_rows                                      */
  const uint32_t* kernel_count;
  const uint32_t* kernel_rows;
  const uint32_t* category_id;
  const double* flops;           /* from the op model; -1 when unknown                          */
  const double* bytes;           /* from the op model; -1 when unknown                          */
} traceprism_op_instances_v1;

typedef struct traceprism_metric_v1 {
  traceprism_str key;
  double value;
} traceprism_metric_v1;

/* A data table attached to a finding: `column_count` names, `row_count` rows of cells, row-major. */
typedef struct traceprism_table_v1 {
  uint32_t struct_size;
  uint32_t column_count;
  uint64_t row_count;
  traceprism_str title;
  const traceprism_str* columns;
  const traceprism_str* cells;
} traceprism_table_v1;

/* One finding. The host deep-copies it on emit and stamps the analyzer and plugin. */
typedef struct traceprism_finding_v1 {
  uint32_t struct_size;
  int32_t tier;        /* TRACEPRISM_TIER_*                                                      */
  int32_t severity;    /* TRACEPRISM_SEVERITY_*                                                  */
  int32_t impact_kind; /* TRACEPRISM_IMPACT_*                                                    */
  traceprism_str category; /* "cpu_idle", "memcpy", "gemm", ...                                  */
  traceprism_str key;      /* stable id within the analyzer ("d2h"); orders ties, dedupes        */
  traceprism_str title;
  traceprism_str insight;  /* one sentence: what was seen, with its numbers                     */
  traceprism_str action;   /* one or two sentences: what to do                                   */
  traceprism_str identification;
  traceprism_str reasoning;
  traceprism_str resolution;
  traceprism_str library;  /* GEMM library, backend, ...; empty when not applicable              */
  double impact_low;  /* % of end-to-end time recoverable, when quantified                       */
  double impact_mid;
  double impact_high;
  double share_percent; /* % of end-to-end time the issue covers; ranks unquantified findings; <0 unknown */
  double confidence;    /* 0..1; <0 unknown                                                      */
  const uint32_t* rows; /* evidence event rows                                                   */
  uint32_t row_count;
  uint32_t metric_count;
  const traceprism_metric_v1* metrics;
  uint32_t table_count;
  uint32_t reserved;
  const traceprism_table_v1* tables;
  /* ---- minor 6+ ---- */
  /* What the finding is about, from findings.json's closed vocabulary: an idle cause
   * ("dataloader", "sync", ...), "exposed_comm", "memcpy", "precision", "roofline", "fusion",
   * "recompute", "layout" or "unmodeled"; data == NULL when none fits. */
  traceprism_str cause;
  /* ---- minor 7+ ---- */
  /* Every GPU event whose time the finding is about (all of them, unlike `rows`, which may be
   * capped): the host reports the same microseconds in one finding only (diagnosis.md §1.5). */
  const uint32_t* kernel_rows;
  uint64_t kernel_row_count;
} traceprism_finding_v1;

/* Minor 1: the shape args of one op call (host API op_call), as canonical JSON text exactly as
 * the trace wrote them (compact, no spaces): `input_dims` "[[1,512],[],[]]", `input_types`
 * "[\"c10::BFloat16\",\"Scalar\"]", `input_strides`, `concrete_inputs` "[\"\",\"1\"]". A field
 * the event lacks has data == NULL. `kernel_rows` are the GPU events below the op (through its
 * launches, any depth), by start time. */
typedef struct traceprism_op_call_v1 {
  uint32_t struct_size;
  uint32_t kernel_count;
  traceprism_str name;
  traceprism_str input_dims;
  traceprism_str input_types;
  traceprism_str input_strides;
  traceprism_str concrete_inputs;
  int64_t sequence_number; /* INT64_MIN when absent                                           */
  const uint32_t* kernel_rows;
  /* ---- minor 9+ ---- */
  /* The serving-step annotation an inference attention op is bound to (inference-mode spec
   * §2.3: the earliest-starting user annotation that contains it, for the op names that spec
   * lists), as the host parsed it: step_stats = {c_sq, c_sk, c_sqsq, c_sqsk, g_sq, g_sk, g_sqsq,
   * g_sqsk}, the context and generation requests' sums of query and key tokens, of squared query
   * tokens and of query x key tokens. has_step_stats is 1 when the op is bound to an annotation
   * that writes those sums, else 0 (and on hosts before 1.9, which leave the fields as the
   * caller set them: zero-initialize the struct). */
  uint32_t has_step_stats;
  uint32_t reserved;
  int64_t step_stats[8];
  /* ---- minor 11+ ---- */
  /* The args the host gave a pseudo op it inserted (inference-mode spec §4.2, e.g.
   * pseudo_op::moe_triton_unfused_up) beyond the shape args it copied from the real op, as one
   * compact JSON object: {"MoE GEMM type":"up","MoE GEMM index":0,"MoE GEMM gated":true,
   * "MoE topk":4}. data == NULL for every event of the trace itself (and on hosts before 1.11,
   * which leave the field as the caller set it). */
  traceprism_str pseudo_op_args;
} traceprism_op_call_v1;

/* Minor 5: the perf report's unified_perf_summary as typed columns (host API op_metrics): one
 * row per op signature, in the sheet's order, every figure the double the sheet's cell prints
 * (Python repr, so bit for bit what a reader of the CSV gets). NaN where the sheet's cell is
 * empty (pandas NaN); a text the sheet leaves empty (Python None) has data == NULL. Times in µs.
 * `has_model_columns` / `has_roofline_columns` say whether the sheet has the perf-model
 * columns (GFLOPS ... TFLOPS/s_*) and the roofline ones (Roofline Bound, Roofline Time,
 * Pct Roofline_*); without them those columns hold NaN and BOUND_NONE.
 * The kernel details (the kernel_details_summary cell) are rows of a second table: row i's
 * kernels are entries kernel_begin[i] .. kernel_begin[i] + kernel_count[i] - 1, in the cell's
 * order; an entry's extra keys (e.g. 'call_stack') are entries kernel_extra_begin[k] ..
 * + kernel_extra_count[k] - 1 of extra_key / extra_value (the value as its Python repr). */
typedef struct traceprism_op_metrics_v1 {
  uint32_t struct_size;
  uint32_t reserved;
  uint64_t count;                /* rows                                                        */
  uint64_t kernel_total;         /* entries of the kernel_* columns                             */
  uint64_t extra_total;          /* entries of extra_key / extra_value                          */
  int32_t has_model_columns;     /* 1: the sheet has the perf-model columns                     */
  int32_t has_roofline_columns;  /* 1: the sheet has the roofline columns                       */
  double gpu_total_ms;           /* gpu_timeline total_time, "time ms" (the impact baseline)    */
  /* texts: name, op category, process/thread names, shape args as the sheet prints them     */
  const traceprism_str* name;
  const traceprism_str* op_category;
  const traceprism_str* process_name;
  const traceprism_str* process_label;
  const traceprism_str* thread_name;
  const traceprism_str* input_dims;      /* "((512,), (141, 512))"; NULL when None            */
  const traceprism_str* input_type;
  const traceprism_str* input_strides;
  const traceprism_str* concrete_inputs;
  const uint64_t* ex_uid;                /* first event's row; > every row: a Synthetic Op    */
  const uint64_t* operation_count;
  const double* total_duration_us;       /* CPU durations                                     */
  const double* duration_mean_us;
  const double* duration_std_us;
  const double* duration_median_us;
  const double* duration_min_us;
  const double* duration_max_us;
  const double* gflops;
  const double* data_moved_mb;
  const double* flops_per_byte;
  const traceprism_str* compute_spec;    /* "matrix_bf16"; NULL when None                     */
  const int32_t* bound;                  /* TRACEPRISM_BOUND_*                                */
  const double* tb_per_s_mean;
  const double* tb_per_s_std;
  const double* tb_per_s_median;
  const double* tb_per_s_min;
  const double* tb_per_s_max;
  const double* tflops_per_s_mean;
  const double* tflops_per_s_std;
  const double* tflops_per_s_median;
  const double* tflops_per_s_min;
  const double* tflops_per_s_max;
  const double* roofline_time_us;        /* Roofline Time (µs)_first                          */
  const double* pct_roofline_mean;
  const double* pct_roofline_std;
  const double* pct_roofline_median;
  const double* pct_roofline_min;
  const double* pct_roofline_max;
  const double* kernel_time_sum_us;      /* Kernel Time (µs)_*: GPU busy time of the op       */
  const double* kernel_time_mean_us;
  const double* kernel_time_std_us;
  const double* kernel_time_median_us;
  const double* kernel_time_min_us;
  const double* kernel_time_max_us;
  const traceprism_str* perf_params;     /* Python dict repr; NULL when None                  */
  const uint8_t* has_perf_model;         /* 0 / 1                                             */
  const double* percentage;              /* Percentage (%) of the total kernel time           */
  const double* cumulative_percentage;
  const uint32_t* kernel_begin;          /* per row: range into the kernel_* columns          */
  const uint32_t* kernel_count;
  /* kernel_details_summary entries (kernel_total of each)                                    */
  const traceprism_str* kernel_name;
  const int64_t* kernel_stream;          /* INT64_MIN when None                               */
  const uint64_t* kernel_calls;          /* 'count'                                           */
  const double* kernel_total_us;         /* 'total_duration_us' (raw kernel durations)        */
  const double* kernel_mean_us;
  const double* kernel_median_us;
  const double* kernel_std_us;           /* 'std_dev_duration_us' (ddof 0)                    */
  const double* kernel_min_us;
  const double* kernel_max_us;
  const uint32_t* kernel_extra_begin;    /* per entry: range into extra_key / extra_value     */
  const uint32_t* kernel_extra_count;
  const traceprism_str* extra_key;
  const traceprism_str* extra_value;     /* Python repr of the value                          */
  /* ---- minor 7+ ---- */
  /* Per row, the GPU events it stands for (every instance's), ascending: entries
   * gpu_begin[i] .. gpu_begin[i] + gpu_count[i] - 1 of gpu_rows. */
  uint64_t gpu_total;
  const uint64_t* gpu_begin;
  const uint32_t* gpu_count;
  const uint32_t* gpu_rows;
  /* ---- minor 8+ ---- */
  /* Trace 1 of a comparison (traceprism compare): the TraceDiff columns of its sheet
   * (trace-format spec §14.2), per row the lowest common ancestors (LCAs) of the merged call
   * trees that hold its trace-1 GPU events. NaN for a row no LCA maps to; comparative == 0 and
   * the arrays NULL in a standalone run. */
  int32_t comparative;
  int32_t reserved8;
  const double* speedup;                 /* speedup (trace2/trace1): LCA busy time ratio      */
  const double* delta_us;                /* delta_us (trace2 - trace1): LCA trace-2 time - the
                                          * row's Kernel Time (µs)_sum                         */
  const double* lca_count_trace2;        /* its LCAs that have trace-2 GPU events             */
  const double* lca_time_trace1_us;      /* lca_total_kernel_time_trace1_us                   */
  const double* lca_time_trace2_us;      /* lca_total_kernel_time_trace2_us                   */
  /* ---- minor 10+ ---- */
  /* The reference's --include_call_stack columns, as the sheet prints them: the source line
   * the op is called from ("model.py(112): forward"; "Not found" when its stack shows none)
   * and its kernels' call stacks (a Python list of frame names, outermost first, ending in the
   * kernel name; several kernels: their common frames, then each kernel's own frames as a
   * sub-list). Both arrays NULL when the run has no call stacks. */
  const traceprism_str* entry_point;
  const traceprism_str* call_stack_full;
} traceprism_op_metrics_v1;

/* Minor 6: every GPU idle microsecond of the timeline's window with its cause (diagnosis.md §2).
 * A gap is a maximal interval of the window in which no GPU event of the timeline's set runs on
 * any stream; gaps are in time order and sum to the timeline's idle time (in integer ns). Each
 * gap is cut into parts of one cause and one holding stack, in time order; a part's holder is
 * the host event whose match gave the cause (the innermost op, call or frame that holds the
 * time; for dependency time, a host call waiting during it, if any), its top the
 * outermost host event of that stack and its frame the innermost python frame (NO_ROW when
 * none, and for untraced time). Queue length is HTA's: per
 * stream, the number of launched, unfinished GPU operations sampled at every launch and
 * completion. Launch delay is GPU start minus the end of the launching call, over non-graph
 * launches; NaN when the trace has none. */
typedef struct traceprism_idle_attribution_v1 {
  uint32_t struct_size;
  uint32_t reserved;
  int64_t window_start_ns;        /* the timeline's end-to-end window                          */
  int64_t window_end_ns;
  double idle_us[TRACEPRISM_CAUSE_COUNT]; /* per cause: its parts' durations / 1000             */
  double launch_delay_median_us;
  double launch_delay_p95_us;
  double launch_call_mean_us;     /* mean duration of the non-graph launch calls; NaN: none    */
  uint64_t gap_count;
  const int64_t* gap_start_ns;
  const int64_t* gap_dur_ns;
  const uint32_t* gap_next;       /* the GPU event that ends the gap                           */
  const uint32_t* gap_launch;     /* its launching call; NO_ROW when it has none               */
  const uint32_t* gap_part_begin; /* range into the part_* columns                             */
  const uint32_t* gap_part_count;
  uint64_t part_count;
  const int64_t* part_start_ns;
  const int64_t* part_dur_ns;
  const uint8_t* part_cause;      /* TRACEPRISM_CAUSE_*                                        */
  const uint32_t* part_holder;
  const uint32_t* part_top;
  const uint32_t* part_frame;
  uint64_t stream_count;          /* GPU streams of the timeline's event set, by (device, id) */
  const int32_t* stream_device;
  const int32_t* stream_id;
  const double* queue_mean;       /* mean of the samples in the window                         */
  const uint32_t* queue_max;
} traceprism_idle_attribution_v1;

/* Minor 7: the message of a collective (host API comm_args), where the trace gives it: the
 * args of PyTorch's record_param_comms and c10d ops and, from PyTorch 2.x, of NCCL/RCCL
 * kernels. Counts are -1 when absent; texts have data == NULL when absent. */
typedef struct traceprism_comm_args_v1 {
  uint32_t struct_size;
  uint32_t reserved;
  int64_t in_nelems;         /* "In msg nelems": elements sent                                 */
  int64_t out_nelems;        /* "Out msg nelems": elements received                            */
  int64_t group_size;        /* "Group size": ranks in the process group                       */
  traceprism_str dtype;      /* "dtype": "Float", "BFloat16", "Half", ...                      */
  traceprism_str collective; /* "Collective name": "allreduce", "allgather", ...               */
} traceprism_comm_args_v1;

/* Minor 8: TraceDiff's diff_stats in trace 1 of a comparison (host API trace_diff,
 * trace-format spec §14.2): one entry per GPU event under a point where the merged call trees
 * of trace 1 and trace 2 diverge, in the sheet's order. A trace-1 entry's gpu_row is a row of
 * the run's own events; a trace-2 entry's is a row of trace 2 (not readable through the host
 * API: its name is given). lca_id is the divergence point's merged-node id, -1 when the event
 * has none (a root of one trace only). */
typedef struct traceprism_trace_diff_v1 {
  uint32_t struct_size;
  uint32_t reserved;
  uint64_t count;
  const uint8_t* source;               /* 1: trace 1, 2: trace 2                             */
  const uint32_t* gpu_row;
  const int64_t* lca_id;
  const double* kernel_time_us;        /* the event's duration                               */
  const double* busy_time_us;          /* the divergence point's busy time on that side      */
  const traceprism_str* kernel_name;
} traceprism_trace_diff_v1;

/* Functions the host offers to plugins; host-owned, valid for the whole process. */
typedef struct traceprism_host_api_v1 {
  uint32_t struct_size;
  uint32_t abi_major;
  uint32_t abi_minor;
  uint32_t reserved;
  /* Event index and strings (valid for the whole run). */
  const traceprism_event_columns_v1* (*events)(const traceprism_run_ctx* ctx);
  traceprism_str (*string)(const traceprism_run_ctx* ctx, uint32_t id);
  uint32_t (*find_string)(const traceprism_run_ctx* ctx, traceprism_str text); /* NO_STRING if absent */
  /* Rows of one kind, sorted by (ts, row). */
  const uint32_t* (*rows_of_kind)(const traceprism_run_ctx* ctx, int32_t kind, uint64_t* count);
  int32_t (*gpu_args)(const traceprism_run_ctx* ctx, uint32_t row, traceprism_gpu_args_v1* out);
  /* Derived products. timeline returns TRACEPRISM_SKIPPED when the trace has no GPU events. */
  int32_t (*timeline)(const traceprism_run_ctx* ctx, traceprism_timeline_v1* out);
  const traceprism_op_instances_v1* (*op_instances)(const traceprism_run_ctx* ctx);
  /* Run settings. option: the analyzer's own option by local name; data == NULL when unset. */
  traceprism_str (*option)(const traceprism_run_ctx* ctx, traceprism_str local_name);
  int32_t (*platform_number)(const traceprism_run_ctx* ctx, traceprism_str key, double* out);
  /* Trace facts by key ("trace.path", "device.name", "platform.name"); data == NULL if unknown. */
  traceprism_str (*trace_info)(const traceprism_run_ctx* ctx, traceprism_str key);
  /* Results. emit returns TRACEPRISM_ERROR (and drops the finding) when it is malformed. */
  int32_t (*emit)(traceprism_run_ctx* ctx, const traceprism_finding_v1* finding);
  /* Figures that describe the trace whether or not anything is wrong (findings.json
   * "figures"), e.g. {"gpu_utilization.idle_time_percent", 47.62}. */
  void (*record)(traceprism_run_ctx* ctx, const traceprism_metric_v1* figures, uint32_t count);
  void (*log)(traceprism_run_ctx* ctx, int32_t level, traceprism_str message);
  void (*set_error)(traceprism_run_ctx* ctx, traceprism_str message);
  /* ---- minor 1+: append below this line only ---- */
  /* The shape args and GPU events of a host op; TRACEPRISM_ABSENT for rows that are not host
   * ops. Pointers stay valid for the whole run. */
  int32_t (*op_call)(const traceprism_run_ctx* ctx, uint32_t row, traceprism_op_call_v1* out);
  /* A sheet of the run's perf report ("unified_perf_summary", "gpu_timeline", "GEMM", ...) as
   * text cells exactly as its CSV holds them (empty = NaN/None; floats in Python repr, so they
   * read back bit-exact); TRACEPRISM_ABSENT when the report has no such sheet. */
  int32_t (*perf_sheet)(const traceprism_run_ctx* ctx, traceprism_str name, traceprism_table_v1* out);
  /* ---- minor 2+ ---- */
  /* Parent of every row in a call tree that also nests python_function frames (the host tree's
   * rules otherwise); -1 for roots and rows outside the tree. Built on first use; `count` is the
   * number of rows. Valid for the whole run. */
  const int32_t* (*python_tree_parents)(const traceprism_run_ctx* ctx, uint64_t* count);
  /* Products: an analyzer publishes a named table (copied by the host) for the analyzers that
   * list it in depends_on; they read it with product, which answers TRACEPRISM_ABSENT when no
   * dependency published that name. A table read stays valid for the rest of the reader's run. */
  int32_t (*publish)(traceprism_run_ctx* ctx, traceprism_str name, const traceprism_table_v1* table);
  int32_t (*product)(const traceprism_run_ctx* ctx, traceprism_str name, traceprism_table_v1* out);
  /* ---- minor 3+ ---- */
  /* The events the perf report's unified_perf_summary stands for (the reference's
   * collect_unified_perf_events: the outermost ops with a perf model, "sole backward" ops priced
   * by their forward op's model, leaf ops that launch kernels), as rows in the report's
   * traversal order; `count` 0 when the run has no such sheet. Valid for the whole run. */
  const uint32_t* (*unified_perf_events)(const traceprism_run_ctx* ctx, uint64_t* count);
  /* ---- minor 4+ ---- */
  /* The event columns without the four that exist only for plugins: thread, device and stream
   * are NULL, gpu_class may be (the traceprism host fills it since 1.11: a byte a row, read per
   * event by analyzers). events() builds all four (13 bytes a row) on its first call in a
   * process; core_events costs nothing more. GPU rows' device, stream and class are in
   * gpu_events; a host row's thread is in events(). Both valid for the whole run. */
  const traceprism_event_columns_v1* (*core_events)(const traceprism_run_ctx* ctx);
  const traceprism_gpu_events_v1* (*gpu_events)(const traceprism_run_ctx* ctx);
  /* ---- minor 5+ ---- */
  /* The unified_perf_summary sheet as typed columns; NULL when the run has no such sheet.
   * Valid for the whole run. */
  const traceprism_op_metrics_v1* (*op_metrics)(const traceprism_run_ctx* ctx);
  /* ---- minor 6+ ---- */
  /* GPU idle time attributed to its causes; NULL when the trace has no GPU events. Valid for
   * the whole run. */
  const traceprism_idle_attribution_v1* (*idle_attribution)(const traceprism_run_ctx* ctx);
  /* ---- minor 7+ ---- */
  /* The collective message args of an event of any kind; TRACEPRISM_ABSENT when it has none.
   * The texts stay valid for the whole run. */
  int32_t (*comm_args)(const traceprism_run_ctx* ctx, uint32_t row, traceprism_comm_args_v1* out);
  /* ---- minor 8+ ---- */
  /* TraceDiff's diff_stats when the run is trace 1 of a comparison; NULL otherwise. Valid for
   * the whole run. */
  const traceprism_trace_diff_v1* (*trace_diff)(const traceprism_run_ctx* ctx);
} traceprism_host_api_v1;

typedef struct traceprism_option_v1 {
  const char* name;          /* local name, CamelCase: "IdleThresholdPercent"                  */
  const char* default_value; /* as text, the way config files write it                         */
  const char* description;
} traceprism_option_v1;

/* Phase 1: an op model claims op names and describes an op call's work.
 * The model's return code says whether the forward numbers are valid: OK; SKIPPED (the model
 * does not apply to this call: the call is treated as having no model); ERROR (the model
 * applies but failed on these args: the call keeps its category and is timed only). The
 * category fields are read whatever the return code. */
typedef struct traceprism_op_model_result_v1 {
  uint32_t struct_size;
  uint32_t param_count;
  traceprism_str category;     /* "GEMM", "SDPA_fwd", ...                                       */
  traceprism_str compute_spec; /* "matrix_bf16", "vector_fp32", ...; empty when unknown         */
  double flops;                /* -1 when unknown                                               */
  double bytes;                /* -1 when unknown                                               */
  const traceprism_metric_v1* params; /* parameters (M, N, K, ...); value NaN when not a number */
  /* ---- minor 1+ ---- */
  const traceprism_str* param_texts; /* Python repr() of each param value, parallel to params   */
  traceprism_str bwd_category; /* category of the op's backward (autograd-linked); empty: none  */
  traceprism_str sheet;        /* perf-report sheet family; empty: category without _fwd/_bwd   */
  int32_t has_model;           /* 0: category only (timing, no FLOPs/bytes model)               */
  int32_t bwd_status;          /* OK, SKIPPED (no backward model) or ERROR                      */
  double flops_bwd;            /* backward work computed from this (forward) call; -1 unknown   */
  double bytes_bwd;
} traceprism_op_model_result_v1;

typedef struct traceprism_op_model_v1 {
  uint32_t struct_size;
  uint32_t reserved;
  const char* name;               /* kebab-case, unique like analyzer names                      */
  const char* summary;
  const char* const* op_names;    /* NULL-terminated; an entry ending in '*' claims a prefix     */
  /* Fill `out` (struct_size set by the host) for the op instance at `row`; return OK, SKIPPED
   * (this instance is not modelled) or ERROR. Strings in `out` must stay valid until return. */
  int32_t (*model)(const traceprism_run_ctx* ctx, const traceprism_host_api_v1* api, uint32_t row,
                   traceprism_op_model_result_v1* out, void* user);
  void* user;
} traceprism_op_model_v1;

/* Phase 2: an analyzer reads the index and the derived products and emits findings. */
typedef struct traceprism_analyzer_v1 {
  uint32_t struct_size;
  uint32_t option_count;
  const char* name;               /* "cpu-idle": unique, kebab-case                              */
  const char* summary;            /* one line for `traceprism plugins`                           */
  /* NULL-terminated analyzer names, or NULL. From minor 2 a name may start with '?': an
   * optional dependency, waited for when loaded and ignored when absent. */
  const char* const* depends_on;
  const traceprism_option_v1* options;
  int32_t (*run)(traceprism_run_ctx* ctx, const traceprism_host_api_v1* api, void* user);
  void* user;
} traceprism_analyzer_v1;

typedef struct traceprism_plugin_v1 {
  uint32_t struct_size; /* these three fields are frozen across every major version             */
  uint32_t abi_major;
  uint32_t abi_minor;
  uint32_t analyzer_count;
  const char* name;
  const char* version;
  const traceprism_analyzer_v1* analyzers;
  uint32_t op_model_count;
  uint32_t reserved;
  const traceprism_op_model_v1* op_models;
} traceprism_plugin_v1;

#define TRACEPRISM_PLUGIN_QUERY_SYMBOL "traceprism_plugin_query_v1"

/* The one symbol a plugin exports. Takes nothing, so the host reads the ABI numbers before
 * calling anything else. */
TRACEPRISM_EXPORT const traceprism_plugin_v1* traceprism_plugin_query_v1(void);

#ifdef __cplusplus
}
#endif

/* clang-format on */

#endif /* TRACEPRISM_ABI_H */
