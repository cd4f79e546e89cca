#include "perf_report/op_perf.hpp"

#include <algorithm>

#include "model/kernel_launchers.hpp"
#include "perf_report/ops_sheets.hpp"
#include "text/python_repr.hpp"

namespace traceprism::perf_report {

bool has_op_perf(const model::OpWork& work, ModelPass pass) {
  const model::OpWorkStatus status = pass == ModelPass::kForward ? work.status : work.bwd_status;
  return work.has_model && status == model::OpWorkStatus::kModelled;
}

void op_perf_kernels(const GpuSubtrees& subtrees, Row op, ModelPass pass,
                     std::vector<Row>& kernels) {
  if (pass == ModelPass::kForward)
    subtrees.gpu_events(op, kernels);
  else
    subtrees.backward_gpu_events(op, kernels);
}

std::optional<OpPerf> compute_op_perf(const index::EventIndex& index,
                                      const model::OpWorkTable& table, const model::OpWork& work,
                                      ModelPass pass, const std::vector<Row>& kernels,
                                      model::RooflinePeaks& peaks) {
  if (!has_op_perf(work, pass)) return std::nullopt;
  const bool forward = pass == ModelPass::kForward;
  OpPerf perf;
  perf.kernel_time_us = model::busy_time_us(index, kernels);
  perf.compute_spec = table.text(work.compute_spec);
  perf.params_id = work.params;
  perf.params = &table.params(work.params);
  perf.metrics = model::compute_op_metrics(forward ? work.flops : work.flops_bwd,
                                           forward ? work.bytes : work.bytes_bwd,
                                           perf.kernel_time_us, perf.compute_spec, peaks);
  return perf;
}

std::string perf_params_repr(const std::vector<model::OpParam>& params) {
  std::string out = "{";
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (i) out += ", ";
    out += text::python_string_repr(params[i].key) + ": " + params[i].repr;
  }
  return out + "}";
}

KernelDetails kernel_details_of(const index::EventIndex& index, const std::vector<Row>& kernels) {
  KernelDetails details;
  kernel_details_of(index, kernels, details);
  return details;
}

KernelDetails kernel_details_by_start(const index::EventIndex& index, std::vector<Row> kernels) {
  KernelDetails details;
  kernel_details_by_start(index, kernels, details);
  return details;
}

void kernel_details_of(const index::EventIndex& index, std::span<const Row> kernels,
                       KernelDetails& out) {
  out.clear();
  out.reserve(kernels.size());
  for (Row k : kernels) out.push_back(kernel_detail(index, k));
}

void kernel_details_by_start(const index::EventIndex& index, std::vector<Row>& kernels,
                             KernelDetails& out) {
  std::stable_sort(kernels.begin(), kernels.end(),
                   [&](Row a, Row b) { return index.ts_us(a) < index.ts_us(b); });
  kernel_details_of(index, kernels, out);
}

}  // namespace traceprism::perf_report
