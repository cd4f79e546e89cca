// The reference's memcpy figures, reproduced for parity (no finding reads them): memcpy_summary
// and the memcpy half of overlap_analysis (multi_kernel_data.json), and memcpy_assessment
// (multi_kernel_metrics.json). tests/golden/multi_kernel_golden_test.cpp compares them.
#pragma once

#include <traceprism/sdk.hpp>

#include <cstdint>
#include <vector>

namespace traceprism::plugins::memcpy {

// memcpy_assessment's thresholds: a direction is flagged when its time is above
// `percent_threshold` % of E2E or it has more than `count_threshold` copies.
struct AssessmentThresholds {
  double percent_threshold;
  std::int64_t count_threshold;
};

// Records every figure above over `copies` (the GPU timeline's memcpy bucket, linked to a launch
// or not, in file order) and E2E `e2e_us` (gpu_timeline's total).
void record_reference_figures(Context& ctx, const std::vector<Row>& copies, double e2e_us,
                              const AssessmentThresholds& thresholds);

}  // namespace traceprism::plugins::memcpy
