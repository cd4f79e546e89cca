// Checks shared by the op-model suites: one golden per-category sheet row against a model's
// answer (GFLOPS and MiB within 1e-9 relative, Compute Spec and every param cell equal).
#pragma once

#include <gtest/gtest.h>

#include <traceprism/op_model.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "sheet_rows.hpp"

namespace traceprism::testing {

inline const OpParam* find_param(const OpModelResult& r, const std::string& key) {
  for (const auto& p : r.params)
    if (p.key == key) return &p;
  return nullptr;
}

inline std::string param(const OpModelResult& r, const std::string& key) {
  const OpParam* p = find_param(r, key);
  return p ? p->repr : "<absent>";
}

// How a model's param shows in a reference sheet cell. The writers differ between the reference
// runs: None is an empty cell or "None" (params stringified before writing); a key the op does
// not have, but another row of the sheet has, is an empty cell or "nan"; and pandas upcasts an
// int column to float when another row of that column holds a float (group_norm_backward's
// C / groups), so 16 shows as "16.0".
inline bool param_cell_matches(const OpParam* p, const std::string& cell) {
  if (!p) return cell.empty() || cell == "nan";
  if (p->repr == "None") return cell.empty() || cell == "None";
  if (param_cell(p->repr) == cell) return true;
  const bool is_int =
      !p->repr.empty() && p->repr.find_first_not_of("-0123456789") == std::string::npos;
  return is_int && cell == p->repr + ".0";
}

inline void expect_close(double actual, double expected, const char* what) {
  const double tol = 1e-9 * std::max(std::fabs(actual), std::fabs(expected));
  EXPECT_LE(std::fabs(actual - expected), tol) << what << ": " << actual << " vs " << expected;
}

// The model's forward numbers and params against one sheet row (the caller has checked that
// the model answered OK and set a SCOPED_TRACE naming the row).
inline void expect_matches_sheet_row(const SheetRow& row, const OpModelResult& r) {
  expect_close(r.flops / 1e9, std::stod(row.gflops), "GFLOPS");
  if (row.data_moved_mb.empty())
    EXPECT_LT(r.bytes, 0) << "the reference has no bytes";
  else
    expect_close(r.bytes / 1048576.0, std::stod(row.data_moved_mb), "Data Moved (MB)");
  EXPECT_EQ(r.compute_spec, row.compute_spec);
  for (const auto& [key, cell] : row.params)
    EXPECT_TRUE(param_cell_matches(find_param(r, key), cell))
        << "param " << key << ": model " << param(r, key) << ", sheet '" << cell << "'";
  for (const auto& p : r.params) {
    bool has_column = false;
    for (const auto& column : row.params) has_column |= column.first == p.key;
    EXPECT_TRUE(has_column) << "the sheet has no column for param " << p.key;
  }
}

// Every golden sheet named `file` under ../shared/traces: the reference perf reports
// (`*_perf_report_csvs`, the agent goldens' `perf_report_csvs`) and the inference runs'
// `perf_csvs`, sorted.
inline std::vector<std::filesystem::path> all_golden_sheets(const std::string& file) {
  std::vector<std::filesystem::path> out;
  const auto root = shared_traces();
  if (!std::filesystem::is_directory(root)) return out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
    const auto parent = e.path().parent_path().filename().string();
    if (e.is_regular_file() && e.path().filename() == file && parent.size() >= 4 &&
        parent.compare(parent.size() - 4, 4, "csvs") == 0)
      out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace traceprism::testing
