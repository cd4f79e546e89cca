// A perf-report sheet as typed values: what the reference's pandas DataFrame holds before
// to_csv. The sheet builders (trace-format spec §8) fill these; report/sheet_csv.hpp is the one
// place that turns a sheet into CSV text, and the ABI 1.4 `perf_sheet` API hands out each cell's
// display text.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace traceprism::perf_report {

// One cell: pandas' NaN / None (empty), an int64, a float64 or text. Tuples, lists and dicts
// are text in their Python repr ("((512,), (141, 512))", "['GEMM']"), as the reference's object
// columns hold them. A text cell converts implicitly from a string, so rows read like the sheet.
class Cell {
 public:
  enum class Kind : std::uint8_t { kEmpty, kInteger, kReal, kText };

  Cell() = default;
  Cell(std::string text) : value_(std::move(text)) {}    // NOLINT(google-explicit-constructor)
  Cell(const char* text) : value_(std::string(text)) {}  // NOLINT(google-explicit-constructor)
  explicit Cell(std::string_view text) : value_(std::string(text)) {}

  static Cell integer(std::int64_t value);
  static Cell real(double value);  // NaN is empty, as pandas prints it

  Kind kind() const { return static_cast<Kind>(value_.index()); }
  bool empty() const { return kind() == Kind::kEmpty; }
  std::int64_t as_integer() const { return std::get<std::int64_t>(value_); }
  double as_real() const { return std::get<double>(value_); }
  const std::string& as_text() const { return std::get<std::string>(value_); }

  // The text pandas' to_csv prints for the value: empty, decimal integers, floats in Python
  // repr ("0.19759814453125", "7.2192e-05", "100.0"), text as it is (unquoted).
  std::string display() const;

  bool operator==(const Cell&) const = default;

 private:
  std::variant<std::monostate, std::int64_t, double, std::string> value_;
};

// The cell helpers the sheet builders use: NaN and nullopt are empty.
Cell float_cell(double value);
Cell float_cell(const std::optional<double>& value);
Cell int_cell(std::int64_t value);
Cell text_cell(const std::optional<std::string>& value);

struct SheetTable {
  std::vector<std::string> columns;
  std::vector<std::vector<Cell>> rows;

  std::size_t column_index(const std::string& name) const;  // columns.size() when absent
};

// A sheet of the perf report: its file name without ".csv" and its table.
struct PerfSheet {
  std::string name;
  SheetTable table;
};

}  // namespace traceprism::perf_report
