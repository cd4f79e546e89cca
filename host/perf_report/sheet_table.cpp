#include "perf_report/sheet_table.hpp"

#include <cmath>

#include <traceprism/python_text.hpp>

namespace traceprism::perf_report {

Cell Cell::integer(std::int64_t value) {
  Cell c;
  c.value_ = value;
  return c;
}

Cell Cell::real(double value) {
  Cell c;
  if (!std::isnan(value)) c.value_ = value;
  return c;
}

std::string Cell::display() const {
  switch (kind()) {
    case Kind::kEmpty:
      return {};
    case Kind::kInteger:
      return std::to_string(as_integer());
    case Kind::kReal:
      return py::float_repr(as_real());
    case Kind::kText:
      return as_text();
  }
  return {};
}

Cell float_cell(double value) {
  return Cell::real(value);
}

Cell float_cell(const std::optional<double>& value) {
  return value ? Cell::real(*value) : Cell();
}

Cell int_cell(std::int64_t value) {
  return Cell::integer(value);
}

Cell text_cell(const std::optional<std::string>& value) {
  return value ? Cell(*value) : Cell();
}

std::size_t SheetTable::column_index(const std::string& name) const {
  for (std::size_t i = 0; i < columns.size(); ++i)
    if (columns[i] == name) return i;
  return columns.size();
}

}  // namespace traceprism::perf_report
