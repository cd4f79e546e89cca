#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "findings/finding.hpp"

namespace traceprism::findings {

// The findings of a run, ranked per tier (each tier numbered P1..Pn).
struct RankedFindings {
  std::vector<Finding> compute, fusion, system;
  std::size_t duplicates_dropped = 0;
  // Findings about kernels a more specific finding reports (diagnosis.md §1.5), as emitted,
  // with the id of the finding they are folded into.
  std::vector<Finding> folded;
  const std::vector<Finding>& tier(Tier t) const {
    return t == Tier::kCompute ? compute : t == Tier::kFusion ? fusion : system;
  }
};

// The one ranking function (architecture §7, plugin-sdk.md §6.8, diagnosis.md §7):
//  - every tier: quantified findings first, by impact_mid desc, then impact_low desc,
//    model-quantified before heuristic on ties;
//  - then the unquantified ones: in the system tier by share of end-to-end time desc (unknown
//    last), then severity;
//  - ties: analyzer name, finding key, first evidence timestamp, title.
// Duplicates are dropped: a second finding with the same (analyzer, key), or one in the same
// tier whose evidence rows equal an earlier (higher-ranked) finding's.
// With the event index's duration column, kernel time two findings share is counted once,
// before ranking (shared_kernels.hpp, diagnosis.md §1.5); findings that only repeat another
// are folded into it.
RankedFindings rank_findings(const std::vector<AnalyzerOutcome>& outcomes,
                             std::span<const std::int64_t> dur_ns = {});

// Every ranked finding on one scale (diagnosis.md §7): quantified before unquantified, then
// impact_mid desc, impact_low desc, tier order (compute, fusion, system), rank. The first is the
// report's "Start with".
std::vector<const Finding*> cross_tier_order(const RankedFindings& ranked);

}  // namespace traceprism::findings
