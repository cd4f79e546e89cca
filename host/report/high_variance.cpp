#include "report/high_variance.hpp"

#include <cmath>
#include <cstdlib>

#include "text/csv_parse.hpp"

namespace traceprism::report {
namespace {

// Python's round(x, n) on doubles: round half to even on the decimal value.
double round_to(double v, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::nearbyint(v * scale) / scale;
}

std::optional<double> number(const std::vector<std::string>& row, std::size_t c) {
  if (c >= row.size() || row[c].empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(row[c].c_str(), &end);
  if (end == row[c].c_str() || std::isnan(v)) return std::nullopt;
  return v;
}

}  // namespace

std::vector<HighVarianceOp> high_variance_ops(std::string_view csv, double e2e_ms) {
  const text::CsvSheet t = text::parse_csv_sheet(csv);
  const std::size_t name = t.column_index("name"), category = t.column_index("op category"),
                    count = t.column_index("count") < t.columns.size()
                                ? t.column_index("count")
                                : t.column_index("operation_count"),
                    sum = t.column_index("Kernel Time (\xC2\xB5s)_sum"),
                    mean = t.column_index("Kernel Time (\xC2\xB5s)_mean"),
                    stdev = t.column_index("Kernel Time (\xC2\xB5s)_std");
  std::vector<HighVarianceOp> out;
  for (const auto& row : t.rows) {
    const double calls = number(row, count).value_or(1);
    const double time_ms = number(row, sum).value_or(0) / 1000;
    // The reference counts an op as its whole E2E when E2E is unknown.
    const double e2e_share = e2e_ms > 0 ? time_ms / e2e_ms : 1.0;
    if (calls <= 10 || e2e_share < 0.05) continue;
    const auto s = number(row, stdev), m = number(row, mean);
    if (!s || !m || *m <= 0) continue;
    const double cov = round_to(*s / *m, 3);
    if (cov <= 1.0) continue;
    out.push_back({name < row.size() ? row[name] : std::string(),
                   category < row.size() ? row[category] : std::string(), cov,
                   round_to(time_ms, 3)});
  }
  return out;
}

}  // namespace traceprism::report
