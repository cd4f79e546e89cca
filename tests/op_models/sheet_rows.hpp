// Rows of the reference's per-category perf-report sheets (GEMM.csv, SDPA_fwd.csv, ...) turned
// into op calls, so each op model is checked on every shape the real traces hold: the inputs
// are the sheet's `Input Dims_first / Input type_first / Input Strides_first /
// Concrete Inputs_first` columns (Python list reprs, converted back to the trace's JSON) and the
// kernel names of `kernel_details__summarize_kernel_stats`; the expected values are the
// `GFLOPS_first`, `Data Moved (MB)_first`, `Compute Spec` and `param: *` columns.
#pragma once

#include <traceprism/op_model.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/csv.hpp"
#include "support/shared_traces.hpp"

namespace traceprism::testing {

struct SheetRow {
  std::filesystem::path sheet;  // the CSV it came from
  std::size_t line = 0;         // 1-based data row
  std::string name;
  OpCall call;
  std::string gflops, data_moved_mb, compute_spec;          // as printed ("" = NaN / None)
  std::vector<std::pair<std::string, std::string>> params;  // "param: X" columns: key, cell
};

// Python literal (lists/tuples of ints, strings, None) -> JSON text: quotes to ", () to [],
// None to null. Good for the four args columns, whose strings hold no quotes.
inline std::string python_literal_to_json(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\'') {
      out += '"';
      for (++i; i < text.size() && text[i] != '\''; ++i) {
        if (text[i] == '"' || text[i] == '\\') out += '\\';
        out += text[i];
      }
      out += '"';
    } else if (c == '(') {
      out += '[';
    } else if (c == ')') {
      if (!out.empty() && out.back() == ',') out.pop_back();  // (1,) -> [1]
      out += ']';
    } else if (text.compare(i, 4, "None") == 0) {
      out += "null";
      i += 3;
    } else if (c != ' ') {
      out += c;
    }
  }
  return out;
}

// Kernel names in a `kernel_details__summarize_kernel_stats` cell, in the cell's order.
inline std::vector<std::string> kernel_names_of(const std::string& cell) {
  std::vector<std::string> names;
  const std::string key = "'name': ";
  for (std::size_t p = cell.find(key); p != std::string::npos; p = cell.find(key, p + 1)) {
    std::size_t start = p + key.size();
    const char quote = cell[start];
    std::size_t end = cell.find(std::string(1, quote) + ", ", start + 1);
    if (end == std::string::npos) break;
    names.push_back(cell.substr(start + 1, end - start - 1));
  }
  return names;
}

// Every golden sheet named `sheet_file` (e.g. "GEMM.csv") under ../shared/traces/tracelens.
inline std::vector<std::filesystem::path> golden_sheets(const std::string& sheet_file) {
  std::vector<std::filesystem::path> out;
  const auto root = shared_traces() / "tracelens";
  if (!std::filesystem::is_directory(root)) return out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root))
    if (e.is_regular_file() && e.path().filename() == sheet_file &&
        e.path().parent_path().filename().string().find("perf_report_csvs") != std::string::npos)
      out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

inline std::vector<SheetRow> read_sheet_rows(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buf;
  buf << in.rdbuf();
  Csv csv = parse_csv(buf.str());
  auto col = [&](const std::string& name) { return csv.column(name); };
  auto cell = [&](const std::vector<std::string>& row, std::size_t c) -> std::string {
    return c < row.size() ? row[c] : std::string();
  };
  auto optional_json = [&](const std::vector<std::string>& row,
                           std::size_t c) -> std::optional<std::string> {
    std::string v = cell(row, c);
    if (v.empty() || v == "None") return std::nullopt;
    return python_literal_to_json(v);
  };
  std::vector<SheetRow> rows;
  std::size_t line = 0;
  for (const auto& row : csv.rows) {
    ++line;
    SheetRow r;
    r.sheet = path;
    r.line = line;
    r.name = cell(row, col("name"));
    auto dims = optional_json(row, col("Input Dims_first"));
    auto types = optional_json(row, col("Input type_first"));
    auto strides = optional_json(row, col("Input Strides_first"));
    auto concrete = optional_json(row, col("Concrete Inputs_first"));
    auto view = [](const std::optional<std::string>& s) -> std::optional<std::string_view> {
      if (!s) return std::nullopt;
      return std::string_view(*s);
    };
    r.call = OpCall(r.name, view(dims), view(types), view(strides), view(concrete),
                    kernel_names_of(cell(row, col("kernel_details__summarize_kernel_stats"))));
    r.gflops = cell(row, col("GFLOPS_first"));
    r.data_moved_mb = cell(row, col("Data Moved (MB)_first"));
    r.compute_spec = cell(row, col("Compute Spec"));
    for (std::size_t c = 0; c < csv.header.size(); ++c)
      if (csv.header[c].rfind("param: ", 0) == 0)
        r.params.emplace_back(csv.header[c].substr(7), cell(row, c));
    rows.push_back(std::move(r));
  }
  return rows;
}

// How a param repr shows in a sheet cell: str() of the value (a top-level string loses its
// quotes) and None as an empty cell.
inline std::string param_cell(const std::string& repr) {
  if (repr == "None") return "";
  if (repr.size() >= 2 && (repr.front() == '\'' || repr.front() == '"')) {
    return repr.substr(1, repr.size() - 2);
  }
  return repr;
}

}  // namespace traceprism::testing
