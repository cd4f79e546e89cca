#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace traceprism::text {

// A report sheet: column names and rows of cells already formatted the way pandas prints
// them (see the *_cell helpers). An empty cell is pandas' NaN / None.
struct CsvSheet {
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;

  // pandas DataFrame.to_csv(index=False): a header line, one line per row, minimal quoting,
  // "\n" line ends. A frame without columns writes a lone "\n" (pandas' 1-byte file).
  std::string to_csv() const;
  std::size_t column_index(const std::string& name) const;  // columns.size() when absent
};

// A float cell: Python repr digits ("0.19759814453125", "7.2192e-05", "100.0"); NaN is empty.
std::string float_cell(double value);
std::string float_cell(const std::optional<double>& value);
std::string int_cell(std::int64_t value);
// An optional text cell: None is empty.
std::string text_cell(const std::optional<std::string>& value);

}  // namespace traceprism::text
