#include "recompute_analyzer.hpp"

#include <traceprism/shape_args.hpp>
#include <traceprism/support.hpp>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <tuple>
#include <utility>

namespace traceprism::plugins::recompute {
namespace {

using support::compact;
using support::count_of;
using support::fixed;
using support::percent_adaptive;
using support::py_round;

constexpr const char* kDash = "—";

// The op's input shapes as the compute Data tables print them ("(8,1024) bf16<br>..."), "" when
// the trace has none.
std::string args_of(const Context& ctx, Row op) {
  if (op == kNoRow) return {};
  traceprism_op_call_v1 call{};
  call.struct_size = sizeof call;
  if (ctx.api()->op_call(ctx.raw(), op, &call) != TRACEPRISM_OK) return {};
  return render_shape_args(to_view(call.input_dims), to_view(call.input_types));
}

// The name a recomputed kernel's row is listed under: its launching op, else (a launch with no
// op above it) the launching call.
std::string_view op_name(const EventView& ev, const RecomputedKernel& k) {
  return ev.name(k.op != kNoRow ? k.op : ev.launcher(k.kernel));
}

// The ops whose outputs a selective-checkpointing policy saves first: matrix products,
// convolutions and attention (expensive to recompute, cheap to keep relative to their cost).
bool matrix_or_attention(std::string_view op) {
  for (std::string_view part :
       {"mm", "matmul", "linear", "conv", "einsum", "attention", "flash", "fmha", "mha", "sdpa"})
    if (op.find(part) != std::string_view::npos) return true;
  return false;
}

}  // namespace

struct RecomputeAnalyzer::Measure {
  double recompute_us = 0;    // union of the recomputed kernels
  double computation_us = 0;  // the timeline's computation
  double e2e_us = 0;          // the timeline's window
  double percent_of_computation = 0, percent_of_e2e = 0;
};

struct RecomputeAnalyzer::OpGroup {
  std::string name, args, rerun;  // launching op, its shapes, the outermost rerun op
  std::set<Row> calls;
  std::int64_t time_ns = 0;                       // its kernels' durations, each kernel once
  std::map<std::string, std::int64_t> kernel_ns;  // per kernel name
};

RecomputeAnalyzer::RecomputeAnalyzer(Context& ctx)
    : computation_percent_(
          ctx.declared_option<double>("ComputationPercentThreshold", kRecomputeOptions)),
      table_rows_(ctx.declared_option<std::int64_t>("TableRows", kRecomputeOptions)),
      max_evidence_rows_(ctx.declared_option<std::int64_t>("MaxEvidenceRows", kRecomputeOptions)) {}

Status RecomputeAnalyzer::run(Context& ctx) {
  const RecomputeScan scan = scan_recompute(ctx);
  const Measure m = measure(ctx, scan);
  record(ctx, scan, m);
  // Evidence before advice: a recompute needs a backward pass, a checkpoint region and kernels
  // rerun inside it; its share needs the timeline's computation.
  if (scan.kernels.empty() || m.computation_us <= 0 || m.e2e_us <= 0) return Status::kOk;
  if (m.percent_of_computation < computation_percent_) return Status::kOk;
  report(ctx, scan, m);
  return Status::kOk;
}

// The recomputed kernels' union (each kernel once; they are computation events of the
// timeline, so the union lies inside its computation) against the timeline's totals.
RecomputeAnalyzer::Measure RecomputeAnalyzer::measure(const Context& ctx,
                                                      const RecomputeScan& scan) {
  Measure m;
  const std::optional<Timeline> timeline = ctx.timeline();
  if (timeline) {
    m.computation_us = timeline->computation_us;
    m.e2e_us = timeline->total_us;
  }
  const EventView ev = ctx.events();
  std::vector<Interval<std::int64_t>> spans;
  spans.reserve(scan.kernels.size());
  for (const RecomputedKernel& k : scan.kernels)
    spans.push_back({ev.ts_ns(k.kernel), ev.end_ns(k.kernel)});
  m.recompute_us = static_cast<double>(total_length(merge_intervals(std::move(spans)))) / 1000.0;
  if (m.computation_us > 0)
    m.percent_of_computation = std::min(100.0, m.recompute_us / m.computation_us * 100.0);
  if (m.e2e_us > 0) m.percent_of_e2e = std::min(100.0, m.recompute_us / m.e2e_us * 100.0);
  return m;
}

void RecomputeAnalyzer::record(Context& ctx, const RecomputeScan& scan, const Measure& m) {
  ctx.record("recompute.has_backward", scan.has_backward ? 1.0 : 0.0);
  ctx.record("recompute.has_checkpoint", scan.has_checkpoint ? 1.0 : 0.0);
  ctx.record("recompute.region_count", static_cast<double>(scan.region_count()));
  ctx.record("recompute.kernel_count", static_cast<double>(scan.kernels.size()));
  ctx.record("recompute.time_ms", py_round(m.recompute_us / 1000.0, 6));
  ctx.record("recompute.percent_of_computation", py_round(m.percent_of_computation, 4));
  ctx.record("recompute.percent_of_e2e", py_round(m.percent_of_e2e, 4));
}

// One group per (launching op, shapes, rerun op), most GPU time first.
std::vector<RecomputeAnalyzer::OpGroup> RecomputeAnalyzer::group_by_op(const Context& ctx,
                                                                       const RecomputeScan& scan) {
  const EventView ev = ctx.events();
  std::map<std::tuple<std::string, std::string, std::string>, OpGroup> groups;
  for (const RecomputedKernel& k : scan.kernels) {
    std::string name(op_name(ev, k));
    std::string args = args_of(ctx, k.op);
    std::string rerun(k.top != kNoRow ? ev.name(k.top) : name);
    OpGroup& g = groups[{name, args, rerun}];
    if (g.name.empty()) g.name = name, g.args = args, g.rerun = rerun;
    g.calls.insert(k.op != kNoRow ? k.op : ev.launcher(k.kernel));
    support::add_ns(g.time_ns, ev.dur_ns(k.kernel));
    support::add_ns(g.kernel_ns[std::string(ev.name(k.kernel))], ev.dur_ns(k.kernel));
  }
  std::vector<OpGroup> out;
  for (auto& entry : groups) out.push_back(std::move(entry.second));
  std::stable_sort(out.begin(), out.end(),
                   [](const OpGroup& a, const OpGroup& b) { return a.time_ns > b.time_ns; });
  return out;
}

void RecomputeAnalyzer::report(Context& ctx, const RecomputeScan& scan, const Measure& m) const {
  const std::vector<OpGroup> groups = group_by_op(ctx, scan);
  const std::string time = support::ms(m.recompute_us / 1000.0);
  const double e2e = m.percent_of_e2e;
  FindingBuilder finding =
      ctx.report(Tier::kCompute, "recompute",
                 "Activation-checkpoint recompute takes " + fixed(m.percent_of_computation, 1) +
                     "% of computation (" + time + ", " + fixed(e2e, 1) +
                     "% of E2E): forward ops rerun in the backward pass")
          .key("recompute")
          .cause("recompute")
          .severity(Severity::kWarning)
          .insight(insight(scan, m, groups))
          .action(
              "Use selective activation checkpointing to trade memory for the recompute time: "
              "torch.utils.checkpoint with a policy (`create_selective_checkpoint_contexts` "
              "that saves the matmul and attention outputs, so that only cheap elementwise ops "
              "rerun), or checkpoint fewer blocks (e.g. only the attention, or only every other "
              "block) where the memory allows. At most the recomputed " +
              time + " comes back.")
          .identification(
              "Computation kernels of the GPU timeline whose launch sits under a forward op "
              "(no autograd node, `*Backward*` op, `aten::*_backward` op or autograd-engine "
              "frame between them) inside a checkpoint region of the backward pass: under the "
              "`CheckpointFunctionBackward` node (reentrant checkpointing), or under "
              "`torch/utils/checkpoint.py` frames below an autograd node or on the autograd "
              "engine's thread (non-reentrant checkpointing's unpack hook). Time is the union "
              "of those kernels, each counted once; at least " +
              compact(computation_percent_) +
              "% of computation (source: call tree with python frames, launch links, GPU "
              "timeline).")
          .reasoning(
              "Activation checkpointing drops a block's activations after its forward and "
              "recomputes them when the backward pass needs them: the block's forward kernels "
              "run twice per step. The second run is pure overhead bought with memory.")
          .resolution(
              "Selective checkpointing saves the activations that are expensive to recompute "
              "(matmuls, attention) and recomputes only cheap ones, or checkpoints fewer "
              "blocks; the memory saved shrinks accordingly, so the batch size or sequence "
              "length must still fit.")
          .share_percent(e2e)
          .impact(e2e * kRecomputeRecovery[0], e2e * kRecomputeRecovery[1],
                  e2e * kRecomputeRecovery[2])
          .metric("recompute_us", py_round(m.recompute_us, 3))
          .metric("percent_of_computation", py_round(m.percent_of_computation, 2))
          .metric("percent_of_e2e", py_round(e2e, 2))
          .metric("kernel_count", static_cast<double>(scan.kernels.size()))
          .metric("region_count", static_cast<double>(scan.region_count()))
          .metric("op_group_count", static_cast<double>(groups.size()))
          .metric("matrix_attention_percent", py_round(matrix_attention_percent(groups), 2));
  finding.table(ops_table(groups, m));
  // Evidence: the recomputed kernels, longest first.
  const EventView ev = ctx.events();
  std::vector<Row> rows;
  for (const RecomputedKernel& k : scan.kernels) rows.push_back(k.kernel);
  finding.kernel_rows(rows);
  std::stable_sort(rows.begin(), rows.end(),
                   [&](Row a, Row b) { return ev.dur_ns(a) > ev.dur_ns(b); });
  if (max_evidence_rows_ >= 0 && rows.size() > static_cast<std::size_t>(max_evidence_rows_))
    rows.resize(static_cast<std::size_t>(max_evidence_rows_));
  finding.evidence_rows(rows);
  finding.emit();
}

// The compute tier's Data table (its 10 canonical columns): one row per recomputed op group.
Table RecomputeAnalyzer::ops_table(const std::vector<OpGroup>& groups, const Measure& m) const {
  Table t("Data", {"Operation", "Args", "Kernel Path", "Kernel Name", "Time (ms)", "%E2E", "Count",
                   "FLOPS/Byte", "Efficiency", "Bound"});
  const std::size_t n = table_rows_ < 0 ? 0 : static_cast<std::size_t>(table_rows_);
  for (std::size_t i = 0; i < groups.size() && i < n; ++i) {
    const OpGroup& g = groups[i];
    const auto longest =
        std::max_element(g.kernel_ns.begin(), g.kernel_ns.end(),
                         [](const auto& a, const auto& b) { return a.second < b.second; });
    std::string kernel = support::shorten(longest->first, 75);
    if (g.kernel_ns.size() > 1)
      kernel += " (+" + count_of(g.kernel_ns.size() - 1, "other kernel", "other kernels") + ")";
    const double ms = static_cast<double>(g.time_ns) / 1e6;
    const std::string path = g.rerun != g.name ? "recomputed in " + g.rerun : "recomputed";
    t.row({g.name, g.args.empty() ? kDash : g.args, path, kernel, compact(ms),
           compact(m.e2e_us > 0 ? ms * 1000 / m.e2e_us * 100 : 0), std::to_string(g.calls.size()),
           kDash, kDash, kDash});
  }
  return t;
}

std::string RecomputeAnalyzer::insight(const RecomputeScan& scan, const Measure& m,
                                       const std::vector<OpGroup>& groups) {
  std::size_t calls = 0;
  std::map<std::string, std::int64_t> by_name;  // every shape of an op together
  for (const OpGroup& g : groups) {
    calls += g.calls.size();
    support::add_ns(by_name[g.name], g.time_ns);
  }
  std::vector<std::pair<std::string, std::int64_t>> ops(by_name.begin(), by_name.end());
  std::stable_sort(ops.begin(), ops.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string text =
      count_of(scan.region_count(), "checkpoint region", "checkpoint regions") +
      " of the backward pass rerun forward ops: " + count_of(calls, "op call", "op calls") +
      " launch " + count_of(scan.kernels.size(), "kernel", "kernels") + " for " +
      support::ms(m.recompute_us / 1000.0) + " of GPU time, " +
      percent_adaptive(m.percent_of_computation) + " of computation and " +
      percent_adaptive(m.percent_of_e2e) + " of E2E. Most of it: ";
  for (std::size_t i = 0; i < ops.size() && i < 3; ++i)
    text += (i ? ", " : "") + std::string("`") + ops[i].first + "` (" +
            support::ms(static_cast<double>(ops[i].second) / 1e6) + ")";
  return text + ". Matrix products, convolutions and attention hold " +
         percent_adaptive(matrix_attention_percent(groups)) +
         " of the recomputed kernel time: what a policy that saves their outputs stops "
         "rerunning.";
}

// The share of the recomputed kernel time (durations summed) in matrix / attention ops.
double RecomputeAnalyzer::matrix_attention_percent(const std::vector<OpGroup>& groups) {
  std::int64_t all = 0, matrix = 0;
  for (const OpGroup& g : groups) {
    support::add_ns(all, g.time_ns);
    if (matrix_or_attention(g.name) || matrix_or_attention(g.rerun))
      support::add_ns(matrix, g.time_ns);
  }
  return all > 0 ? static_cast<double>(matrix) / static_cast<double>(all) * 100.0 : 0.0;
}

}  // namespace traceprism::plugins::recompute
