// Fills FusionInputs from what the host shows a plugin: the event columns with the call tree
// that nests python frames (ABI 1.2), op args through op_call, the unified perf summary as
// typed op metrics with gpu_timeline's total time (ABI 1.5) and the platform's roofline numbers.
#pragma once

#include <traceprism/sdk.hpp>

#include <optional>
#include <string>

#include "fusion_inputs.hpp"

namespace traceprism::plugins::fusion {

// nullopt (with the reason in `why_not`) when the host lacks what the analysis needs.
std::optional<FusionInputs> read_inputs(const Context& ctx, std::string& why_not);

// The unified_perf_summary rows, the columns the analysis reads.
std::vector<PerfRow> perf_rows_of(const OpMetrics& unified);

}  // namespace traceprism::plugins::fusion
