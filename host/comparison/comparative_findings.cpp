#include "comparison/comparative_findings.hpp"

#include <set>
#include <utility>

#include "findings/cause.hpp"

namespace traceprism::comparison {

namespace {

using findings::Finding;

// Compute-efficiency and fusion items: in a comparison they measure trace 1 against trace 2
// (when TraceDiff ran), otherwise against the roofline.
bool measured_by_op(const Finding& f) {
  return (f.tier == findings::Tier::kCompute &&
          (f.cause == "roofline" || f.cause == "unmodeled")) ||
         (f.tier == findings::Tier::kFusion && f.cause == "fusion");
}

// The findings of trace 2 that judge one trace on its own (system, precision, layout, ...).
std::set<std::pair<std::string, std::string>> standalone_keys(
    const std::vector<findings::AnalyzerOutcome>& outcomes) {
  std::set<std::pair<std::string, std::string>> keys;
  for (const findings::AnalyzerOutcome& a : outcomes)
    for (const Finding& f : a.findings)
      if (!measured_by_op(f)) keys.emplace(f.analyzer, f.key);
  return keys;
}

}  // namespace

std::optional<double> cause_time_us(const TraceTimeFigures& figures, const std::string& cause) {
  if (cause == "exposed_comm") return figures.timeline.exposed_comm_us;
  if (cause == "memcpy") return figures.timeline.exposed_memcpy_us;
  for (std::size_t i = 0; i < findings::kIdleCauseCount; ++i) {
    if (findings::kCauses[i] != cause) continue;
    for (const findings::CauseIdle& c : figures.idle_by_cause)
      if (c.cause == cause) return c.idle_us;
    return 0.0;  // an idle cause with no time in this trace
  }
  return std::nullopt;
}

ComparativeOutcomes comparative_outcomes(const std::vector<findings::AnalyzerOutcome>& trace1,
                                         const std::vector<findings::AnalyzerOutcome>& trace2,
                                         const TraceTimeFigures& figures1,
                                         const TraceTimeFigures& figures2,
                                         bool measured_against_trace2) {
  const auto keys2 = standalone_keys(trace2);
  const double material_us = figures1.timeline.total_us * kSystemGapPercent / 100;
  ComparativeOutcomes out;
  for (const findings::AnalyzerOutcome& a : trace1) {
    findings::AnalyzerOutcome kept = a;
    kept.findings.clear();
    for (const Finding& f : a.findings) {
      if (measured_by_op(f)) {
        if (measured_against_trace2) kept.findings.push_back(f);
        continue;
      }
      const auto us1 = cause_time_us(figures1, f.cause);
      const auto us2 = cause_time_us(figures2, f.cause);
      const bool explains_gap = us1 && us2 ? *us1 - *us2 >= material_us && *us1 > *us2
                                           : !keys2.count({f.analyzer, f.key});
      if (explains_gap)
        kept.findings.push_back(f);
      else
        out.in_both.push_back({f.analyzer, f.key, f.title, f.cause, us1, us2});
    }
    out.analyzers.push_back(std::move(kept));
  }
  return out;
}

}  // namespace traceprism::comparison
