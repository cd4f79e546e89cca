#include "report/report_writers.hpp"

namespace traceprism::report {

std::string model_label(const AnalysisReport& r) {
  return r.model.model.empty() || r.model.model == findings::kCannotInfer ? "Workload"
                                                                          : r.model.model;
}

std::string platform_label(const AnalysisReport& r) {
  if (!r.platform.name.empty()) return r.platform.name;
  if (!r.platform.device_name.empty()) return r.platform.device_name;
  return "Unknown platform";
}

}  // namespace traceprism::report
