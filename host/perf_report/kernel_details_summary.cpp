#include "perf_report/kernel_details_summary.hpp"

#include <algorithm>
#include <cmath>

#include "perf_report/numpy_stats.hpp"
#include "text/python_format.hpp"
#include "text/python_repr.hpp"

namespace traceprism::perf_report {

namespace {

constexpr std::size_t kTruncatedNameLength = 64;

KernelSummaryEntry summarize_position(const KernelDetail& first, std::span<const double> durs) {
  KernelSummaryEntry entry;
  entry.name = std::string(first.name);
  entry.stream = first.stream;
  entry.call_stack = first.call_stack;
  for (const auto& key : first.extra_keys) {
    if (key.first != "gpu_op_uid") entry.extra_keys.push_back(key);
  }
  entry.count = durs.size();
  entry.total_duration_us = numpy_sum(durs);
  entry.mean_duration_us = numpy_mean(durs);
  entry.median_duration_us = numpy_median(durs);
  entry.std_dev_duration_us = numpy_std(durs);
  entry.min_duration_us = numpy_min(durs);
  entry.max_duration_us = numpy_max(durs);
  return entry;
}

std::string stream_repr(const std::optional<std::int64_t>& stream) {
  return stream ? std::to_string(*stream) : "None";
}

// Python's name[:64] counts code points, not bytes.
std::string truncated_name(std::string_view name) {
  std::size_t code_points = 0, i = 0;
  for (; i < name.size(); ++i) {
    const bool starts_code_point = (static_cast<unsigned char>(name[i]) & 0xc0) != 0x80;
    if (starts_code_point && code_points++ == kTruncatedNameLength) break;
  }
  return i < name.size() ? std::string(name.substr(0, i)) + "..." : std::string(name);
}

// round(np.float64, 2): numpy multiplies by 100, rounds half to even, divides by 100.
double numpy_round_2(double value) {
  return std::nearbyint(value * 100.0) / 100.0;
}

}  // namespace

void KernelSummaryBuilder::add(std::span<const KernelDetail> row) {
  if (template_.empty()) {
    if (row.empty()) return;
    template_.assign(row.begin(), row.end());
    durations_.resize(row.size());
  }
  // Rows of another length are skipped (the reference warns); names are not checked.
  if (row.size() != template_.size()) return;
  for (std::size_t i = 0; i < row.size(); ++i) durations_[i].push_back(row[i].dur_us);
}

std::vector<KernelSummaryEntry> KernelSummaryBuilder::finish() const {
  std::vector<KernelSummaryEntry> summary;
  summary.reserve(template_.size());
  for (std::size_t i = 0; i < template_.size(); ++i)
    summary.push_back(summarize_position(template_[i], durations_[i]));
  std::stable_sort(summary.begin(), summary.end(), [](const auto& a, const auto& b) {
    if (a.total_duration_us != b.total_duration_us)
      return a.total_duration_us < b.total_duration_us;
    return a.name < b.name;
  });
  return summary;
}

std::vector<KernelSummaryEntry> summarize_kernel_details(
    std::span<const KernelDetails* const> rows) {
  // The first non-empty list is the template; rows before it are empty, so feeding every row
  // in order gives the same result.
  KernelSummaryBuilder builder;
  for (const KernelDetails* row : rows)
    if (row) builder.add(*row);
  return builder.finish();
}

std::string kernel_summary_repr(const std::vector<KernelSummaryEntry>& summary) {
  std::string out = "[";
  for (std::size_t i = 0; i < summary.size(); ++i) {
    const KernelSummaryEntry& e = summary[i];
    if (i) out += ", ";
    out += "{'name': " + text::python_string_repr(e.name) + ", 'stream': " + stream_repr(e.stream);
    for (const auto& [key, value] : e.extra_keys)
      out += ", " + text::python_string_repr(key) + ": " + value;
    out += ", 'count': " + std::to_string(e.count);
    out += ", 'total_duration_us': " + text::python_float_repr(e.total_duration_us);
    out += ", 'mean_duration_us': " + text::python_float_repr(e.mean_duration_us);
    out += ", 'median_duration_us': " + text::python_float_repr(e.median_duration_us);
    out += ", 'std_dev_duration_us': " + text::python_float_repr(e.std_dev_duration_us);
    out += ", 'min_duration_us': " + text::python_float_repr(e.min_duration_us);
    out += ", 'max_duration_us': " + text::python_float_repr(e.max_duration_us) + "}";
  }
  return out + "]";
}

std::string trunc_kernel_details_repr(const std::vector<KernelSummaryEntry>& summary) {
  if (summary.empty()) return "";
  std::string out = "[";
  for (std::size_t i = 0; i < summary.size(); ++i) {
    const KernelSummaryEntry& e = summary[i];
    if (i) out += ", ";
    out += "{'name': " + text::python_string_repr(truncated_name(e.name)) +
           ", 'stream': " + stream_repr(e.stream) +
           ", 'mean_duration_us': " + text::python_float_repr(numpy_round_2(e.mean_duration_us)) +
           "}";
  }
  return out + "]";
}

}  // namespace traceprism::perf_report
