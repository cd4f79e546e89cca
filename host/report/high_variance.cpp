#include "report/high_variance.hpp"

#include <cmath>

namespace traceprism::report {
namespace {

// Python's round(x, n) on doubles: round half to even on the decimal value.
double round_to(double v, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::nearbyint(v * scale) / scale;
}

}  // namespace

std::vector<HighVarianceOp> high_variance_ops(const perf_report::UnifiedPerfTable& unified,
                                              double e2e_ms) {
  std::vector<HighVarianceOp> out;
  for (const perf_report::UnifiedGroup& g : unified.groups) {
    const double calls = static_cast<double>(g.operation_count);
    const double time_ms = (std::isnan(g.kernel_time_sum_us) ? 0 : g.kernel_time_sum_us) / 1000;
    // The reference counts an op as its whole E2E when E2E is unknown.
    const double e2e_share = e2e_ms > 0 ? time_ms / e2e_ms : 1.0;
    if (calls <= 10 || e2e_share < 0.05) continue;
    const double s = g.kernel_time.std, m = g.kernel_time.mean;
    if (std::isnan(s) || std::isnan(m) || m <= 0) continue;
    const double cov = round_to(s / m, 3);
    if (cov <= 1.0) continue;
    out.push_back({g.name, g.category, cov, round_to(time_ms, 3)});
  }
  return out;
}

}  // namespace traceprism::report
