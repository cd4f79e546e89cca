// The compute-tier engine shared by the per-category analyzers (gemm-efficiency,
// sdpa-efficiency, ..., generic-ops): the reference's per-category analysis scripts
// (TraceLens Agent `category_analyses/*_analysis.py` and `analysis_utils.py`, analysis spec
// §2, §4, §5) as one pure function of the run's unified perf summary rows (OpTable, typed:
// compute_row.hpp), the end-to-end time and the platform peaks. No host access here, so tests
// feed it the golden CSVs directly.
//
// Numbers follow the reference exactly: Python rounding of the same doubles (time 3 decimals,
// efficiency and percents 2), impact maths on the rounded inputs, stable sorts, and the
// reference's grouping of per-op estimates into findings (the P-items).
#pragma once

#include <traceprism/dtype.hpp>
#include <traceprism/sdk.hpp>
#include <traceprism/shape_args.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "compute_row.hpp"

namespace traceprism::plugins::compute {

enum class Scope { kStandalone, kComparative };

// The reference's analysis script for a category (spec §2.3 skill map); one analyzer per
// family, generic for every category without a dedicated script.
enum class Family { kGemm, kSdpa, kElementwise, kReduce, kTriton, kNorm, kConv, kMoe, kGeneric };

// The agent category key of an `op category` cell (spec §2.2): spaces and slashes to
// underscores, lower case; empty → "other".
std::string category_key(std::string_view op_category);
Family family_of(std::string_view category);

// Roofline peaks of the platform, as the reference's arch JSON gives them.
struct Peaks {
  std::map<std::string, double, std::less<>> tflops;  // compute spec → TFLOPS
  std::optional<double> hbm_tbs;                      // memory bandwidth, TB/s
  // The peak for an op's compute spec; matrix_bf16 when the spec has none (the reference's
  // _resolve_peak_maf); nullopt when neither is known.
  std::optional<double> tflops_for(std::string_view spec) const;
};

// The reference's thresholds (spec §5.1), adjustable through analyzer options.
struct Thresholds {
  double min_finding_impact = 0.5;  // group floor, % of E2E (MIN_PITEM_IMPACT_SCORE)
  double min_op_impact = 0.01;      // per-op noise floor on impact_score_high
};

struct Inputs {
  const OpTable* ops = nullptr;  // unified_perf_summary (trace 1 in comparative scope)
  double e2e_ms = 0;             // gpu_timeline total_time, the impact baseline
  Peaks peaks;
  Scope scope = Scope::kStandalone;
  bool compute_impact = true;  // false reproduces triton_analysis.py (no estimates)
  Thresholds thresholds;
  // Fusion feedback (spec §5.6): kernel name → high-confidence fusion candidate. Ops whose
  // kernels match get fusion_flagged and no impact estimate. Empty until the kernel-fusion
  // analyzer provides it.
  std::map<std::string, std::string, std::less<>> fusion_kernel_map;
  // cudaGraphLaunch / hipGraphLaunch calls: the kernels they replay have no op in the trace.
  std::uint64_t graph_launches = 0;
};

struct Efficiency {
  std::optional<double> tflops_achieved, tb_s_achieved, efficiency_percent, flops_per_byte;
  std::optional<double> resolved_peak_maf, resolved_peak_hbm_bw;
  std::string bound_type;    // "compute", "memory", or "" (null)
  std::string compute_spec;  // "" when absent
  std::string warning;       // "" when none
  // A matrix spec the platform has no peak for: the host's roofline used matrix_bf16's.
  bool fallback_peak = false;
  bool is_anomaly = false;
};

struct SdpaWorkload {
  std::optional<double> n_q, n_kv, h_q, h_kv, ctx_ratio, gqa_ratio;
  double sum_ctx_tokens = 0, sum_gen_tokens = 0;
  std::string workload_type = "unknown";  // prefill_heavy / decode_heavy / mixed / unknown
  std::string attention_pattern;          // GQA / MHA / unknown / "" (absent)
};

struct SdpaKernel {
  std::string name;
  double mean_us = 0;
  std::string kernel_type;  // reshape_cache / paged_attention / fwd_kernel / other
  std::optional<double> percent;
};

// Per-category classifier output (spec §2.7); only the family's fields are set.
struct Classification {
  bool present = false;
  bool is_quantized = false;  // gemm: gemm_type = quantized | regular
  bool is_flash = false, is_paged = false, has_perf_model = false;  // sdpa
  std::string attention_type;                                       // sdpa
  std::optional<SdpaWorkload> workload;                             // sdpa
  std::vector<SdpaKernel> kernel_breakdown;                         // sdpa, paged ops
  std::string kernel_type;                                          // triton
  std::string sub_category;                                         // generic
};

// One row of the category (operations[] of <cat>_metrics.json, spec §4.1).
struct Operation {
  std::size_t sheet_row = 0;  // index into OpTable::rows
  std::optional<std::int64_t> ex_uid;
  std::string name;
  std::int64_t count = 1;
  double time_ms = 0;  // rounded to 3 decimals; the value impact maths uses
  double percent_of_category = 0;
  std::optional<double> percent_of_total;
  Efficiency efficiency;
  std::string input_dims, input_type;  // the raw cells
  std::string perf_params;             // the raw cell (prose reads shapes from it)
  bool has_perf_model = false;
  std::string args;  // §4.3 rendering; "" when there is none
  std::optional<double> cov;
  bool high_variance = false;
  Classification classification;
  std::optional<std::string> library;
  bool fusion_flagged = false;
  std::string fusion_candidate_name;
  std::string launcher_path, kernel_name, kernel_name_trunc;
  std::vector<std::string> module_chain, call_chain;
  std::vector<std::string> kernels;  // kernel names: call stack, else kernel_details_summary
  std::vector<std::string> kernels_by_time;  // kernel_details_summary's names, longest first
  // Comparative scope only.
  std::optional<double> t2_time_ms, difference_ms;
  std::optional<std::int64_t> count_trace2;
};

// One per-op impact estimate (impact_estimates[], spec §5.2).
struct ImpactEstimate {
  std::size_t op = 0;  // index into CategoryMetrics::operations
  std::string operation, category;
  bool heuristic = false;  // type unmodeled_significant / estimate_method heuristic
  double impact = 0, low = 0, high = 0;
  std::optional<double> efficiency_pct;
  std::string bound_type;
  std::optional<std::string> library;
  double time_ms = 0;
  std::optional<double> percent_of_total;  // heuristic only
};

// One P-item (category_findings[], spec §5.3).
struct CategoryFinding {
  std::string bound_type;  // compute / memory / unknown / unmodeled
  std::string library;     // "Unknown" when none
  std::string eff_bucket;  // 0-30 / 30-60 / 60-100 / all / unknown
  bool heuristic = false;
  double impact = 0, low = 0, high = 0;
  std::optional<double> percent_of_total;  // heuristic only
  std::vector<ImpactEstimate> members;     // by member impact, descending
  int rank = 0;
};

// <cat>_metrics.json (spec §4), less the prose.
struct CategoryMetrics {
  std::string category, display_name;
  Family family = Family::kGeneric;
  Scope scope = Scope::kStandalone;
  double total_time_ms = 0, percent_of_compute = 0;
  std::int64_t operation_count = 0;
  std::vector<Operation> operations;
  // category_specific (spec §4.4), numbers only (booleans as 1/0, null as nullopt); nested
  // objects flattened with dots ("kernel_breakdown_avg.avg_fwd_kernel_percent").
  std::vector<std::pair<std::string, std::optional<double>>> specific;
  std::vector<std::string> skipped_communication_ops;  // category "other" only
  std::vector<ImpactEstimate> estimates;
  std::vector<CategoryFinding> findings;
  Peaks peaks;  // the platform's: advice names a precision only where it has a peak
  std::uint64_t graph_launches = 0;  // Inputs::graph_launches
};

// The categories of the sheet, in order of first appearance (the manifest's order): key and
// display name (the raw `op category`, "Other" when empty).
std::vector<std::pair<std::string, std::string>> categories_of(const OpTable& unified);

// The whole per-category analysis of one category.
CategoryMetrics analyze_category(const Inputs& in, std::string_view category,
                                 std::string_view display_name);

// A finding's place in priority_data.json findings[] (spec §5.4).
struct RankedFinding {
  const CategoryMetrics* metrics = nullptr;
  const CategoryFinding* finding = nullptr;
  int global_rank = 0;
};
// Impact descending; ties by metrics file name (<category>_metrics.json), then category rank.
std::vector<RankedFinding> priority_order(const std::vector<CategoryMetrics>& categories);

// Quantified findings of a category summed (spec §5.4 findings_rollup), rounded to 2.
struct Rollup {
  double impact = 0, low = 0, high = 0;
  bool any = false;
};
Rollup quantified_rollup(const CategoryMetrics& m);

// ---- Building blocks, exposed for tests and prose ----

// The args text of an op: traceprism/shape_args.hpp (shared with the host).
using traceprism::render_shape_args;
// The short dtype of a torch dtype name: one map for host and plugins (traceprism/dtype.hpp).
using traceprism::short_dtype;
// §2.6; nullopt when no rule matches.
// `kernel_details`: the kernel_details_summary text; the OpRow form searches its kernel names
// and extra values, where that text holds them.
std::optional<std::string> library_of(std::string_view op_name, std::string_view kernel_details);
std::optional<std::string> library_of(std::string_view op_name, const OpRow& row);
// numpy's pairwise summation (np.sum / pandas Series.sum of float64), to the bit.
double pairwise_sum(const std::vector<double>& values);
// "0-30", "30-60", "60-100", or "unknown".
std::string eff_bucket(std::optional<double> efficiency_percent);

}  // namespace traceprism::plugins::compute
