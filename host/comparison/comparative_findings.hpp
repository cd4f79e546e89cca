// Which of trace 1's findings a comparative report keeps (issue 16, analysis-rules.md §11).
//
// The system tier runs on trace 1 only, as the reference does. A finding that judges trace 1 on
// its own (system, and the compute tier's precision, layout and recompute items) is kept when it
// explains part of the gap: the time of its cause (idle of that host cause, exposed
// communication, exposed copies) exceeds trace 2's by at least kSystemGapPercent of trace 1's
// window; a finding without a comparable cause is kept unless trace 2 has the same finding
// (analyzer and key). The others are "in both" and listed, not ranked: a problem both runs have
// does not explain why trace 1 is slower (a departure from the reference,
// docs/compatibility.md).
//
// Compute-efficiency and fusion findings are kept when TraceDiff matched trace 1's ops to trace
// 2's (`measured_against_trace2`): the analyzers then measured each op's speed, and each kernel
// sequence's count, against trace 2's (analysis-rules.md §11, §9.2). Without TraceDiff they
// judged trace 1 against the roofline only, which does not explain the gap, and are dropped.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "comparison/time_breakdown.hpp"
#include "findings/finding.hpp"

namespace traceprism::comparison {

inline constexpr double kSystemGapPercent = 2.0;  // the reference's MIN_IMPACT_SCORE

struct FindingInBoth {
  std::string analyzer, key, title, cause;
  // The cause's time in each trace; nullopt when the cause is not measured in both.
  std::optional<double> us_trace1, us_trace2;
};

struct ComparativeOutcomes {
  std::vector<findings::AnalyzerOutcome> analyzers;  // trace 1's, with the kept findings only
  std::vector<FindingInBoth> in_both;                // in trace 1's analyzer order
};

// The time a cause holds in a trace (idle causes, "exposed_comm", "memcpy"); nullopt for the
// other causes and for no cause.
std::optional<double> cause_time_us(const TraceTimeFigures& figures, const std::string& cause);

ComparativeOutcomes comparative_outcomes(const std::vector<findings::AnalyzerOutcome>& trace1,
                                         const std::vector<findings::AnalyzerOutcome>& trace2,
                                         const TraceTimeFigures& figures1,
                                         const TraceTimeFigures& figures2,
                                         bool measured_against_trace2);

}  // namespace traceprism::comparison
