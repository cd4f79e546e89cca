// Impact scoring and grouping (analysis spec §5): per-op estimates (quantified from the roofline
// gap, heuristic from the E2E share), their grouping into the P-items, and the global order of
// priority_data.json.
#pragma once

#include <vector>

#include "compute_category.hpp"

namespace traceprism::plugins::compute {

// impact_estimates[] of a category whose operations are built: impact descending (stable).
// `roofline_known`: the sheet has roofline columns; when not, ops with a perf model get no
// heuristic estimate (their efficiency is unknown for want of platform peaks).
std::vector<ImpactEstimate> impact_estimates(const CategoryMetrics& m, double baseline_ms,
                                             const Thresholds& t, bool roofline_known = true);

// category_findings[]: the estimates grouped, floored, sorted and ranked.
std::vector<CategoryFinding> category_findings(const std::vector<ImpactEstimate>& estimates,
                                               Scope scope, double floor);

}  // namespace traceprism::plugins::compute
