#include "findings/finding.hpp"

namespace traceprism::findings {

std::string_view tier_name(Tier t) {
  switch (t) {
    case Tier::kCompute:
      return "compute";
    case Tier::kFusion:
      return "fusion";
    case Tier::kSystem:
      return "system";
  }
  return "system";
}

std::string_view severity_name(Severity s) {
  switch (s) {
    case Severity::kInfo:
      return "info";
    case Severity::kWarning:
      return "warning";
    case Severity::kCritical:
      return "critical";
  }
  return "warning";
}

bool parse_severity(std::string_view text, Severity& out) {
  for (Severity s : {Severity::kInfo, Severity::kWarning, Severity::kCritical})
    if (text == severity_name(s)) {
      out = s;
      return true;
    }
  return false;
}

std::string_view analyzer_status_name(AnalyzerStatus s) {
  switch (s) {
    case AnalyzerStatus::kOk:
      return "ok";
    case AnalyzerStatus::kSkipped:
      return "skipped";
    case AnalyzerStatus::kFailed:
      return "failed";
    case AnalyzerStatus::kDisabled:
      return "disabled";
  }
  return "failed";
}

}  // namespace traceprism::findings
