#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace traceprism::findings {

enum class Tier : std::int32_t { kCompute = 1, kFusion = 2, kSystem = 3 };
enum class Severity : std::int32_t { kInfo = 0, kWarning = 1, kCritical = 2 };
enum class ImpactKind : std::int32_t { kNotQuantifiable = 0, kQuantified = 1, kHeuristic = 2 };

std::string_view tier_name(Tier t);          // "compute", "fusion", "system"
std::string_view severity_name(Severity s);  // "info", "warning", "critical"
bool parse_severity(std::string_view text, Severity& out);

struct DataTable {
  std::string title;
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
};

// One finding as the host keeps it: a deep copy of what a plugin emitted, stamped with its
// analyzer and plugin. Writers render findings; they never decide anything.
struct Finding {
  std::string analyzer;
  std::string plugin;
  std::string plugin_version;
  Tier tier = Tier::kSystem;
  Severity severity = Severity::kWarning;
  ImpactKind impact_kind = ImpactKind::kNotQuantifiable;
  std::string category, key, title, insight, action, identification, reasoning, resolution, library;
  std::string cause;  // a key of findings/cause.hpp, or empty (findings.json null)
  double impact_low = 0, impact_mid = 0, impact_high = 0;
  double share_percent = -1;
  double confidence = -1;
  std::vector<std::uint32_t> rows;
  // Every GPU event whose time the finding is about, ascending (ABI 1.7; empty from older
  // plugins and findings not about kernels): what diagnosis.md §1.5 deduplicates by.
  std::vector<std::uint32_t> kernels;
  std::int64_t first_evidence_ts_ns = 0;  // ordering tie-break; 0 when no evidence
  std::vector<std::pair<std::string, double>> metrics;
  std::vector<DataTable> tables;
  // Set by the ranker.
  int rank = 0;  // P-number within the tier, 1-based
  // diagnosis.md §1.5 (findings/shared_kernels.hpp): kernel time this finding shares with more
  // specific ones, by the finding that reports it; the finding it repeats, when folded.
  struct KernelTimeElsewhere {
    std::string analyzer, key;
    double us = 0;
    std::string finding_id;  // the owner's "compute-p1" once ranked; empty when it was dropped
  };
  std::vector<KernelTimeElsewhere> elsewhere;
  double kernel_us = 0;  // its kernels' time before sharing (0: no kernel rows)
  // Impact and share as the analyzer emitted them, before they shrank (with `elsewhere`).
  double emitted_low = 0, emitted_mid = 0, emitted_high = 0, emitted_share = -1;
  std::string folded_into_analyzer, folded_into_key;
  std::string folded_into_id;  // the owner's finding id, for a folded finding
};

// What a quantified finding ranks by (diagnosis.md §6.6): an estimate without a perf model
// (heuristic impact) by its low bound, a modelled one by its mid value.
inline double ranking_impact(const Finding& f) {
  return f.impact_kind == ImpactKind::kHeuristic ? f.impact_low : f.impact_mid;
}

enum class AnalyzerStatus { kOk, kSkipped, kFailed, kDisabled };
std::string_view analyzer_status_name(AnalyzerStatus s);  // "ok", "skipped", "failed", "disabled"

struct LogLine {
  int level = 0;
  std::string message;
};

// What one analyzer produced in one run.
struct AnalyzerOutcome {
  std::string name;
  std::string plugin;
  std::string plugin_version;
  std::string summary;
  AnalyzerStatus status = AnalyzerStatus::kOk;
  std::string error;  // failed: why; skipped/disabled: the reason
  std::vector<Finding> findings;
  std::vector<std::pair<std::string, double>> figures;
  std::vector<LogLine> log;
  std::size_t refused_findings = 0;  // emits the host rejected as malformed
  // Tables published for dependent analyzers (ABI 1.2 publish); title = the product name.
  std::vector<DataTable> products;
};

}  // namespace traceprism::findings
