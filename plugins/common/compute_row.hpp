// One row of a perf-report sheet, read the way pandas reads the CSV cell: an empty cell or a
// missing column is NaN (nullopt here), "True"/"False" are booleans.
#pragma once

#include <traceprism/sdk.hpp>

#include <cmath>
#include <optional>
#include <string_view>

namespace traceprism::compute {

class RowView {
 public:
  RowView(const Sheet& sheet, std::size_t row) : sheet_(sheet), row_(row) {}
  std::size_t row() const { return row_; }
  bool has(std::string_view column) const { return sheet_.has(column); }
  std::string_view text(std::string_view column) const { return sheet_.cell(row_, column); }
  std::optional<double> number(std::string_view column) const {
    const double v = sheet_.number(row_, column);
    if (std::isnan(v)) return std::nullopt;
    return v;
  }
  bool flag(std::string_view column) const { return text(column) == "True"; }

 private:
  const Sheet& sheet_;
  std::size_t row_;
};

}  // namespace traceprism::compute
