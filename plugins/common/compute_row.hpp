// The rows of the unified perf summary as the compute engine reads them: typed, one OpRow per
// row of the sheet, with what pandas would read from the CSV cell (NaN for an empty cell or a
// missing column, "" for None). The analyzers fill it from the host's op metrics (ABI 1.5,
// compute_analyzer.cpp); tests fill it from the reference's golden CSVs, which also carry the
// comparative (trace 2) and call-stack columns the host's sheet does not have.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace traceprism::plugins::compute {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// One entry of a row's kernel details (kernel_details_summary).
struct KernelEntry {
  std::string name;
  double mean_us = kNaN;  // mean_duration_us
  // Further keys of the entry ("call_stack"), values as Python repr.
  std::vector<std::pair<std::string, std::string>> extras;
};

struct OpRow {
  std::string name, op_category;
  std::string input_dims, input_type;  // as the sheet prints them; "" for None
  std::string perf_params;             // Python dict repr; "" for None
  std::string compute_spec;            // "" when none
  std::string roofline_bound;          // "COMPUTE_BOUND", "MEMORY_BOUND" or ""
  bool has_perf_model = false;
  std::optional<std::int64_t> ex_uid;
  double operation_count = kNaN;
  double count = kNaN;  // a comparative sheet's `count` column (OpTable::has_count)
  double kernel_time_sum_us = kNaN, kernel_time_mean_us = kNaN, kernel_time_std_us = kNaN;
  double flops_per_byte = kNaN, tflops_per_s_mean = kNaN, tb_per_s_mean = kNaN;
  double pct_roofline_mean = kNaN;
  // Comparative scope (trace 2 columns of the reference's diff report).
  double t2_kernel_time_us = kNaN, count_trace2 = kNaN, delta_us = kNaN, speedup = kNaN;
  std::string entry_point, call_stack_full;  // reference sheets only; "" otherwise
  // The kernel details; nullopt when the cell is empty.
  std::optional<std::vector<KernelEntry>> kernels;

  // Some kernel name or extra value contains `part` (where the reference searches the
  // kernel_details_summary text); `lowercase` compares lower-cased text.
  bool kernels_mention(std::string_view part, bool lowercase = false) const;
  // The kernel names in order (the cell's 'name' values).
  std::vector<std::string> kernel_names() const;
};

// The sheet: its rows and which of the optional columns it has.
struct OpTable {
  std::vector<OpRow> rows;
  bool has_operation_count = true;
  bool has_count = false;
  bool has_pct_roofline = false;  // "Pct Roofline_mean"
  bool has_tflops = false;        // "TFLOPS/s_mean"
  bool has_perf_params = true;
};

inline std::optional<double> known(double v) {
  if (std::isnan(v)) return std::nullopt;
  return v;
}

}  // namespace traceprism::plugins::compute
