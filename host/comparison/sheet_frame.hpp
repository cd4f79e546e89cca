// A perf-report sheet as a typed table, the way the reference's report comparison
// (compare_perf_reports_pytorch, trace-format spec §14.1) holds it after reading a report back:
// per-cell numbers, booleans, text or NaN, and a pandas dtype per column. The report-level diff
// (report_diff.hpp) merges and subtracts these; writing one back prints what pandas' to_csv
// prints for it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "perf_report/sheet_table.hpp"
#include "text/csv_sheet.hpp"

namespace traceprism::comparison {

struct FrameValue {
  enum class Kind : std::uint8_t { kMissing, kInteger, kReal, kBoolean, kText };
  Kind kind = Kind::kMissing;
  std::int64_t integer = 0;  // integer, and boolean as 0 / 1
  double real = 0;
  std::string text;

  static FrameValue of_integer(std::int64_t v) { return {Kind::kInteger, v, 0, {}}; }
  static FrameValue of_real(double v);  // NaN is missing
  bool missing() const { return kind == Kind::kMissing; }
  bool is_number() const { return kind == Kind::kInteger || kind == Kind::kReal; }
  double number() const { return kind == Kind::kReal ? real : static_cast<double>(integer); }
};

// pandas' dtypes as far as the comparison tells them apart: int64 (never missing), float64
// (NaN allowed), bool (never missing) and object (each value keeps its own kind).
enum class ColumnType : std::uint8_t { kInteger, kReal, kBoolean, kObject };

struct FrameColumn {
  std::string name;
  ColumnType type = ColumnType::kReal;
  std::vector<FrameValue> values;
};

struct SheetFrame {
  std::vector<FrameColumn> columns;
  std::size_t rows = 0;

  // nullptr when absent.
  const FrameColumn* find(std::string_view name) const;
  FrameColumn* find(std::string_view name);
  bool empty() const { return rows == 0; }
};

// One CSV cell read as read_excel reads the reference's xlsx report: empty and pandas' NA words
// are missing, True / False booleans, decimal numbers numbers (integral ones integers, as
// openpyxl hands them over), anything else text.
FrameValue parse_frame_value(std::string_view cell);

// The dtype pandas infers for a column of such values (and converts them to): numbers are int64,
// or float64 when one is fractional or missing; booleans are bool unless one is missing; all
// missing is float64; anything mixed is object.
ColumnType infer_column_type(std::vector<FrameValue>& values);

// What pandas does to a column that gained missing values (unmatched rows of an outer merge):
// int64 becomes float64 and bool becomes object.
void widen_for_missing(FrameColumn& column);

SheetFrame read_sheet_frame(const text::CsvSheet& sheet);
// A sheet built in this run, read as the reference reads it back from its written report: each
// cell's printed text (Cell::display), so 141.0 is the integer 141 as openpyxl hands it over.
SheetFrame read_sheet_frame(const perf_report::SheetTable& sheet);

// The cells pandas' DataFrame.to_csv(index=False) prints: float64 in Python repr, NaN empty.
text::CsvSheet write_sheet_frame(const SheetFrame& frame);

}  // namespace traceprism::comparison
