#include "comparison/sheet_frame.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <optional>

#include "text/python_format.hpp"

namespace traceprism::comparison {

namespace {

// pandas 2's default na_values (STR_NA_VALUES), which read_excel applies to every cell.
constexpr std::array<std::string_view, 19> kMissingWords = {
    "",     "#N/A", "#N/A N/A", "#NA",  "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
    "<NA>", "N/A",  "NA",       "NULL", "NaN",     "None",     "n/a",  "nan",  "null"};

bool is_missing_word(std::string_view cell) {
  for (std::string_view word : kMissingWords)
    if (cell == word) return true;
  return false;
}

// A decimal number as Python's float() and int() read it from a report (no hex, no words).
bool looks_decimal(std::string_view cell) {
  bool digit = false;
  for (char c : cell) {
    if (c >= '0' && c <= '9')
      digit = true;
    else if (c != '+' && c != '-' && c != '.' && c != 'e' && c != 'E')
      return false;
  }
  return digit;
}

std::optional<FrameValue> parse_number(std::string_view cell) {
  if (!looks_decimal(cell)) return std::nullopt;
  std::string_view digits = cell.front() == '+' ? cell.substr(1) : cell;
  std::int64_t integer = 0;
  auto [int_end, int_ec] = std::from_chars(digits.data(), digits.data() + digits.size(), integer);
  if (int_ec == std::errc() && int_end == digits.data() + digits.size())
    return FrameValue::of_integer(integer);
  double real = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), real);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  // openpyxl returns a float cell, and pandas' reader turns an integral one into an int.
  constexpr double kExactIntegers = 9007199254740992.0;  // 2^53
  if (std::isfinite(real) && real == std::trunc(real) && std::fabs(real) < kExactIntegers)
    return FrameValue::of_integer(static_cast<std::int64_t>(real));
  return FrameValue::of_real(real);
}

void append_value(std::string& out, const FrameValue& v, ColumnType type) {
  switch (v.kind) {
    case FrameValue::Kind::kMissing:
      return;
    case FrameValue::Kind::kInteger:
      out += type == ColumnType::kReal ? text::python_float_repr(static_cast<double>(v.integer))
                                       : std::to_string(v.integer);
      return;
    case FrameValue::Kind::kReal:
      out += text::python_float_repr(v.real);
      return;
    case FrameValue::Kind::kBoolean:
      out += v.integer ? "True" : "False";
      return;
    case FrameValue::Kind::kText:
      out += v.text;
      return;
  }
}

}  // namespace

FrameValue FrameValue::of_real(double v) {
  if (std::isnan(v)) return {};
  return {Kind::kReal, 0, v, {}};
}

const FrameColumn* SheetFrame::find(std::string_view name) const {
  for (const FrameColumn& c : columns)
    if (c.name == name) return &c;
  return nullptr;
}

FrameColumn* SheetFrame::find(std::string_view name) {
  for (FrameColumn& c : columns)
    if (c.name == name) return &c;
  return nullptr;
}

FrameValue parse_frame_value(std::string_view cell) {
  if (is_missing_word(cell)) return {};
  if (cell == "True" || cell == "TRUE" || cell == "true")
    return {FrameValue::Kind::kBoolean, 1, 0, {}};
  if (cell == "False" || cell == "FALSE" || cell == "false")
    return {FrameValue::Kind::kBoolean, 0, 0, {}};
  if (std::optional<FrameValue> number = parse_number(cell)) return *number;
  return {FrameValue::Kind::kText, 0, 0, std::string(cell)};
}

ColumnType infer_column_type(std::vector<FrameValue>& values) {
  std::size_t present = 0;
  bool any_real = false, all_numbers = true, all_booleans = true;
  for (const FrameValue& v : values) {
    if (v.missing()) continue;
    ++present;
    any_real |= v.kind == FrameValue::Kind::kReal;
    all_numbers &= v.is_number();
    all_booleans &= v.kind == FrameValue::Kind::kBoolean;
  }
  const bool any_missing = present < values.size();
  if (present == 0) return ColumnType::kReal;  // all NaN, or no rows: float64
  if (all_numbers) {
    if (!any_missing && !any_real) return ColumnType::kInteger;
    for (FrameValue& v : values)
      if (v.kind == FrameValue::Kind::kInteger) v = FrameValue::of_real(v.number());
    return ColumnType::kReal;
  }
  if (all_booleans && !any_missing) return ColumnType::kBoolean;
  return ColumnType::kObject;
}

void widen_for_missing(FrameColumn& column) {
  bool any_missing = false;
  for (const FrameValue& v : column.values) any_missing |= v.missing();
  if (!any_missing) return;
  if (column.type == ColumnType::kInteger) {
    for (FrameValue& v : column.values)
      if (!v.missing()) v = FrameValue::of_real(v.number());
    column.type = ColumnType::kReal;
  } else if (column.type == ColumnType::kBoolean) {
    column.type = ColumnType::kObject;
  }
}

namespace {

// Each cell's printed text read back; `text(row, c)` is empty past a short row's end.
template <typename Row, typename CellText>
SheetFrame frame_of(const std::vector<std::string>& columns, const std::vector<Row>& rows,
                    CellText text) {
  SheetFrame frame;
  frame.rows = rows.size();
  frame.columns.resize(columns.size());
  for (std::size_t c = 0; c < columns.size(); ++c) {
    FrameColumn& column = frame.columns[c];
    column.name = columns[c];
    column.values.reserve(frame.rows);
    for (const Row& row : rows) column.values.push_back(parse_frame_value(text(row, c)));
    column.type = infer_column_type(column.values);
  }
  return frame;
}

}  // namespace

SheetFrame read_sheet_frame(const text::CsvSheet& sheet) {
  return frame_of(sheet.columns, sheet.rows,
                  [](const std::vector<std::string>& row, std::size_t c) -> std::string_view {
                    return c < row.size() ? std::string_view(row[c]) : std::string_view();
                  });
}

SheetFrame read_sheet_frame(const perf_report::SheetTable& sheet) {
  return frame_of(sheet.columns, sheet.rows,
                  [](const std::vector<perf_report::Cell>& row, std::size_t c) {
                    return c < row.size() ? row[c].display() : std::string();
                  });
}

text::CsvSheet write_sheet_frame(const SheetFrame& frame) {
  text::CsvSheet sheet;
  for (const FrameColumn& c : frame.columns) sheet.columns.push_back(c.name);
  sheet.rows.assign(frame.rows, std::vector<std::string>(frame.columns.size()));
  for (std::size_t c = 0; c < frame.columns.size(); ++c) {
    const FrameColumn& column = frame.columns[c];
    for (std::size_t r = 0; r < frame.rows; ++r)
      append_value(sheet.rows[r][c], column.values[r], column.type);
  }
  return sheet;
}

}  // namespace traceprism::comparison
