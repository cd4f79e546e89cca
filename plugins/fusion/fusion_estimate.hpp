// Savings estimates for standalone fusion candidates (analysis-rules §9.3, §9.4, §9.6; the
// reference's kernel_fusion_analysis.py): filter and dedup the candidates, project each one's
// fused time with a roofline (85% memory/compute overlap), score the savings as % of E2E,
// classify confidence, and list the kernels of high-confidence estimates.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fusion_candidate.hpp"
#include "fusion_inputs.hpp"
#include "perf_lookup.hpp"

namespace traceprism::plugins::fusion {

enum class Confidence { kLow = 0, kMedium = 1, kHigh = 2 };

// How a candidate's time is counted. diagnosis.md §6.2: measured, the sum of each instance's own
// kernels; the reference extrapolates the first instance's kernels × the instance count (kept for
// the parity tests and as each estimate's reference_* figures).
enum class TimeRule { kMeasured, kReferenceExtrapolated };

// The reference's constants, as options.
struct FusionSettings {
  TimeRule time_rule = TimeRule::kMeasured;
  int max_kernel_count = 15;         // MAX_FUSION_KERNEL_COUNT: more is too complex to fuse
  double min_impact_percent = 2.0;   // MIN_IMPACT_SCORE: best-case % of E2E an estimate needs
  double overlap_efficiency = 0.85;  // memory/compute overlap of the fused kernel
};

// Why an estimate got its confidence: the pattern the name hints at and the one the kernel
// composition shows ("attention", "norm", "mlp", "rope", "siglu" / "elementwise_chain"), empty
// when there is none.
struct ConfidenceSignals {
  std::string name;
  std::string composition;
  Confidence level() const {
    if (!name.empty() && !composition.empty()) return Confidence::kHigh;
    return name.empty() && composition.empty() ? Confidence::kLow : Confidence::kMedium;
  }
};

// A candidate kernel with its perf-report numbers (the reference's `enriched` entries).
struct EnrichedKernel {
  std::string name;
  std::string type;
  double dur_us = 0;
  std::optional<double> data_moved_mb, data_in_mb, data_out_mb, gflops;
  std::optional<std::string> compute_spec;
  bool has_perf_data() const { return data_moved_mb.has_value(); }
};

// Uses matrix units: a matrix compute spec, or GEMM / CONV in the kernel type.
bool is_matrix_op(const EnrichedKernel& k);

struct FusionEstimate {
  std::size_t candidate = 0;  // index into FusionMetrics::candidates
  std::string operation;      // the candidate's base_name
  double impact_score = 0, impact_score_low = 0, impact_score_high = 0;  // rounded to 2
  bool full_estimation = true;  // "full" vs "partial" (some kernels lack perf models)
  bool compute_bound = false;   // bound_type compute (a GEMM epilogue) vs memory
  bool matrix_compute = false;  // fusion_type matrix_compute vs memory_bound
  double time_ms = 0;           // rounded to 3; the impact scores are shares of it
  // The reference's figures (first instance × instance count, its kernel_fusion_metrics.json
  // time_ms and impact scores), for comparison: equal to the above under kReferenceExtrapolated.
  double reference_extrapolated_time_ms = 0;
  double reference_impact_score = 0, reference_impact_score_low = 0,
         reference_impact_score_high = 0;
  int instance_count = 0, kernel_count = 0, modeled_kernel_count = 0;
  Confidence confidence = Confidence::kLow;
  ConfidenceSignals signals;
  std::vector<EnrichedKernel> kernels;  // affected_gpu_kernels, with their numbers
  std::optional<std::string> warning;
  // Comparative estimates (§9.5, estimation "measured"): the gap is trace 1's kernel time minus
  // trace 2's for the same divergence points; no roofline.
  bool measured_gap = false;
  int delta_kernel_count = 0;  // trace 1's kernels minus trace 2's
  double trace2_time_ms = 0;   // rounded to 3
  double gap_ms = 0;           // what the impact counts: the gap, at most the extra kernels' time
  std::vector<EnrichedKernel> trace2_kernels;
};

struct FusionMetrics {
  bool has_data = false;  // status OK; false: NO_DATA (no candidate survived the filters)
  std::vector<FusionCandidate> candidates;  // after filter + dedup (candidate_count)
  double total_time_ms = 0;       // the reference's sum of total_kernel_time_us, rounded to 3
  double total_impact_score = 0;  // sum of impact_score, rounded to 2
  std::vector<FusionEstimate> estimates;  // impact_score descending (stable)
  std::vector<std::string> warnings;
  // kernel name -> operation for high-confidence estimates (a dict: first position, last value)
  std::vector<std::pair<std::string, std::string>> high_confidence_kernel_map;
};

FusionMetrics estimate_fusion(const std::vector<FusionCandidate>& candidates,
                              const KernelPerfLookup& lookup, const Peaks& peaks,
                              double baseline_ms, const FusionSettings& settings = {});

// Comparative candidates (comparative_candidates.hpp): the same filter and dedup, then each
// one's measured gap to trace 2 (§9.5): impact = (trace 1 − trace 2 time) / E2E, low / mid at
// 75 / 87.5 % of it; dropped under 0.1 ms or the minimum impact.
FusionMetrics estimate_comparative_fusion(const std::vector<FusionCandidate>& candidates,
                                          double baseline_ms, const FusionSettings& settings = {});

}  // namespace traceprism::plugins::fusion
