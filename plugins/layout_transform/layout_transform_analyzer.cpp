#include "layout_transform_analyzer.hpp"

#include <traceprism/shape_args.hpp>
#include <traceprism/support.hpp>

#include "../common/kernel_scan.hpp"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <unordered_map>
#include <utility>

namespace traceprism::plugins::layout_transform {
namespace {

using kernel_scan::data_table;
using kernel_scan::kDash;
using kernel_scan::launching_ops;
using kernel_scan::span_of;
using kernel_scan::timeline_counts_unlinked;

using support::compact;
using support::percent_adaptive;
using support::py_round;

constexpr std::size_t kChainDepth = 3;  // ops per launch: enough for contiguous → clone → copy_
// Recoverable share of the layout kernels' time (low, mid, high): channels-last removes the
// conversions around convolutions, though some may remain where an op has no NHWC kernel
// (docs/analyzers/layout_transform/layout-transform.md).
constexpr double kRecovery[3] = {0.50, 0.75, 0.90};

constexpr std::string_view kNoLaunchingOp = "(no launching op)";

bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

bool contains_any(std::string_view text, std::initializer_list<std::string_view> parts) {
  for (std::string_view p : parts)
    if (contains(text, p)) return true;
  return false;
}

std::string chain_text(const EventView& ev, const std::vector<Row>& ops) {
  if (ops.empty()) return std::string(kNoLaunchingOp);
  std::string text;
  const std::size_t n = std::min(ops.size(), kChainDepth);
  for (std::size_t i = n; i-- > 0;) text += std::string(ev.name(ops[i])) + (i ? " \u2192 " : "");
  return text;
}

bool is_convolution_op(std::string_view op) {
  return contains_any(op, {"conv", "Conv"});
}

void add(std::map<std::string, LayoutTransformAnalyzer::Group>& groups, const std::string& name,
         LayoutKind kind, double us) {
  LayoutTransformAnalyzer::Group& g = groups[name];
  g.name = name, g.kind = kind;
  ++g.calls;
  g.time_us += us;
}

std::vector<LayoutTransformAnalyzer::Group> by_time(
    std::map<std::string, LayoutTransformAnalyzer::Group>&& groups) {
  std::vector<LayoutTransformAnalyzer::Group> out;
  for (auto& [name, g] : groups) out.push_back(std::move(g));
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.time_us > b.time_us; });
  return out;
}

std::size_t capped(std::size_t n, std::int64_t limit) {
  return std::min(n, static_cast<std::size_t>(std::max<std::int64_t>(0, limit)));
}

}  // namespace

LayoutKind layout_kind(std::string_view kernel) {
  if (contains_any(kernel, {"nchwToNhwc", "nchw2nhwc", "NCHW2NHWC", "nchw_to_nhwc"}))
    return LayoutKind::kToChannelsLast;
  if (contains_any(kernel, {"nhwcToNchw", "nhwc2nchw", "NHWC2NCHW", "nhwc_to_nchw"}))
    return LayoutKind::kFromChannelsLast;
  if (contains(kernel, "batched_transpose")) return LayoutKind::kBatchedTranspose;
  // Other transposes, but not a GEMM or convolution that names its operands' transposition.
  if (contains_any(kernel, {"transpose_", "Transpose"}) &&
      !contains_any(kernel, {"gemm", "Gemm", "GEMM", "conv", "Conv", "attention", "Cijk_"}))
    return LayoutKind::kTranspose;
  return LayoutKind::kNone;
}

const char* layout_label(LayoutKind k) {
  switch (k) {
    case LayoutKind::kToChannelsLast:
      return "NCHW \u2192 NHWC";
    case LayoutKind::kFromChannelsLast:
      return "NHWC \u2192 NCHW";
    case LayoutKind::kBatchedTranspose:
      return "batched transpose (MIOpen NCHW \u2194 NHWC)";
    case LayoutKind::kTranspose:
      return "transpose";
    case LayoutKind::kNone:
      break;
  }
  return "none";
}

LayoutTransformAnalyzer::LayoutTransformAnalyzer(Context& ctx)
    : share_percent_(ctx.declared_option<double>("LayoutSharePercent", kLayoutOptions)),
      table_rows_(ctx.declared_option<std::int64_t>("TableRows", kLayoutOptions)),
      max_evidence_rows_(ctx.declared_option<std::int64_t>("MaxEvidenceRows", kLayoutOptions)) {}

LayoutTransformAnalyzer::Layouts LayoutTransformAnalyzer::measure(const Context& ctx) {
  Layouts l;
  const std::optional<Timeline> timeline = ctx.timeline();
  if (!timeline || timeline->gpu_event_count == 0) return l;
  l.e2e_us = timeline->total_us;
  l.computation_us = timeline->computation_us;
  const bool unlinked = timeline_counts_unlinked(ctx, *timeline);
  const EventView ev = ctx.events();
  std::vector<support::Interval> all, format;
  std::map<std::string, Group> kernels, ops;
  std::vector<Row> chain;
  // Decided once per kernel name: a big trace has millions of kernels and few names.
  std::unordered_map<StringId, LayoutKind> kind_of_name;
  for (Row r : ctx.rows(Kind::kKernel)) {
    if (ev.gpu_class(r) != GpuClass::kComputation) continue;
    if (!unlinked && ev.launcher(r) == kNoRow) continue;
    auto [known, fresh] = kind_of_name.try_emplace(ev.name_id(r), LayoutKind::kNone);
    if (fresh) known->second = layout_kind(ev.name(r));
    const LayoutKind kind = known->second;
    if (kind == LayoutKind::kNone) continue;
    const std::string_view name = ev.name(r);
    l.rows.push_back(r);
    all.push_back(span_of(ev, r));
    if (is_format_conversion(kind)) format.push_back(span_of(ev, r));
    l.miopen = l.miopen || kind == LayoutKind::kBatchedTranspose;
    launching_ops(ev, r, chain);
    if (chain.empty()) l.without_op_us += ev.dur_us(r);
    for (Row op : chain)
      if (is_convolution_op(ev.name(op))) {
        l.under_conv_us += ev.dur_us(r);
        break;
      }
    add(kernels, std::string(name), kind, ev.dur_us(r));
    add(ops, chain_text(ev, chain), kind, ev.dur_us(r));
  }
  l.busy_us = support::total_length(support::merge(std::move(all)));
  l.format_busy_us = support::total_length(support::merge(std::move(format)));
  l.kernels = by_time(std::move(kernels));
  l.ops = by_time(std::move(ops));
  return l;
}

Status LayoutTransformAnalyzer::run(Context& ctx) {
  const Layouts l = measure(ctx);
  ctx.record("layout.time_us", py_round(l.busy_us, 3));
  ctx.record("layout.kernels", static_cast<double>(l.rows.size()));
  if (l.computation_us <= 0 || l.e2e_us <= 0) return Status::kOk;
  const double share = l.busy_us / l.computation_us * 100.0;
  ctx.record("layout.percent_of_computation", py_round(share, 2));
  if (l.rows.empty() || share <= share_percent_) return Status::kOk;
  report(ctx, l);
  return Status::kOk;
}

void LayoutTransformAnalyzer::report(Context& ctx, const Layouts& l) const {
  const double of_computation = l.busy_us / l.computation_us * 100.0;
  const double of_e2e = std::min(100.0, l.busy_us / l.e2e_us * 100.0);
  FindingBuilder finding =
      ctx.report(Tier::kCompute, "layout",
                 "Layout-transform kernels take " + percent_adaptive(of_computation) +
                     " of computation (" + support::ms(l.busy_us / 1000) + ", " +
                     percent_adaptive(of_e2e) + " of the run)")
          .key("layout-transform")
          .cause("layout")
          .severity(Severity::kWarning)
          .insight(insight(l))
          .action(action(l))
          .identification(
              "Computation kernels of gpu_timeline whose name says they only convert a layout: "
              "`nchwToNhwc` / `nhwcToNchw` / `nchw2nhwc` / `nhwc2nchw` (cuDNN), "
              "`batched_transpose_*` (MIOpen), other `transpose_*` kernels; their time (union) is "
              "more than " +
              compact(share_percent_) +
              "% of computation. The ops come from each kernel's launching call, up the call "
              "tree (source: GPU kernels, launch links, call tree).")
          .reasoning(
              "A layout kernel reads and writes a whole tensor and computes nothing. cuDNN and "
              "MIOpen run their fastest convolutions in NHWC (channels-last); given NCHW tensors "
              "they convert the input, weights and output around every convolution, in the "
              "forward and the backward pass.")
          .resolution(
              "With the model and its inputs in channels-last, the convolutions read and write "
              "NHWC directly and the conversions disappear; elementwise and normalization ops "
              "follow the input's memory format. Some conversions can remain at the model's "
              "edges or around ops without an NHWC kernel, hence 50–90 % of the time.")
          .share_percent(of_e2e)
          .impact(of_e2e * kRecovery[0], of_e2e * kRecovery[1], of_e2e * kRecovery[2])
          .metric("time_us", py_round(l.busy_us, 3))
          .metric("format_conversion_time_us", py_round(l.format_busy_us, 3))
          .metric("under_convolution_us", py_round(l.under_conv_us, 3))
          .metric("percent_of_computation", py_round(of_computation, 2))
          .metric("percent_of_e2e", py_round(of_e2e, 2))
          .metric("kernels", static_cast<double>(l.rows.size()));
  finding
      .table(data_table(ctx, l.e2e_us, table_rows_,
                        [](std::string_view name, const OpMetrics&, std::size_t) {
                          return layout_kind(name) != LayoutKind::kNone;
                        }))
      .table(kernels_table(l))
      .table(ops_table(l));
  std::vector<Row> rows = l.rows;
  const EventView ev = ctx.events();
  std::stable_sort(rows.begin(), rows.end(),
                   [&](Row a, Row b) { return ev.dur_ns(a) > ev.dur_ns(b); });
  rows.resize(capped(rows.size(), max_evidence_rows_));
  finding.evidence_rows(rows).kernel_rows(l.rows);
  finding.emit();
}

std::string LayoutTransformAnalyzer::insight(const Layouts& l) {
  std::string text =
      support::count_of(l.rows.size(), "layout kernel") + " run " + support::ms(l.busy_us / 1000) +
      ", " + percent_adaptive(l.busy_us / l.computation_us * 100.0) + " of computation; " +
      support::ms(l.format_busy_us / 1000) + " of it converts between NCHW and NHWC.";
  if (l.under_conv_us > 0)
    text += " " + support::ms(l.under_conv_us / 1000) +
            " of the kernel time is launched by convolution ops.";
  if (launching_op_unknown(l))
    text += " No CPU op sits above " +
            std::string(l.without_op_us < l.busy_us ? "most of them" : "them") +
            " in the trace, so it cannot show which op launches them.";
  else if (!l.ops.empty())
    text += " Most is launched by `" + l.ops.front().name + "` (" +
            percent_adaptive(l.busy_us > 0 ? l.ops.front().time_us / l.busy_us * 100 : 0) +
            " of the layout kernels' time).";
  return text;
}

// The largest group of layout kernels has no CPU op above it (a GPU-only trace).
bool LayoutTransformAnalyzer::launching_op_unknown(const Layouts& l) {
  return !l.ops.empty() && l.ops.front().name == kNoLaunchingOp;
}

// Channels-last where the kernels are NCHW <-> NHWC conversions; for other transposes, the
// producer writes the layout its consumer reads.
std::string LayoutTransformAnalyzer::action(const Layouts& l) {
  std::string text;
  if (l.format_busy_us > 0) {
    const std::string library = l.miopen ? "MIOpen" : "cuDNN";
    const std::string why =
        l.under_conv_us > 0 ? "so that the convolution library (" + library +
                                  ") stops converting NCHW \u2194 NHWC around each convolution"
        : launching_op_unknown(l)
            ? std::string("so that tensors are made in the NHWC layout they are converted to") +
                  (l.miopen ? " (MIOpen's batched_transpose kernels are the layout conversions "
                              "its convolution solvers run for NCHW tensors; the trace has no "
                              "CPU ops to confirm the launching op)"
                            : " (the trace has no CPU ops to show which op launches them)")
            : "so that tensors are made in the NHWC layout they are converted to (these "
              "conversions are launched by `" +
                  l.ops.front().name + "`, not by a convolution op)";
    text = "Switch the model and its inputs to channels-last, " + why +
           ": `model = model.to(memory_format=torch.channels_last)` and "
           "`x = x.to(memory_format=torch.channels_last)` for every input batch.";
    if (l.miopen)
      text +=
          " On ROCm, MIOpen's NHWC kernels are used for channels-last tensors (older PyTorch "
          "builds need `PYTORCH_MIOPEN_SUGGEST_NHWC=1`).";
  }
  if (l.busy_us > l.format_busy_us)
    text += std::string(text.empty() ? "" : " ") +
            "For the other transposes, have the producer write the layout the consumer reads "
            "(no `.contiguous()` after a `transpose`/`permute` when the consumer takes strided "
            "input, or transpose a weight once instead of every step).";
  return text + " Expect at most the layout kernels' time back.";
}

Table LayoutTransformAnalyzer::kernels_table(const Layouts& l) const {
  Table table("Layout-transform kernels",
              {"Kernel", "Change", "Calls", "Time (\xC2\xB5s)", "% of computation"});
  for (std::size_t i = 0; i < capped(l.kernels.size(), table_rows_); ++i) {
    const Group& g = l.kernels[i];
    table.row({support::shorten(g.name, 100), layout_label(g.kind), std::to_string(g.calls),
               compact(g.time_us), percent_adaptive(g.time_us / l.computation_us * 100.0)});
  }
  return table;
}

Table LayoutTransformAnalyzer::ops_table(const Layouts& l) const {
  Table table("Ops that launch them",
              {"Ops", "Kernels", "Time (\xC2\xB5s)", "Share of layout time"});
  double total = 0;
  for (const Group& g : l.ops) total += g.time_us;
  for (std::size_t i = 0; i < capped(l.ops.size(), table_rows_); ++i) {
    const Group& g = l.ops[i];
    table.row({g.name, std::to_string(g.calls), compact(g.time_us),
               total > 0 ? percent_adaptive(g.time_us / total * 100) : "\xE2\x80\x94"});
  }
  return table;
}

}  // namespace traceprism::plugins::layout_transform
