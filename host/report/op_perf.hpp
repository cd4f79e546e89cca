#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/op_metrics.hpp"
#include "model/op_work.hpp"
#include "platform/platform_info.hpp"
#include "report/gpu_subtrees.hpp"
#include "report/kernel_details_summary.hpp"

namespace traceprism::report {

// Which of an op model's two computations a sheet row shows: the op's own work over its
// subtree's kernels, or its backward work (flops_bwd / bytes_bwd) over the kernels of the
// backward nodes autograd links to it (trace-format spec §10, perf-model spec §11.1).
enum class ModelPass { kForward, kBackward };

// One op instance's perf-model numbers, as the reference's compute_perf_metrics gives them.
struct OpPerf {
  std::vector<Row> kernels;   // the GPU events timed, in gpu_events order
  double kernel_time_us = 0;  // busy time of `kernels`
  model::OpMetrics metrics;
  std::string_view compute_spec;                        // "" when unknown
  const std::vector<model::OpParam>* params = nullptr;  // the model's parameters, in order
};

// The numbers of `work` for one pass, or nullopt when the model raised for that pass (the
// reference skips such rows, or keeps them untimed in the unified table).
std::optional<OpPerf> compute_op_perf(const GpuSubtrees& subtrees, const model::OpWorkTable& table,
                                      const model::OpWork& work, ModelPass pass,
                                      const platform::PlatformInfo* platform);

// Python repr of the parameters as a dict: {'M': 141, 'bias': True, 'stride_A': (512, 1)}.
std::string perf_params_repr(const std::vector<model::OpParam>& params);

// {name, dur, stream} of each GPU event, in the given order or sorted by start time (stable).
KernelDetails kernel_details_of(const index::EventIndex& index, const std::vector<Row>& kernels);
KernelDetails kernel_details_by_start(const index::EventIndex& index, std::vector<Row> kernels);

}  // namespace traceprism::report
