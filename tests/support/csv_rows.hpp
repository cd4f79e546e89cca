// Perf-report CSVs (the reference's goldens, or the host's own) read back into the typed forms
// the analyzers now receive: the report's UnifiedPerfTable (served through the ABI 1.5
// op_metrics table, plugins::OpMetricsTable) and the compute engine's OpTable. Cells are read as
// pandas reads them: an empty cell or a missing column is NaN / None.
#pragma once

#include <traceprism/python_literal.hpp>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../../plugins/common/compute_row.hpp"
#include "perf_report/sheet_table.hpp"
#include "perf_report/unified_perf_table.hpp"
#include "support/csv.hpp"

namespace traceprism::testing {

// One CSV row by column name.
class CsvRow {
 public:
  CsvRow(const Csv& csv, std::size_t row) : csv_(csv), row_(row) {}
  bool has(const std::string& column) const { return csv_.column(column) < csv_.header.size(); }
  std::string text(const std::string& column) const {
    const std::size_t c = csv_.column(column);
    const auto& cells = csv_.rows[row_];
    return c < cells.size() ? cells[c] : std::string();
  }
  std::optional<std::string> optional_text(const std::string& column) const {
    std::string t = text(column);
    if (t.empty()) return std::nullopt;
    return t;
  }
  double number(const std::string& column) const {
    const std::string t = text(column);
    if (t.empty()) return std::numeric_limits<double>::quiet_NaN();
    char* end = nullptr;
    const double v = std::strtod(t.c_str(), &end);
    return end == t.c_str() + t.size() ? v : std::numeric_limits<double>::quiet_NaN();
  }

 private:
  const Csv& csv_;
  std::size_t row_;
};

inline double literal_number(const PyValue* v) {
  return v && v->is_number() ? v->number : std::numeric_limits<double>::quiet_NaN();
}

// The standard keys of a kernel_details_summary entry; the others are extra keys.
inline bool is_summary_key(std::string_view key) {
  for (const char* k :
       {"name", "stream", "count", "total_duration_us", "mean_duration_us", "median_duration_us",
        "std_dev_duration_us", "min_duration_us", "max_duration_us"})
    if (key == k) return true;
  return false;
}

// The entries of a kernel_details_summary cell (np.float64(x) reads as x); empty when the text
// is not a list.
inline std::vector<perf_report::KernelSummaryEntry> kernel_summary_of(std::string_view text) {
  std::vector<perf_report::KernelSummaryEntry> out;
  const std::optional<PyValue> list = parse_python_literal(text);
  if (!list || !list->is_sequence()) return out;
  for (const PyValue& item : list->items) {
    if (item.type != PyValue::Type::kDict) continue;
    perf_report::KernelSummaryEntry e;
    if (const PyValue* n = item.get("name"); n && n->is_string()) e.name = n->text;
    if (const PyValue* s = item.get("stream"); s && s->is_number())
      e.stream = static_cast<std::int64_t>(s->number);
    const double count = literal_number(item.get("count"));
    e.count = std::isnan(count) ? 0 : static_cast<std::size_t>(count);
    e.total_duration_us = literal_number(item.get("total_duration_us"));
    e.mean_duration_us = literal_number(item.get("mean_duration_us"));
    e.median_duration_us = literal_number(item.get("median_duration_us"));
    e.std_dev_duration_us = literal_number(item.get("std_dev_duration_us"));
    e.min_duration_us = literal_number(item.get("min_duration_us"));
    e.max_duration_us = literal_number(item.get("max_duration_us"));
    for (std::size_t i = 0; i + 1 < item.items.size(); i += 2)
      if (item.items[i].is_string() && !is_summary_key(item.items[i].text))
        e.extra_keys.emplace_back(item.items[i].text, item.items[i + 1].repr());
    out.push_back(std::move(e));
  }
  return out;
}

// A CSV as a perf-report sheet of text cells (an empty cell is empty).
inline perf_report::SheetTable sheet_table_from_csv(const Csv& csv) {
  perf_report::SheetTable t{csv.header, {}};
  for (const auto& row : csv.rows) {
    std::vector<perf_report::Cell> cells;
    for (const std::string& text : row) cells.push_back(text.empty() ? perf_report::Cell() : text);
    t.rows.push_back(std::move(cells));
  }
  return t;
}

// A unified_perf_summary CSV as the report's typed table (groups and column flags).
inline perf_report::UnifiedPerfTable unified_table_from_csv(const Csv& csv) {
  perf_report::UnifiedPerfTable t;
  t.has_model_columns =
      csv.column("GFLOPS") < csv.header.size() || csv.column("FLOPS/Byte") < csv.header.size();
  t.has_roofline_columns = csv.column("Pct Roofline_mean") < csv.header.size();
  const std::string kt = "Kernel Time (\xC2\xB5s)";
  for (std::size_t r = 0; r < csv.rows.size(); ++r) {
    const CsvRow row(csv, r);
    perf_report::UnifiedGroup& g = t.groups.emplace_back();
    auto arg = [&](const char* column) {
      std::string text = row.text(column);
      return text.empty() ? std::string("None") : text;
    };
    auto stats = [&](const std::string& column) {
      return perf_report::SeriesStats{row.number(column + "_mean"), row.number(column + "_median"),
                                      row.number(column + "_std"), row.number(column + "_min"),
                                      row.number(column + "_max")};
    };
    g.name = row.text("name");
    g.category = row.text("op category");
    g.process_name = row.text("process_name");
    g.process_label = row.text("process_label");
    g.thread_name = row.text("thread_name");
    g.input_dims = arg("Input Dims");
    g.input_type = arg("Input type");
    g.input_strides = arg("Input Strides");
    g.concrete_inputs = arg("Concrete Inputs");
    // A missing count column reads as 0 (casting its NaN would be undefined).
    auto count = [&](const char* column) -> std::uint64_t {
      const double v = row.number(column);
      return std::isfinite(v) && v >= 0 ? static_cast<std::uint64_t>(v) : 0;
    };
    g.ex_uid = count("ex_UID");
    g.operation_count = static_cast<std::size_t>(count("operation_count"));
    g.total_duration_us = row.number("total_duration_us");
    g.duration = {row.number("mean_duration_us"), row.number("duration_us_median"),
                  row.number("std_duration_us"), row.number("duration_us_min"),
                  row.number("duration_us_max")};
    g.gflops = row.number("GFLOPS");
    g.data_moved_mb = row.number("Data Moved (MB)");
    g.flops_per_byte = row.number("FLOPS/Byte");
    g.compute_spec = row.optional_text("Compute Spec");
    g.roofline_bound = row.optional_text("Roofline Bound");
    g.roofline_time_us = row.number("Roofline Time (\xC2\xB5s)_first");
    g.tb_per_s = stats("TB/s");
    g.tflops_per_s = stats("TFLOPS/s");
    g.pct_roofline = stats("Pct Roofline");
    g.kernel_time = stats(kt);
    g.kernel_time_sum_us = row.number(kt + "_sum");
    g.kernel_summary = kernel_summary_of(row.text("kernel_details_summary"));
    g.perf_params = row.optional_text("perf_params");
    g.has_perf_model = row.text("has_perf_model") == "True";
    g.percentage = row.number("Percentage (%)");
    g.cumulative_percentage = row.number("Cumulative Percentage (%)");
  }
  return t;
}

// gpu_timeline's total_time "time ms" cell as a number; 0 when absent.
inline double gpu_total_ms_from_csv(const Csv& timeline) {
  for (std::size_t r = 0; r < timeline.rows.size(); ++r)
    if (CsvRow(timeline, r).text("type") == "total_time")
      return CsvRow(timeline, r).number("time ms");
  return 0;
}

// A unified_perf_summary CSV as the compute engine's rows, with the columns only the
// reference's sheets have (comparative trace-2 columns, entry_point, call_stack_full).
inline plugins::compute::OpTable op_table_from_csv(const Csv& csv) {
  namespace pc = plugins::compute;
  pc::OpTable t;
  auto has = [&](const char* c) { return csv.column(c) < csv.header.size(); };
  t.has_operation_count = has("operation_count");
  t.has_count = has("count");
  t.has_pct_roofline = has("Pct Roofline_mean");
  t.has_tflops = has("TFLOPS/s_mean");
  t.has_perf_params = has("perf_params");
  for (std::size_t r = 0; r < csv.rows.size(); ++r) {
    const CsvRow row(csv, r);
    pc::OpRow& o = t.rows.emplace_back();
    o.name = row.text("name");
    o.op_category = row.text("op category");
    o.input_dims = row.text("Input Dims");
    o.input_type = row.text("Input type");
    o.perf_params = row.text("perf_params");
    o.compute_spec = row.text("Compute Spec");
    o.roofline_bound = row.text("Roofline Bound");
    o.has_perf_model = row.text("has_perf_model") == "True";
    if (const double uid = row.number("ex_UID"); !std::isnan(uid))
      o.ex_uid = static_cast<std::int64_t>(uid);
    o.operation_count = row.number("operation_count");
    o.count = row.number("count");
    o.kernel_time_sum_us = row.number("Kernel Time (\xC2\xB5s)_sum");
    o.kernel_time_mean_us = row.number("Kernel Time (\xC2\xB5s)_mean");
    o.kernel_time_std_us = row.number("Kernel Time (\xC2\xB5s)_std");
    o.flops_per_byte = row.number("FLOPS/Byte");
    o.tflops_per_s_mean = row.number("TFLOPS/s_mean");
    o.tb_per_s_mean = row.number("TB/s_mean");
    o.pct_roofline_mean = row.number("Pct Roofline_mean");
    o.t2_kernel_time_us = row.number("lca_total_kernel_time_trace2_us");
    o.count_trace2 = row.number("lca_count_trace2");
    o.delta_us = row.number("delta_us (trace2 - trace1)");
    o.speedup = row.number("speedup (trace2/trace1)");
    o.entry_point = row.text("entry_point");
    o.call_stack_full = row.text("call_stack_full");
    const std::string kd = row.text("kernel_details_summary");
    if (kd.empty()) continue;
    o.kernels.emplace();
    for (const perf_report::KernelSummaryEntry& e : kernel_summary_of(kd)) {
      pc::KernelEntry& k = o.kernels->emplace_back();
      k.name = e.name;
      k.mean_us = e.mean_duration_us;
      k.extras = e.extra_keys;
    }
  }
  return t;
}

}  // namespace traceprism::testing
