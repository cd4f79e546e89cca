#include "precision_analyzer.hpp"

#include <traceprism/shape_args.hpp>
#include <traceprism/support.hpp>

#include "../common/kernel_scan.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace traceprism::plugins::precision {
namespace {

using kernel_scan::data_table;
using kernel_scan::kDash;
using kernel_scan::launching_ops;
using kernel_scan::span_of;
using kernel_scan::timeline_counts_unlinked;

using support::compact;
using support::percent_adaptive;
using support::py_round;

constexpr std::size_t kChainDepth = 3;  // ops named per kernel: enough for linear → addmm
// Recoverable part of the faster peak's gain (low, mid, high): a real kernel reaches only part
// of the peak ratio, and casts add some traffic (docs/analyzers/precision/matrix-precision.md).
constexpr double kRecovery[3] = {0.5, 0.7, 0.9};

// "aten::linear → aten::addmm" from the op names innermost first: the outermost of them first.
std::string chain_text(const Context& ctx, const std::vector<StringId>& names) {
  if (names.empty()) return "(no launching op)";
  std::string text;
  for (std::size_t i = names.size(); i-- > 0;)
    text += std::string(ctx.string(names[i])) + (i ? " \u2192 " : "");
  return text;
}

// The op's `Input type` list text, when the host has it.
std::optional<std::string_view> input_types(const Context& ctx, Row op) {
  const traceprism_host_api_v1* api = ctx.api();
  if (!TRACEPRISM_HOST_HAS_(api, op_call)) return std::nullopt;
  traceprism_op_call_v1 call{};
  call.struct_size = sizeof call;
  if (api->op_call(ctx.raw(), op, &call) != TRACEPRISM_OK || !call.input_types.data)
    return std::nullopt;
  return std::string_view(call.input_types.data, call.input_types.size);
}

double union_us(std::vector<support::Interval> intervals) {
  return support::total_length(support::merge(std::move(intervals)));
}

std::optional<double> peak(const Context& ctx, const char* spec) {
  return ctx.platform_number(std::string("peak_tflops.") + spec);
}

std::optional<double> first_of(const Context& ctx, std::initializer_list<const char*> specs) {
  for (const char* s : specs)
    if (const std::optional<double> v = peak(ctx, s)) return v;
  return std::nullopt;
}

}  // namespace

double MatrixTime::busy(Precision p) const {
  const auto it = busy_us.find(p);
  return it == busy_us.end() ? 0.0 : it->second;
}

// Every computation kernel of the timeline's event set that is a matrix kernel, classified;
// times are unions, so that no share exceeds computation.
MatrixTime measure_matrix_time(const Context& ctx) {
  MatrixTime t;
  const std::optional<Timeline> timeline = ctx.timeline();
  if (!timeline || timeline->gpu_event_count == 0) return t;
  t.e2e_us = timeline->total_us;
  t.computation_us = timeline->computation_us;
  const bool unlinked = timeline_counts_unlinked(ctx, *timeline);
  const EventView ev = ctx.events();
  std::map<Precision, std::vector<support::Interval>> spans;
  std::vector<support::Interval> fp32_spans;
  // Keyed by ids, texts built once per group: a big trace has millions of kernels and few names.
  std::map<std::pair<StringId, Precision>, KernelGroup> groups;
  std::map<std::pair<StringId, Precision>, std::map<std::vector<StringId>, double>> chains;
  struct NameClass {
    bool matrix = false;
    std::optional<Precision> precision;
  };
  std::unordered_map<StringId, NameClass> by_name;
  std::vector<Row> ops;
  for (Row r : ctx.rows(Kind::kKernel)) {
    if (ev.gpu_class(r) != GpuClass::kComputation) continue;
    if (!unlinked && ev.launcher(r) == kNoRow) continue;
    auto [known, fresh] = by_name.try_emplace(ev.name_id(r));
    if (fresh) {
      const std::string_view name = ev.name(r);
      known->second.matrix = is_matrix_kernel(name);
      if (known->second.matrix) known->second.precision = precision_from_name(name);
    }
    if (!known->second.matrix) continue;
    launching_ops(ev, r, ops);
    std::optional<Precision> p = known->second.precision;
    if (!p && !ops.empty()) {
      if (const std::optional<std::string_view> types = input_types(ctx, ops.front()))
        p = precision_from_input_types(*types);
    }
    const Precision precision = p.value_or(Precision::kUnknown);
    spans[precision].push_back(span_of(ev, r));
    if (is_fp32_family(precision)) {
      fp32_spans.push_back(span_of(ev, r));
      t.fp32_rows.push_back(r);
    }
    const std::pair<StringId, Precision> key{ev.name_id(r), precision};
    KernelGroup& g = groups[key];
    ++g.calls;
    g.time_us += ev.dur_us(r);
    std::vector<StringId> chain;
    for (std::size_t i = 0; i < std::min(ops.size(), kChainDepth); ++i)
      chain.push_back(ev.name_id(ops[i]));
    chains[key][chain] += ev.dur_us(r);
  }
  for (auto& [key, g] : groups) {
    g.name = std::string(ctx.string(key.first));
    g.precision = key.second;
    for (const auto& [chain, us] : chains[key]) g.ops[chain_text(ctx, chain)] += us;
  }
  for (auto& [p, list] : spans) t.busy_us[p] = union_us(std::move(list));
  t.fp32_family_us = union_us(std::move(fp32_spans));
  for (auto& [key, g] : groups) t.kernels.push_back(std::move(g));
  // Same order as by name text, whatever the string ids.
  std::stable_sort(
      t.kernels.begin(), t.kernels.end(), [](const KernelGroup& a, const KernelGroup& b) {
        if (a.name != b.name) return a.name < b.name;
        return std::string_view(precision_label(a.precision)) < precision_label(b.precision);
      });
  std::stable_sort(
      t.kernels.begin(), t.kernels.end(),
      [](const KernelGroup& a, const KernelGroup& b) { return a.time_us > b.time_us; });
  std::sort(t.fp32_rows.begin(), t.fp32_rows.end());
  return t;
}

// FP32 SIMT math runs at the vector FP32 peak (AMD Tensile FP32 GEMMs on the matrix cores: their
// matrix FP32 peak), TF32 at matrix_tf32 (AMD: matrix_fp32); FP32 inputs of an unnamed engine at
// the highest of them, so that their gain is not overstated.
Peaks platform_peaks(const Context& ctx) {
  Peaks p;
  const std::optional<double> bf16 = peak(ctx, "matrix_bf16"), fp16 = peak(ctx, "matrix_fp16");
  if (bf16 || fp16) p.low = std::max(bf16.value_or(0.0), fp16.value_or(0.0));
  p.fp32 = first_of(ctx, {"matrix_fp32", "vector_fp32"});
  p.tf32 = first_of(ctx, {"matrix_tf32", "matrix_fp32"});
  p.has_tf32 = peak(ctx, "matrix_tf32").has_value();
  for (const char* s : {"matrix_tf32", "matrix_fp32", "vector_fp32"})
    if (const std::optional<double> v = peak(ctx, s))
      p.fp32_input = std::max(p.fp32_input.value_or(0.0), *v);
  return p;
}

std::optional<double> Peaks::gain(const MatrixTime& t) const {
  if (!low || *low <= 0) return std::nullopt;
  double weighted = 0, weight = 0;
  const std::pair<Precision, std::optional<double>> classes[] = {
      {Precision::kFp32, fp32}, {Precision::kFp32Input, fp32_input}, {Precision::kTf32, tf32}};
  for (const auto& [precision, fp32_peak] : classes) {
    const double us = t.busy(precision);
    if (us <= 0) continue;
    if (!fp32_peak) return std::nullopt;
    weighted += us * std::max(0.0, 1.0 - *fp32_peak / *low);
    weight += us;
  }
  return weight > 0 ? weighted / weight : 0.0;
}

MatrixPrecisionAnalyzer::MatrixPrecisionAnalyzer(Context& ctx)
    : share_percent_(ctx.declared_option<double>("Fp32SharePercent", kPrecisionOptions)),
      table_rows_(ctx.declared_option<std::int64_t>("TableRows", kPrecisionOptions)),
      max_evidence_rows_(ctx.declared_option<std::int64_t>("MaxEvidenceRows", kPrecisionOptions)) {}

Status MatrixPrecisionAnalyzer::run(Context& ctx) {
  const MatrixTime t = measure_matrix_time(ctx);
  double matrix_us = 0;
  for (const auto& [p, us] : t.busy_us) matrix_us += us;
  ctx.record("precision.matrix_time_us", py_round(matrix_us, 3));
  ctx.record("precision.fp32_family_time_us", py_round(t.fp32_family_us, 3));
  if (t.computation_us <= 0 || t.e2e_us <= 0) return Status::kOk;
  const double share = t.fp32_family_us / t.computation_us * 100.0;
  ctx.record("precision.fp32_family_percent_of_computation", py_round(share, 2));
  if (t.fp32_family_us <= 0 || share < share_percent_) return Status::kOk;
  const Peaks peaks = platform_peaks(ctx);
  const std::optional<double> gain = peaks.gain(t);
  if (gain && *gain <= 0) return Status::kOk;  // no faster lower precision on this GPU
  report(ctx, t, peaks, gain);
  return Status::kOk;
}

void MatrixPrecisionAnalyzer::report(Context& ctx, const MatrixTime& t, const Peaks& peaks,
                                     std::optional<double> gain) const {
  const double of_computation = t.fp32_family_us / t.computation_us * 100.0;
  const double of_e2e = std::min(100.0, t.fp32_family_us / t.e2e_us * 100.0);
  const bool tf32 = t.busy(Precision::kTf32) > 0;
  FindingBuilder finding =
      ctx.report(Tier::kCompute, "precision",
                 std::string(tf32 ? "FP32/TF32" : "FP32") + " matrix kernels take " +
                     percent_adaptive(of_computation) + " of computation (" +
                     support::ms(t.fp32_family_us / 1000) + ", " + percent_adaptive(of_e2e) +
                     " of the run)")
          .key("fp32-matrix")
          .cause("precision")
          .severity(Severity::kWarning)
          .insight(insight(t, peaks, gain))
          .action(action(t, peaks, peaks.low.has_value()))
          .identification(
              "GEMM and convolution kernels by name (`gemm`, `Cijk_`, `xmma`, `cutlass`, `conv`, "
              "`scudnn`, ...), their precision from the name (`sgemm`, `scudnn`, `simt` → FP32; "
              "`s1688`, `tf32` → TF32; `bf16`, `h884`, `f16`, `e4m3`, ...; Tensile's type token) "
              "or, where the name says none, from the launching op's `Input type`; FP32 and TF32 "
              "time (their union) is at least " +
              compact(share_percent_) +
              "% of computation (source: GPU kernels of gpu_timeline, launch links, op shapes, "
              "platform peaks).")
          .reasoning(
              "FP32 matrix math runs on the FP32 units or, as TF32, on tensor cores at a fraction "
              "of the BF16/FP16 rate; a BF16/FP16 GEMM also moves half the bytes. Under autocast "
              "the matrix ops run in the lower precision while reductions and the weights' "
              "master copy stay FP32.")
          .resolution(
              "At the lower precision the same kernels run closer to the BF16/FP16 peak: the "
              "time shrinks by up to 1 − peak_fp32 / peak_low, of which a real kernel recovers "
              "50–90 %.")
          .share_percent(of_e2e)
          .metric("fp32_family_time_us", py_round(t.fp32_family_us, 3))
          .metric("percent_of_computation", py_round(of_computation, 2))
          .metric("percent_of_e2e", py_round(of_e2e, 2))
          .metric("fp32_time_us", py_round(t.busy(Precision::kFp32), 3))
          .metric("fp32_input_time_us", py_round(t.busy(Precision::kFp32Input), 3))
          .metric("tf32_time_us", py_round(t.busy(Precision::kTf32), 3));
  if (peaks.low) finding.metric("peak_low_tflops", *peaks.low);
  if (gain) {
    finding.metric("gain", py_round(*gain, 4));
    finding.impact(of_e2e * *gain * kRecovery[0], of_e2e * *gain * kRecovery[1],
                   of_e2e * *gain * kRecovery[2]);
  }
  finding
      .table(data_table(ctx, t.e2e_us, table_rows_,
                        [](std::string_view name, const OpMetrics& m, std::size_t op) {
                          return is_fp32_family(classify(name, m.input_type(op)));
                        }))
      .table(kernels_table(t))
      .table(precisions_table(t));
  std::vector<Row> rows = t.fp32_rows;
  const EventView ev = ctx.events();
  std::stable_sort(rows.begin(), rows.end(),
                   [&](Row a, Row b) { return ev.dur_ns(a) > ev.dur_ns(b); });
  rows.resize(std::min(rows.size(),
                       static_cast<std::size_t>(std::max<std::int64_t>(0, max_evidence_rows_))));
  finding.evidence_rows(rows).kernel_rows(t.fp32_rows);
  finding.emit();
}

std::string MatrixPrecisionAnalyzer::insight(const MatrixTime& t, const Peaks& peaks,
                                             std::optional<double> gain) const {
  std::string text =
      "Matrix kernels run " + support::ms(t.fp32_family_us / 1000) + " in FP32 or TF32 (" +
      percent_adaptive(t.fp32_family_us / t.computation_us * 100.0) + " of computation): ";
  const std::pair<Precision, const char*> parts[] = {
      {Precision::kFp32, "FP32 math"},
      {Precision::kTf32, "TF32 tensor-core math"},
      {Precision::kFp32Input, "FP32 inputs whose kernel names do not say FP32 or TF32"}};
  bool first = true;
  for (const auto& [p, words] : parts) {
    if (t.busy(p) <= 0) continue;
    text += std::string(first ? "" : "; ") + support::ms(t.busy(p) / 1000) + " " + words;
    first = false;
  }
  text += ".";
  if (!gain) {
    text +=
        " The platform's FP32 and BF16/FP16 peaks are unknown (no platform file matches the "
        "device, or it lacks them), so the time a lower precision would save is not quantified.";
    return text;
  }
  text += " The platform's BF16/FP16 tensor-core peak is " + compact(*peaks.low) +
          " TFLOPS; against the FP32 or TF32 peak each of these kernels runs at, the same math "
          "in BF16/FP16 would take up to " +
          percent_adaptive(*gain * 100) +
          " less time (1 \u2212 peak_fp32 / peak_low, weighted by time).";
  return text;
}

// Autocast always; TF32 only where the trace shows FP32 math that TF32 would speed up and no TF32
// kernel (TF32 already on), and only on a GPU that has TF32 (or one the trace does not name).
std::string MatrixPrecisionAnalyzer::action(const MatrixTime& t, const Peaks& peaks,
                                            bool platform_known) {
  std::string text =
      "Autocast the matrix ops to BF16/FP16: run the forward pass under "
      "`torch.autocast(device_type=\"cuda\", dtype=torch.bfloat16)` (FP16: add a "
      "`torch.amp.GradScaler` in training), or cast the model and inputs with "
      "`.to(torch.bfloat16)` for inference.";
  const bool fp32_math = t.busy(Precision::kFp32) + t.busy(Precision::kFp32Input) > 0;
  const bool tf32_on = t.busy(Precision::kTf32) > 0;
  if (tf32_on) {
    text += " TF32 is already on (" + support::ms(t.busy(Precision::kTf32) / 1000) +
            " of these kernels run TF32 math), so only BF16/FP16 is faster.";
  } else if (fp32_math && (peaks.has_tf32 || !platform_known)) {
    text += std::string(" Or, keeping FP32 tensors, allow TF32") +
            (platform_known ? "" : " if the GPU has TF32 tensor cores") +
            ": `torch.backends.cuda.matmul.allow_tf32 = True` or "
            "`torch.set_float32_matmul_precision('high')` (convolutions: "
            "`torch.backends.cudnn.allow_tf32 = True`).";
  }
  return text;
}

Table MatrixPrecisionAnalyzer::kernels_table(const MatrixTime& t) const {
  Table table("FP32 and TF32 matrix kernels", {"Kernel", "Precision", "Calls", "Time (\xC2\xB5s)",
                                               "% of computation", "Launched by"});
  std::size_t shown = 0;
  for (const KernelGroup& g : t.kernels) {
    if (!is_fp32_family(g.precision)) continue;
    if (shown++ >= static_cast<std::size_t>(std::max<std::int64_t>(0, table_rows_))) break;
    const auto top = std::max_element(g.ops.begin(), g.ops.end(), [](const auto& a, const auto& b) {
      return a.second < b.second;
    });
    table.row({support::shorten(g.name, 100), precision_label(g.precision), std::to_string(g.calls),
               compact(g.time_us), percent_adaptive(g.time_us / t.computation_us * 100.0),
               top == g.ops.end() ? "\xE2\x80\x94" : top->first});
  }
  return table;
}

// All matrix time by precision: where the FP32 family stands against the rest.
Table MatrixPrecisionAnalyzer::precisions_table(const MatrixTime& t) {
  Table table("Matrix kernel time by precision",
              {"Precision", "Time (\xC2\xB5s)", "% of computation"});
  std::vector<std::pair<double, Precision>> by_time;
  for (const auto& [p, us] : t.busy_us) by_time.emplace_back(-us, p);
  std::sort(by_time.begin(), by_time.end());
  for (const auto& [neg, p] : by_time)
    table.row({precision_label(p), compact(-neg), percent_adaptive(-neg / t.computation_us * 100)});
  return table;
}

}  // namespace traceprism::plugins::precision
