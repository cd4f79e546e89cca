#include "fusion_context.hpp"

#include <traceprism/roofline.hpp>
#include <traceprism/support.hpp>

#include <cmath>

namespace traceprism::plugins::fusion {
namespace {

RowKind kind_of(Kind k) {
  switch (k) {
    case Kind::kCpuOp:
      return RowKind::kCpuOp;
    case Kind::kPythonFunction:
      return RowKind::kPythonFunction;
    case Kind::kRuntime:
      return RowKind::kRuntime;
    case Kind::kDriver:
      return RowKind::kDriver;
    case Kind::kKernel:
      return RowKind::kKernel;
    case Kind::kMemcpy:
    case Kind::kMemset:
      return RowKind::kGpuMemory;
    default:
      return RowKind::kOther;
  }
}

std::optional<double> known(double v) {
  if (std::isnan(v)) return std::nullopt;  // the sheet's empty cell
  return v;
}

// A kernel name as the reference's regex `'name':\s*'([^']+)'` reads it from the cell's Python
// repr: a name printed in double quotes (it holds a "'") or empty is not matched; backslashes
// appear doubled.
std::optional<std::string> regex_name(std::string_view name) {
  if (name.empty() || name.find('\'') != std::string_view::npos) return std::nullopt;
  std::string out;
  for (char c : name) {
    if (c == '\\') out += '\\';
    out += c;
  }
  return out;
}

// TraceDiff's rows when this run is trace 1 of a comparison (ABI 1.8).
std::optional<TraceDiffInputs> trace_diff_of(const Context& ctx) {
  const std::optional<TraceDiffRows> rows = ctx.trace_diff();
  if (!rows) return std::nullopt;
  TraceDiffInputs d;
  for (std::size_t i = 0; i < rows->size(); ++i) {
    if (rows->lca_id(i) < 0) continue;
    const DiffKernel k{rows->kernel_name(i), rows->kernel_time_us(i), rows->lca_id(i)};
    if (rows->source(i) == 1)
      d.add_trace1(static_cast<std::int32_t>(rows->gpu_row(i)), k);
    else
      d.trace2_by_lca[k.lca_id].push_back(k);
  }
  return d;
}

}  // namespace

std::vector<PerfRow> perf_rows_of(const OpMetrics& m) {
  std::vector<PerfRow> rows;
  for (std::size_t r = 0; r < m.size(); ++r) {
    PerfRow row;
    row.name = std::string(m.name(r));
    row.op_category = std::string(m.op_category(r));
    row.input_dims = std::string(m.input_dims(r).value_or(""));
    row.data_moved_mb = known(m.data_moved_mb(r));
    row.gflops = known(m.gflops(r));
    if (const auto spec = m.compute_spec(r); spec && !spec->empty())
      row.compute_spec = std::string(*spec);
    row.perf_params = std::string(m.perf_params(r).value_or(""));
    // The host's kernel_details_summary cell is never empty ("[]" without kernels).
    row.kernel_names.emplace();
    const OpKernels kernels = m.kernels(r);
    for (std::size_t k = 0; k < kernels.size(); ++k)
      if (std::optional<std::string> name = regex_name(kernels[k].name()))
        row.kernel_names->push_back(std::move(*name));
    rows.push_back(std::move(row));
  }
  return rows;
}

std::optional<FusionInputs> read_inputs(const Context& ctx, std::string& why_not) {
  const std::optional<OpMetrics> unified = ctx.op_metrics();
  if (!unified) {
    why_not = "no unified_perf_summary sheet (the host did not build a perf report)";
    return std::nullopt;
  }
  const Span<const std::int32_t> parents = ctx.python_tree_parents();
  const EventView ev = ctx.events();
  if (parents.size() != ev.size()) {
    why_not = "the host has no call tree with python frames (ABI 1.2 needed)";
    return std::nullopt;
  }
  if (!ctx.has_minor3()) {
    why_not = "the host does not list the unified perf events (ABI 1.3 needed)";
    return std::nullopt;
  }
  FusionInputs in;
  in.unified_events = ctx.unified_perf_events();
  TraceRows& rows = in.rows;
  rows.events = ev;
  rows.python_parent = parents;
  const std::size_t n = ev.size();
  rows.kind.resize(n);
  for (std::size_t i = 0; i < n; ++i) rows.kind[i] = kind_of(ev.kind(static_cast<Row>(i)));
  const traceprism_host_api_v1* api = ctx.api();
  traceprism_run_ctx* raw = ctx.raw();
  rows.input_dims = [api, raw](std::size_t row) -> std::optional<std::string> {
    traceprism_op_call_v1 call{};
    call.struct_size = sizeof call;
    if (api->op_call(raw, static_cast<std::uint32_t>(row), &call) != TRACEPRISM_OK ||
        !call.input_dims.data)
      return std::nullopt;
    return std::string(call.input_dims.data, call.input_dims.size);
  };
  in.unified = perf_rows_of(*unified);
  if (auto bw = roofline_hbm_gbps(ctx)) in.peaks.hbm_tbs = *bw / 1000;
  in.peaks.matrix_bf16_tflops = roofline_tflops(ctx, "matrix_bf16");
  in.peaks.vector_bf16_tflops = roofline_tflops(ctx, "vector_bf16");
  in.baseline_ms = unified->gpu_total_ms();
  in.trace_diff = trace_diff_of(ctx);
  return in;
}

}  // namespace traceprism::plugins::fusion
