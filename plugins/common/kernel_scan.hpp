// What the kernel-scanning compute analyzers (matrix-precision, layout-transform) share: the
// GPU timeline's event set, a kernel's launching ops and the report's compute Data table for a
// chosen subset of each op's kernels. Header-only: those plugins do not link the compute engine.
#pragma once

#include <traceprism/sdk.hpp>
#include <traceprism/shape_args.hpp>
#include <traceprism/support.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace traceprism::plugins::kernel_scan {

inline constexpr const char* kDash = "\xE2\x80\x94";

// Whether gpu_timeline counts unlinked GPU events too (a run with --include-unlinked): the host
// says how many events it counts, not which.
inline bool timeline_counts_unlinked(const Context& ctx, const Timeline& timeline) {
  const EventView ev = ctx.events();
  std::size_t all = 0, linked = 0;
  for (Kind kind : {Kind::kKernel, Kind::kMemcpy, Kind::kMemset})
    for (Row r : ctx.rows(kind)) {
      if (ev.gpu_class(r) == GpuClass::kNone) continue;
      ++all;
      if (ev.launcher(r) != kNoRow) ++linked;
    }
  return timeline.gpu_event_count == all && all != linked;
}

// The cpu_op rows above a kernel's launching call, innermost first (into `ops`, reused).
inline void launching_ops(const EventView& ev, Row kernel, std::vector<Row>& ops) {
  ops.clear();
  const Row launch = ev.launcher(kernel);
  if (launch == kNoRow) return;
  for (Row p = ev.parent(launch); p != kNoRow; p = ev.parent(p))
    if (ev.kind(p) == Kind::kCpuOp) ops.push_back(p);
}

inline support::Interval span_of(const EventView& ev, Row r) {
  const double start = support::reference_us(ev.ts_ns(r));
  return {start, start + support::reference_us(ev.dur_ns(r))};
}

// The report's compute Data table (analysis.md §10: Operation | Args | Kernel Path | Kernel Name |
// Time (ms) | %E2E | Count | FLOPS/Byte | Efficiency | Bound): one row per unified_perf_summary
// op with kernels that `selected(kernel name, op metrics, op index)` picks, with those kernels'
// time; most time first, at most `limit` rows.
template <class Selected>
Table data_table(const Context& ctx, double e2e_us, std::int64_t limit, Selected selected) {
  Table table("Data", {"Operation", "Args", "Kernel Path", "Kernel Name", "Time (ms)", "%E2E",
                       "Count", "FLOPS/Byte", "Efficiency", "Bound"});
  const std::optional<OpMetrics> m = ctx.op_metrics();
  if (!m) return table;
  struct OpRow {
    std::size_t op;
    double us;
    std::string kernels;
  };
  std::vector<OpRow> rows;
  for (std::size_t i = 0; i < m->size(); ++i) {
    OpRow r{i, 0.0, ""};
    const OpKernels kernels = m->kernels(i);
    for (std::size_t k = 0; k < kernels.size(); ++k) {
      const std::string_view name = kernels[k].name();
      if (!selected(name, *m, i)) continue;
      r.us += kernels[k].total_us();
      r.kernels += (r.kernels.empty() ? "" : "<br>") + support::shorten(name, 78);
    }
    if (r.us > 0) rows.push_back(std::move(r));
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const OpRow& a, const OpRow& b) { return a.us > b.us; });
  rows.resize(std::min(rows.size(), static_cast<std::size_t>(std::max<std::int64_t>(0, limit))));
  for (const OpRow& r : rows) {
    const std::string args =
        render_shape_args(m->input_dims(r.op).value_or(""), m->input_type(r.op).value_or(""));
    const double fpb = m->flops_per_byte(r.op);
    const Bound bound = m->bound(r.op);
    table.row({std::string(m->name(r.op)), args.empty() ? kDash : args, kDash, r.kernels,
               support::compact(r.us / 1000),
               e2e_us > 0 ? support::compact(r.us / e2e_us * 100) : kDash,
               std::to_string(m->operation_count(r.op)),
               std::isfinite(fpb) ? support::compact(fpb) : kDash, kDash,
               bound == Bound::kCompute  ? "compute-bound"
               : bound == Bound::kMemory ? "memory-bound"
                                         : kDash});
  }
  return table;
}

}  // namespace traceprism::plugins::kernel_scan
