#include "report/op_perf.hpp"

#include <algorithm>

#include "model/kernel_launchers.hpp"
#include "report/ops_sheets.hpp"
#include "report/python_repr.hpp"

namespace traceprism::report {

std::optional<OpPerf> compute_op_perf(const GpuSubtrees& subtrees, const model::OpWorkTable& table,
                                      const model::OpWork& work, ModelPass pass,
                                      const platform::PlatformInfo* platform) {
  const bool forward = pass == ModelPass::kForward;
  const model::OpWorkStatus status = forward ? work.status : work.bwd_status;
  if (!work.has_model || status != model::OpWorkStatus::kModelled) return std::nullopt;
  OpPerf perf;
  perf.kernels = forward ? subtrees.gpu_events(work.row) : subtrees.backward_gpu_events(work.row);
  perf.kernel_time_us = model::busy_time_us(subtrees.index(), perf.kernels);
  perf.compute_spec = table.text(work.compute_spec);
  perf.params = &table.params(work.params);
  perf.metrics = model::compute_op_metrics(forward ? work.flops : work.flops_bwd,
                                           forward ? work.bytes : work.bytes_bwd,
                                           perf.kernel_time_us, perf.compute_spec, platform);
  return perf;
}

std::string perf_params_repr(const std::vector<model::OpParam>& params) {
  std::string out = "{";
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (i) out += ", ";
    out += python_string_repr(params[i].key) + ": " + params[i].repr;
  }
  return out + "}";
}

KernelDetails kernel_details_of(const index::EventIndex& index, const std::vector<Row>& kernels) {
  KernelDetails details;
  details.reserve(kernels.size());
  for (Row k : kernels) details.push_back(kernel_detail(index, k));
  return details;
}

KernelDetails kernel_details_by_start(const index::EventIndex& index, std::vector<Row> kernels) {
  std::stable_sort(kernels.begin(), kernels.end(),
                   [&](Row a, Row b) { return index.ts_us(a) < index.ts_us(b); });
  return kernel_details_of(index, kernels);
}

}  // namespace traceprism::report
