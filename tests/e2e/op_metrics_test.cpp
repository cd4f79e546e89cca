// The ABI 1.5 op metrics (host API op_metrics) against the sheet they type: on a synthetic
// trace analysed as `analyze` does it (the built plugins' op models, the MI300X platform, so the
// perf-model and roofline columns exist), every number of the table equals the
// unified_perf_summary cell it stands for parsed as a double (NaN for an empty cell), every
// text equals its cell, and the kernel details are the kernel_details_summary entries.
#include <gtest/gtest.h>

#include <traceprism/sdk.hpp>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "cli/plugin_loading.hpp"
#include "config/run_config.hpp"
#include "ingest/trace_reader.hpp"
#include "model/call_tree.hpp"
#include "model/forward_backward.hpp"
#include "model/gpu_timeline.hpp"
#include "model/kernel_launchers.hpp"
#include "model/launch_links.hpp"
#include "perf_report/perf_report.hpp"
#include "platform/platform_file.hpp"
#include "plugins/op_metrics_table.hpp"
#include "plugins/op_model_runner.hpp"
#include "plugins/plugin_registry.hpp"
#include "plugins/run_products.hpp"
#include "report/sheet_csv.hpp"
#include "support/csv_rows.hpp"
#include "support/run_cli.hpp"
#include "support/temp_dir.hpp"

namespace {

namespace fs = std::filesystem;
using namespace traceprism;
namespace tpt = traceprism::testing;

// The cell as a double, NaN when empty.
double cell_number(const tpt::CsvRow& row, const std::string& column) {
  return row.number(column);
}

void expect_same(double sheet, double typed, const std::string& what) {
  if (std::isnan(sheet)) {
    EXPECT_TRUE(std::isnan(typed)) << what << ": expected NaN, got " << typed;
  } else {
    EXPECT_EQ(sheet, typed) << what;  // bit for bit: the cell is the double's repr
  }
}

TEST(OpMetrics, EqualTheUnifiedPerfSummaryCells) {
  tpt::TempDir dir;
  const std::string trace = dir.file("trace.json");
  std::string output;
  ASSERT_EQ(tpt::run_cli("synth -o " + tpt::shell_quote(trace) + " --layers 2 --steps 2 --seed 11",
                         &output),
            0)
      << output;
  const ingest::TraceFile file = ingest::read_trace(trace);
  const auto& index = file.index;
  const model::CallTree tree = model::CallTree::build(index);
  const model::LaunchLinks links = model::LaunchLinks::build(index);
  const model::GpuTimeline timeline = model::compute_gpu_timeline(index, links);
  const model::KernelLaunchers launchers = model::KernelLaunchers::build(index, tree, links);
  plugins::RunProducts products(index, tree, links, timeline, launchers);
  plugins::PluginRegistry registry;
  cli::load_plugins(registry, {(fs::path(TRACEPRISM_BINARY).parent_path() / "plugins").string()});
  const platform::PlatformSpec* spec = platform::find_platform("mi300x");
  ASSERT_NE(spec, nullptr);
  const platform::PlatformInfo platform = spec->info();
  const config::RunConfig config;
  const plugins::OpModelInputs models{&registry, &config, &platform, &trace, 1};
  const plugins::OpModelRun op_run = plugins::run_op_models(models, products);
  const model::ForwardBackwardLinks fwd_bwd = model::ForwardBackwardLinks::build(index);
  perf_report::PerfReportInputs in;
  in.index = &index;
  in.tree = &tree;
  in.links = &links;
  in.fwd_bwd = &fwd_bwd;
  in.timeline = &timeline;
  in.launchers = &launchers;
  in.op_work = &op_run.table;
  in.platform = &platform;
  perf_report::UnifiedPerfTable unified;
  in.unified_table = &unified;
  const std::vector<perf_report::PerfSheet> sheets = perf_report::build_perf_report(in);
  products.set_op_metrics(std::move(unified));
  const traceprism_op_metrics_v1* raw = products.op_metrics();
  ASSERT_NE(raw, nullptr);
  const OpMetrics m(raw);

  tpt::Csv csv, gpu;
  for (const perf_report::PerfSheet& s : sheets) {
    if (s.name == "unified_perf_summary")
      csv = tpt::parse_csv(traceprism::report::sheet_csv(s.table));
    if (s.name == "gpu_timeline") gpu = tpt::parse_csv(traceprism::report::sheet_csv(s.table));
  }
  ASSERT_GT(csv.rows.size(), 0u);
  EXPECT_EQ(m.gpu_total_ms(), tpt::gpu_total_ms_from_csv(gpu));
  EXPECT_EQ(m.gpu_total_ms(), timeline.total_us / 1000);  // the timeline's figure, exactly
  ASSERT_EQ(m.size(), csv.rows.size());
  EXPECT_TRUE(m.has_model_columns());
  EXPECT_TRUE(m.has_roofline_columns());
  EXPECT_TRUE(csv.column("GFLOPS") < csv.header.size());
  EXPECT_TRUE(csv.column("Pct Roofline_mean") < csv.header.size());

  const std::string kt = "Kernel Time (\xC2\xB5s)";
  std::size_t kernels_seen = 0;
  for (std::size_t i = 0; i < m.size(); ++i) {
    SCOPED_TRACE("row " + std::to_string(i));
    const tpt::CsvRow row(csv, i);
    EXPECT_EQ(m.name(i), row.text("name"));
    EXPECT_EQ(m.op_category(i), row.text("op category"));
    EXPECT_EQ(m.process_name(i), row.text("process_name"));
    EXPECT_EQ(m.process_label(i), row.text("process_label"));
    EXPECT_EQ(m.thread_name(i), row.text("thread_name"));
    EXPECT_EQ(m.input_dims(i).value_or(""), row.text("Input Dims"));
    EXPECT_EQ(m.input_type(i).value_or(""), row.text("Input type"));
    EXPECT_EQ(m.input_strides(i).value_or(""), row.text("Input Strides"));
    EXPECT_EQ(m.concrete_inputs(i).value_or(""), row.text("Concrete Inputs"));
    EXPECT_EQ(std::to_string(m.ex_uid(i)), row.text("ex_UID"));
    EXPECT_EQ(std::to_string(m.operation_count(i)), row.text("operation_count"));
    EXPECT_EQ(m.compute_spec(i).value_or(""), row.text("Compute Spec"));
    EXPECT_EQ(m.perf_params(i).value_or(""), row.text("perf_params"));
    EXPECT_EQ(m.has_perf_model(i) ? "True" : "False", row.text("has_perf_model"));
    const std::string bound = row.text("Roofline Bound");
    EXPECT_EQ(m.bound(i), bound == "COMPUTE_BOUND"  ? Bound::kCompute
                          : bound == "MEMORY_BOUND" ? Bound::kMemory
                                                    : Bound::kNone);
    const std::vector<std::pair<std::string, double>> numbers = {
        {"total_duration_us", m.total_duration_us(i)},
        {"mean_duration_us", m.duration_us(i).mean},
        {"std_duration_us", m.duration_us(i).std},
        {"duration_us_median", m.duration_us(i).median},
        {"duration_us_min", m.duration_us(i).min},
        {"duration_us_max", m.duration_us(i).max},
        {"GFLOPS", m.gflops(i)},
        {"Data Moved (MB)", m.data_moved_mb(i)},
        {"FLOPS/Byte", m.flops_per_byte(i)},
        {"TB/s_mean", m.tb_per_s(i).mean},
        {"TB/s_std", m.tb_per_s(i).std},
        {"TB/s_median", m.tb_per_s(i).median},
        {"TB/s_min", m.tb_per_s(i).min},
        {"TB/s_max", m.tb_per_s(i).max},
        {"TFLOPS/s_mean", m.tflops_per_s(i).mean},
        {"TFLOPS/s_std", m.tflops_per_s(i).std},
        {"TFLOPS/s_median", m.tflops_per_s(i).median},
        {"TFLOPS/s_min", m.tflops_per_s(i).min},
        {"TFLOPS/s_max", m.tflops_per_s(i).max},
        {"Roofline Time (\xC2\xB5s)_first", m.roofline_time_us(i)},
        {"Pct Roofline_mean", m.pct_roofline(i).mean},
        {"Pct Roofline_std", m.pct_roofline(i).std},
        {"Pct Roofline_median", m.pct_roofline(i).median},
        {"Pct Roofline_min", m.pct_roofline(i).min},
        {"Pct Roofline_max", m.pct_roofline(i).max},
        {kt + "_sum", m.kernel_time_sum_us(i)},
        {kt + "_mean", m.kernel_time_us(i).mean},
        {kt + "_std", m.kernel_time_us(i).std},
        {kt + "_median", m.kernel_time_us(i).median},
        {kt + "_min", m.kernel_time_us(i).min},
        {kt + "_max", m.kernel_time_us(i).max},
        {"Percentage (%)", m.percentage(i)},
        {"Cumulative Percentage (%)", m.cumulative_percentage(i)},
    };
    for (const auto& [column, typed] : numbers) {
      ASSERT_TRUE(row.has(column)) << column;
      expect_same(cell_number(row, column), typed, column);
    }
    const std::vector<perf_report::KernelSummaryEntry> cell =
        tpt::kernel_summary_of(row.text("kernel_details_summary"));
    const OpKernels kernels = m.kernels(i);
    ASSERT_EQ(kernels.size(), cell.size());
    for (std::size_t k = 0; k < kernels.size(); ++k) {
      const OpKernel typed = kernels[k];
      EXPECT_EQ(typed.name(), cell[k].name);
      EXPECT_EQ(typed.stream(), cell[k].stream);
      EXPECT_EQ(typed.count(), cell[k].count);
      expect_same(cell[k].total_duration_us, typed.total_us(), "total_duration_us");
      expect_same(cell[k].mean_duration_us, typed.mean_us(), "mean_duration_us");
      expect_same(cell[k].median_duration_us, typed.median_us(), "median_duration_us");
      expect_same(cell[k].std_dev_duration_us, typed.std_us(), "std_dev_duration_us");
      expect_same(cell[k].min_duration_us, typed.min_us(), "min_duration_us");
      expect_same(cell[k].max_duration_us, typed.max_us(), "max_duration_us");
      ASSERT_EQ(typed.extra_count(), cell[k].extra_keys.size());
      for (std::size_t x = 0; x < typed.extra_count(); ++x) {
        EXPECT_EQ(typed.extra_key(x), cell[k].extra_keys[x].first);
        EXPECT_EQ(typed.extra_value(x), cell[k].extra_keys[x].second);
      }
      ++kernels_seen;
    }
  }
  EXPECT_GT(kernels_seen, 0u);
}

// A table of no groups still has a well-formed header (RunProducts serves none then).
TEST(OpMetrics, AnEmptyTableIsWellFormed) {
  plugins::OpMetricsTable empty(perf_report::UnifiedPerfTable{}, 0);
  EXPECT_EQ(empty.view()->count, 0u);
  EXPECT_EQ(empty.view()->struct_size, sizeof(traceprism_op_metrics_v1));
}

}  // namespace
