#include <cstdio>

#include "report/comparison_writers.hpp"
#include "report/report_writers.hpp"
#include "text/csv_sheet.hpp"

namespace traceprism::report {
namespace {

constexpr std::size_t kKernelDiffRowsInJson = 50;

void write_timeline(text::JsonWriter& w, const model::GpuTimeline& t) {
  w.key("gpu_utilization").begin_object();
  w.key("total_time_ms").value(t.total_us / 1e3);
  w.key("computation_ms").value(t.computation_us / 1e3);
  w.key("exposed_comm_ms").value(t.exposed_comm_us / 1e3);
  w.key("exposed_memcpy_ms").value(t.exposed_memcpy_us / 1e3);
  w.key("idle_ms").value(t.idle_us / 1e3);
  w.end_object();
}

void write_trace2(text::JsonWriter& w, const AnalysisReport& r) {
  w.key("trace2").begin_object();
  w.key("path").value(r.trace_path);
  write_trace_identity(w, r);
  write_timeline(w, r.timeline);
  w.end_object();
}

void write_time_rows(text::JsonWriter& w, const comparison::Comparison& d) {
  w.key("time_breakdown").begin_array();
  for (const comparison::TimeRow& row : d.time_rows) {
    w.begin_object();
    w.key("group").value(comparison::time_group_title(row.group));
    w.key("part").value(row.key);
    w.key("time_ms_trace1").value(row.us_trace1 / 1e3);
    w.key("time_ms_trace2").value(row.us_trace2 / 1e3);
    w.key("time_ms_diff").value(row.diff_us() / 1e3);
    if (row.count_trace1 >= 0) {
      w.key("count_trace1").value(row.count_trace1);
      w.key("count_trace2").value(row.count_trace2);
    }
    w.end_object();
  }
  w.end_array();
}

void write_kernel_rows(text::JsonWriter& w, const comparison::Comparison& d) {
  w.key("kernel_diff").begin_object();
  w.key("names").value(static_cast<std::uint64_t>(d.kernels.size()));
  w.key("file").value("kernel_diff.csv");
  w.key("largest").begin_array();
  for (std::size_t i = 0; i < d.kernels.size() && i < kKernelDiffRowsInJson; ++i) {
    const comparison::KernelDiffRow& k = d.kernels[i];
    if (k.time_ns_diff() == 0 && k.count_diff() == 0) break;
    w.begin_object();
    w.key("name").value(k.name);
    w.key("count_trace1").value(k.count_trace1);
    w.key("count_trace2").value(k.count_trace2);
    w.key("time_ms_trace1").value(static_cast<double>(k.time_ns_trace1) / 1e6);
    w.key("time_ms_trace2").value(static_cast<double>(k.time_ns_trace2) / 1e6);
    w.key("time_ms_diff").value(static_cast<double>(k.time_ns_diff()) / 1e6);
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

// TraceDiff's size: what the per-op comparisons rest on (0 events: none matched).
void write_trace_diff(text::JsonWriter& w, const comparison::Comparison& d) {
  w.key("trace_diff").begin_object();
  w.key("merged_nodes").value(static_cast<std::uint64_t>(d.merged_nodes));
  w.key("diff_events_trace1").value(static_cast<std::uint64_t>(d.trace_diff.event_count(1)));
  w.key("diff_events_trace2").value(static_cast<std::uint64_t>(d.trace_diff.event_count(2)));
  if (d.trace_diff.empty())
    w.key("file").null();
  else
    w.key("file").value("perf_report_trace1_csvs/diff_stats.csv");
  w.end_object();
}

void write_in_both(text::JsonWriter& w, const comparison::Comparison& d) {
  w.key("findings_in_both").begin_array();
  for (const comparison::FindingInBoth& f : d.in_both) {
    w.begin_object();
    w.key("analyzer").value(f.analyzer);
    w.key("key").value(f.key);
    w.key("title").value(f.title);
    text_or_null(w, "cause", f.cause);
    if (f.us_trace1 && f.us_trace2) {
      w.key("cause_ms_trace1").value(*f.us_trace1 / 1e3);
      w.key("cause_ms_trace2").value(*f.us_trace2 / 1e3);
    }
    w.end_object();
  }
  w.end_array();
}

}  // namespace

std::string comparative_findings_json(const ComparativeReport& c) {
  text::JsonWriter w;
  w.begin_object();
  write_findings_fields(w, *c.trace1, "comparative");
  w.key("comparison").begin_object();
  write_trace2(w, *c.trace2);
  w.key("gap_summary").value(c.diff.gap_summary);
  w.key("time_ms_diff").value((c.trace1->timeline.total_us - c.trace2->timeline.total_us) / 1e3);
  write_time_rows(w, c.diff);
  write_kernel_rows(w, c.diff);
  write_trace_diff(w, c.diff);
  w.key("warnings").begin_array();
  for (const std::string& s : c.diff.warnings) w.value(s);
  w.end_array();
  write_in_both(w, c.diff);
  w.end_object();
  w.end_object();
  return w.str();
}

std::string time_breakdown_csv(const ComparativeReport& c) {
  auto ms = [](double us) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.6f", us / 1e3);
    return std::string(buf);
  };
  text::CsvSheet sheet;
  sheet.columns = {"group",        "part",         "time_ms_trace1", "time_ms_trace2",
                   "time_ms_diff", "count_trace1", "count_trace2"};
  for (const comparison::TimeRow& row : c.diff.time_rows) {
    const bool counted = row.count_trace1 >= 0;
    sheet.rows.push_back({std::string(comparison::time_group_title(row.group)), row.key,
                          ms(row.us_trace1), ms(row.us_trace2), ms(row.diff_us()),
                          counted ? std::to_string(row.count_trace1) : "",
                          counted ? std::to_string(row.count_trace2) : ""});
  }
  return sheet.to_csv();
}

}  // namespace traceprism::report
