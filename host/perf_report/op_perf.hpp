#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/op_metrics.hpp"
#include "model/op_work.hpp"
#include "perf_report/gpu_subtrees.hpp"
#include "perf_report/kernel_details_summary.hpp"
#include "platform/platform_info.hpp"

namespace traceprism::perf_report {

// Which of an op model's two computations a sheet row shows: the op's own work over its
// subtree's kernels, or its backward work (flops_bwd / bytes_bwd) over the kernels of the
// backward nodes autograd links to it (trace-format spec §10, perf-model spec §11.1).
enum class ModelPass { kForward, kBackward };

// One op instance's perf-model numbers, as the reference's compute_perf_metrics gives them.
struct OpPerf {
  double kernel_time_us = 0;  // busy time of the timed GPU events
  model::OpMetrics metrics;
  std::string_view compute_spec;                        // "" when unknown
  std::uint32_t params_id = 0;                          // OpWork::params
  const std::vector<model::OpParam>* params = nullptr;  // the model's parameters, in order
};

// Whether the model gave numbers for that pass (otherwise it raised: the reference skips such
// rows, or keeps them untimed in the unified table).
bool has_op_perf(const model::OpWork& work, ModelPass pass);

// The GPU events a pass is timed over: the op's gpu_events (forward) or the GPU events of its
// backward nodes (backward), in gpu_events order. Fills `kernels` (cleared first).
void op_perf_kernels(const GpuSubtrees& subtrees, Row op, ModelPass pass,
                     std::vector<Row>& kernels);

// The numbers of `work` for one pass timed over `kernels` (op_perf_kernels), or nullopt when
// the model raised for that pass.
std::optional<OpPerf> compute_op_perf(const index::EventIndex& index,
                                      const model::OpWorkTable& table, const model::OpWork& work,
                                      ModelPass pass, const std::vector<Row>& kernels,
                                      model::RooflinePeaks& peaks);

// Python repr of the parameters as a dict: {'M': 141, 'bias': True, 'stride_A': (512, 1)}.
std::string perf_params_repr(const std::vector<model::OpParam>& params);

// {name, dur, stream} of each GPU event, in the given order or sorted by start time (stable).
// The second forms fill `out` (cleared first), for callers that reuse one buffer.
KernelDetails kernel_details_of(const index::EventIndex& index, const std::vector<Row>& kernels);
KernelDetails kernel_details_by_start(const index::EventIndex& index, std::vector<Row> kernels);
void kernel_details_of(const index::EventIndex& index, std::span<const Row> kernels,
                       KernelDetails& out);
void kernel_details_by_start(const index::EventIndex& index, std::vector<Row>& kernels,
                             KernelDetails& out);  // sorts `kernels`

}  // namespace traceprism::perf_report
