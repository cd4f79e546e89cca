#include "text/csv_sheet.hpp"

#include <cmath>

#include "text/python_format.hpp"

namespace traceprism::text {

namespace {

void append_line(std::string& out, const std::vector<std::string>& cells) {
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (i) out += ',';
    out += csv_field(cells[i]);
  }
  out += '\n';
}

}  // namespace

std::string CsvSheet::to_csv() const {
  if (columns.empty()) return "\n";
  std::string out;
  append_line(out, columns);
  for (const auto& row : rows) append_line(out, row);
  return out;
}

std::size_t CsvSheet::column_index(const std::string& name) const {
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (columns[i] == name) return i;
  }
  return columns.size();
}

std::string float_cell(double value) {
  return std::isnan(value) ? std::string() : python_float_repr(value);
}

std::string float_cell(const std::optional<double>& value) {
  return value ? float_cell(*value) : std::string();
}

std::string int_cell(std::int64_t value) {
  return std::to_string(value);
}

std::string text_cell(const std::optional<std::string>& value) {
  return value ? *value : std::string();
}

}  // namespace traceprism::text
