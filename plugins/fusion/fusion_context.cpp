#include "fusion_context.hpp"

#include <traceprism/support.hpp>

#include <cmath>

namespace traceprism::fusion {
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

std::optional<double> number_cell(const Sheet& s, std::size_t r, std::string_view column) {
  if (!s.has(column)) return std::nullopt;
  const double v = s.number(r, column);
  if (std::isnan(v)) return std::nullopt;
  return v;
}

std::optional<double> roofline_number(const Context& ctx, const std::string& achievable,
                                      const std::string& peak) {
  if (std::optional<double> v = ctx.platform_number(achievable)) return v;
  return ctx.platform_number(peak);
}

// The impact baseline: gpu_timeline's total_time (ms), as the reference reads it from its
// category manifest; the host timeline when the sheet is absent.
double baseline_ms(const Context& ctx) {
  if (std::optional<Sheet> timeline = ctx.perf_sheet("gpu_timeline")) {
    for (std::size_t r = 0; r < timeline->row_count(); ++r)
      if (timeline->cell(r, "type") == "total_time") return timeline->number(r, "time ms");
  }
  if (std::optional<Timeline> t = ctx.timeline()) return t->total_us / 1000;
  return 0;
}

}  // namespace

std::vector<PerfRow> perf_rows_of(const Sheet& s) {
  std::vector<PerfRow> rows;
  for (std::size_t r = 0; r < s.row_count(); ++r) {
    PerfRow row;
    row.name = std::string(s.cell(r, "name"));
    row.op_category = std::string(s.cell(r, "op category"));
    row.input_dims = std::string(s.cell(r, "Input Dims"));
    row.data_moved_mb = number_cell(s, r, "Data Moved (MB)");
    row.gflops = number_cell(s, r, "GFLOPS");
    if (const std::string_view spec = s.cell(r, "Compute Spec"); !spec.empty())
      row.compute_spec = std::string(spec);
    row.perf_params = std::string(s.cell(r, "perf_params"));
    if (const std::string_view kd = s.cell(r, "kernel_details_summary"); !kd.empty())
      row.kernel_details_summary = std::string(kd);
    rows.push_back(std::move(row));
  }
  return rows;
}

std::optional<FusionInputs> read_inputs(const Context& ctx, std::string& why_not) {
  const std::optional<Sheet> unified = ctx.perf_sheet("unified_perf_summary");
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
  if (auto bw = roofline_number(ctx, "achievable_hbm_bandwidth_gbps", "hbm_bandwidth_gbps"))
    in.peaks.hbm_tbs = *bw / 1000;
  in.peaks.matrix_bf16_tflops =
      roofline_number(ctx, "achievable_tflops.matrix_bf16", "peak_tflops.matrix_bf16");
  in.peaks.vector_bf16_tflops =
      roofline_number(ctx, "achievable_tflops.vector_bf16", "peak_tflops.vector_bf16");
  in.baseline_ms = baseline_ms(ctx);
  return in;
}

}  // namespace traceprism::fusion
