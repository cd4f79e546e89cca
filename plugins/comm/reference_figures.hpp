// The reference's communication figures (TraceLens agent: multi_kernel_data.json nccl_summary and
// the comm half of overlap_analysis; multi_kernel_metrics.json nccl_blocking_assessment and
// overlap_assessment), kept for parity over the reference's event set: every GPU event, linked
// to a launch or not. The comm analyzer's own judgement uses the GPU timeline's set instead.
// Header of a C++17 plugin.
#pragma once

#include <traceprism/sdk.hpp>

namespace traceprism::plugins::comm {

// The reference's fixed thresholds of its two assessments.
inline constexpr double kReferenceExposedPercent = 5;   // nccl_blocking_assessment: exposed > 5 %
inline constexpr double kReferenceOverlapRatio = 0.70;  // overlap_assessment: ratio < 0.70 ...
inline constexpr double kReferenceMinCommUs = 100;      // ... with at least 100 µs of comm

// Records nccl_summary.*, overlap_analysis.* (comm half), nccl_blocking_assessment.* and
// overlap_assessment.* as the reference computes and rounds them.
void record_reference_figures(Context& ctx);

}  // namespace traceprism::plugins::comm
