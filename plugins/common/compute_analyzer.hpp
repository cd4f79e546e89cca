// What every compute-tier analyzer does with the engine (compute_category.hpp): read the run's
// op metrics (the unified_perf_summary as typed columns, ABI 1.5, with gpu_timeline's total
// time) and the platform peaks, analyse each category of its family, record the category
// figures and emit one finding per P-item (the reference's category_findings[]). The analyzers
// differ only in the family they take: one class, FamilyAnalyzer, registered by each plugin.
#pragma once

#include <traceprism/sdk.hpp>

#include <string>

#include "compute_category.hpp"

namespace traceprism::plugins::compute {

// Options shared by the compute analyzers (defaults: the reference's constants, spec §5.1).
inline constexpr traceprism_option_v1 kComputeOptions[] = {
    {"MinFindingImpactPercent", "0.5",
     "A group of ops becomes a finding when its summed impact (percent of end-to-end time) is "
     "at least this."},
    {"MinOpImpactPercent", "0.01",
     "An op's quantified estimate is dropped when its high-end impact (percent of end-to-end "
     "time) is below this."},
};

// The Triton analyzer's options: the reference's triton script computes no impact, so its
// findings are off unless QuantifyImpact is set.
inline constexpr traceprism_option_v1 kTritonOptions[] = {
    kComputeOptions[0],
    kComputeOptions[1],
    {"QuantifyImpact", "false",
     "Estimate impact and report findings for Triton kernels (the reference does not)."},
};

// Every compute analyzer waits for the kernel-fusion analyzer when it is loaded (its
// high-confidence candidates' kernels are not counted twice, spec §5.6) and runs without it
// otherwise.
inline constexpr const char* kComputeDependencies[] = {"?kernel-fusion", nullptr};

// The product the kernel-fusion analyzer publishes: kernel_name → operation (candidate).
inline constexpr const char* kFusionKernelMapProduct = "kernel_fusion.high_confidence_kernel_map";

struct ComputeSettings {
  Thresholds thresholds;
  bool compute_impact = true;
};

// The settings from the analyzer's options; `quantify_by_default` is QuantifyImpact's default.
ComputeSettings compute_settings(const Context& ctx, bool quantify_by_default = true);

using FamilyFilter = bool (*)(Family);

// Runs the analysis for every category of the sheet whose family passes `handles`. Skipped when
// the run has no unified_perf_summary sheet or none of its categories is handled.
Status run_compute_analyzer(Context& ctx, const ComputeSettings& settings, FamilyFilter handles);

// The engine's rows from the host's op metrics.
OpTable op_table_of(const OpMetrics& metrics);

// The compute analyzer of one family (gemm-efficiency, ..., generic-ops), registered from its
// plugin: TRACEPRISM_ANALYZERS(analyzer<FamilyAnalyzer<Family::kGemm>>("gemm-efficiency", ...)).
// `kQuantifyByDefault` is QuantifyImpact's default (false for triton-efficiency).
template <Family kFamily, bool kQuantifyByDefault = true>
class FamilyAnalyzer : public Analyzer {
 public:
  explicit FamilyAnalyzer(Context& ctx) : settings_(compute_settings(ctx, kQuantifyByDefault)) {}
  Status run(Context& ctx) override { return run_compute_analyzer(ctx, settings_, &handles); }

 private:
  static bool handles(Family family) { return family == kFamily; }
  ComputeSettings settings_;
};

// The finding key: "<category>_metrics#<rank>" (rank zero-padded), so that the host's tie order
// (analyzer, key) follows the reference's (metrics file name, category rank).
std::string finding_key(const CategoryMetrics& m, const CategoryFinding& f);

}  // namespace traceprism::plugins::compute
