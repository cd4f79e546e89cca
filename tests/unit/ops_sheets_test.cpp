// The op-instance and kernel sheets on the synthetic test vector of trace-format spec §16
// (whose ops_summary / kernel figures were produced by the reference), with shape args added
// to aten::mm and aten::fill_ so that ops_unique_args and short_kernels_summary have some.
// All times are whole µs, so every busy time and sum below is exact.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

#include "model/kernel_launchers.hpp"
#include "perf_report/kernel_sheets.hpp"
#include "perf_report/ops_sheets.hpp"
#include "perf_report/perf_sheets.hpp"
#include "pipeline/trace_load.hpp"
#include "report/sheet_csv.hpp"
#include "support/csv.hpp"
#include "support/temp_dir.hpp"
#include "support/trace_builder.hpp"
#include "text/csv_sheet.hpp"

namespace perf_report = traceprism::perf_report;
namespace text = traceprism::text;
using traceprism::testing::Csv;
using traceprism::testing::parse_csv;

namespace {

const char* kMmArgs = R"({"Input Dims":[[2,3],[3,4]],"Input type":["float","float"],)"
                      R"("Input Strides":[[3,1],[4,1]],"Concrete Inputs":["",""]})";
const char* kFillArgs = R"({"Input Dims":[[4],[]],"Input type":["float","Scalar"],)"
                        R"("Input Strides":[[1],[]],"Concrete Inputs":["","0"]})";

std::string vector_trace() {
  traceprism::testing::TraceText t;
  auto gpu = [&](const std::string& cat, const std::string& name, int ts, int dur, int corr,
                 int stream) {
    t.x(cat, name, std::to_string(ts), std::to_string(dur),
        "{\"correlation\":" + std::to_string(corr) + ",\"stream\":" + std::to_string(stream) +
            ",\"device\":0}",
        "0", std::to_string(stream));
  };
  auto launch = [&](int ts, int corr) {
    t.x("cuda_runtime", "cudaLaunchKernel", std::to_string(ts), "1",
        "{\"correlation\":" + std::to_string(corr) + "}");
  };
  auto flow = [&](int corr, int host_ts, int gpu_ts, int stream) {
    t.flow(corr, std::to_string(host_ts), std::to_string(gpu_ts), stream);
  };
  t.x("cpu_op", "aten::mm", "1000", "100", kMmArgs);
  launch(1010, 10);
  gpu("kernel", "gemm_kernel_K1", 1200, 50, 10, 7);
  flow(10, 1010, 1200, 7);
  t.x("cpu_op", "aten::add", "1200", "50");
  launch(1210, 11);
  gpu("kernel", "void at::native::vectorized_elementwise_kernel<add>", 1220, 40, 11, 8);
  flow(11, 1210, 1220, 8);
  t.x("cpu_op", "my::custom", "1300", "100");
  launch(1310, 12);
  launch(1320, 13);
  gpu("kernel", "kernA", 1400, 10, 12, 7);
  gpu("kernel", "kernB", 1405, 10, 13, 8);
  flow(12, 1310, 1400, 7);
  flow(13, 1320, 1405, 8);
  t.x("cuda_runtime", "cudaGraphLaunch", "1500", "5", "{\"correlation\":20}");
  gpu("kernel", "graphK1", 1600, 5, 20, 7);
  gpu("kernel", "graphK2", 1606, 5, 20, 7);
  t.x("cpu_op", "aten::copy_", "1700", "50");
  t.x("cuda_runtime", "cudaMemcpyAsync", "1710", "1", "{\"correlation\":30}");
  gpu("gpu_memcpy", "Memcpy DtoD (Device -> Device)", 1760, 20, 30, 7);
  flow(30, 1710, 1760, 7);
  gpu("kernel", "unlinkedK", 1800, 10, 99, 7);
  t.x("cpu_op", "c10d::allreduce_", "1900", "20");
  launch(1901, 40);
  gpu("kernel", "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 1900, 100, 40, 9);
  flow(40, 1901, 1900, 9);
  t.x("cpu_op", "aten::mul", "1910", "20");  // bleeds out of c10d::allreduce_: dropped
  launch(1915, 41);
  gpu("kernel", "void at::native::vectorized_elementwise_kernel<mul>", 1950, 20, 41, 7);
  flow(41, 1915, 1950, 7);
  t.x("cpu_op", "aten::fill_", "2100", "10", kFillArgs);
  launch(2101, 50);
  gpu("kernel", "fill_zero_dur", 2150, 0, 50, 7);
  flow(50, 2101, 2150, 7);
  return t.str();
}

// The op-model registry stand-in: the categories Appendix A gives these names.
std::optional<std::string> registry_of(std::string_view name) {
  static const std::map<std::string, std::string, std::less<>> kRegistry = {
      {"aten::mm", "GEMM"},
      {"aten::add", "elementwise"},
      {"aten::copy_", "elementwise"},
      {"aten::mul", "elementwise"}};
  auto it = kRegistry.find(name);
  return it == kRegistry.end() ? std::nullopt : std::optional<std::string>(it->second);
}

class OpsSheets : public ::testing::Test {
 protected:
  void load(const std::string& trace_text) {
    traceprism::pipeline::LoadOptions options;
    options.quiet = true;
    session_ = traceprism::pipeline::load_trace(dir_.write("t.json", trace_text), options);
    launchers_ = traceprism::model::KernelLaunchers::build(session_.file.index, session_.tree,
                                                           session_.links);
  }
  void SetUp() override { load(vector_trace()); }

  perf_report::LauncherSheetInputs inputs() const {
    const auto& index = session_.file.index;
    return {index,
            session_.tree,
            session_.links,
            launchers_,
            session_.timeline,
            [&index](traceprism::index::Row r) { return registry_of(index.name(r)); },
            {}};
  }
  Csv sheet(const std::string& name) const {
    for (const auto& [sheet_name, table] : perf_report::build_launcher_sheets(inputs()))
      if (sheet_name == name) return parse_csv(traceprism::report::sheet_csv(table));
    ADD_FAILURE() << "no sheet " << name;
    return {};
  }
  static std::string cell(const Csv& csv, std::size_t row, const std::string& column) {
    return csv.rows.at(row).at(csv.column(column));
  }
  static double number(const Csv& csv, std::size_t row, const std::string& column) {
    return std::stod(cell(csv, row, column));
  }

  traceprism::testing::TempDir dir_;
  traceprism::pipeline::TraceSession session_;
  traceprism::model::KernelLaunchers launchers_;
};

}  // namespace

TEST_F(OpsSheets, SheetOrder) {
  std::vector<std::string> names;
  for (const auto& sheet : perf_report::build_launcher_sheets(inputs()))
    names.push_back(sheet.name);
  EXPECT_EQ(names, (std::vector<std::string>{"ops_summary_by_category", "ops_summary",
                                             "ops_unique_args", "kernel_summary",
                                             "short_kernel_histogram", "short_kernels_summary"}));
}

TEST_F(OpsSheets, OpsSummaryMatchesTheReferenceVector) {
  // Direct/subtree µs and category per op (spec §16). NCCL is excluded from direct time:
  // c10d::allreduce_ keeps the mul kernel it inherited from the dropped aten::mul (20) while
  // its subtree holds the 100 µs all-reduce. Ties (copy_ and allreduce_ at 20) keep name order.
  const Csv csv = sheet("ops_summary");
  ASSERT_EQ(csv.header, (std::vector<std::string>{
                            "name", "total_direct_kernel_time_sum", "total_subtree_kernel_time_sum",
                            "total_direct_kernel_time_ms", "total_subtree_kernel_time_ms", "Count",
                            "Categories", "Percentage (%)", "Cumulative Percentage (%)"}));
  const std::vector<std::vector<std::string>> expected = {
      {"aten::mm", "50.0", "50.0", "0.05", "0.05", "1", "['GEMM']"},
      {"aten::add", "40.0", "40.0", "0.04", "0.04", "1", "['elementwise']"},
      {"aten::copy_", "20.0", "20.0", "0.02", "0.02", "1", "['elementwise']"},
      {"c10d::allreduce_", "20.0", "100.0", "0.02", "0.1", "1", "['elementwise']"},
      {"my::custom", "15.0", "15.0", "0.015", "0.015", "1", "['other']"},
      {"cudaGraphLaunch", "10.0", "10.0", "0.01", "0.01", "1", "['other']"},
      {"aten::fill_", "0.0", "0.0", "0.0", "0.0", "1", "['other']"}};
  ASSERT_EQ(csv.rows.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    for (std::size_t c = 0; c < expected[i].size(); ++c)
      EXPECT_EQ(csv.rows[i][c], expected[i][c]) << "row " << i << " column " << csv.header[c];
  }
  // Percentages of the 155 µs direct total: 50/155 = 32.26 %, cumulative ends at 100.
  EXPECT_NEAR(number(csv, 0, "Percentage (%)"), 50.0 / 155 * 100, 1e-12);
  EXPECT_NEAR(number(csv, 1, "Cumulative Percentage (%)"), 90.0 / 155 * 100, 1e-12);
  EXPECT_NEAR(number(csv, 6, "Cumulative Percentage (%)"), 100.0, 1e-12);
}

TEST_F(OpsSheets, OpsSummaryByCategory) {
  // elementwise = add 40 + copy_ 20 + allreduce_ 20 = 80 µs over 3 ops; GEMM 50; other =
  // my::custom 15 + cudaGraphLaunch 10 + fill_ 0 = 25.
  const Csv csv = sheet("ops_summary_by_category");
  ASSERT_EQ(csv.header,
            (std::vector<std::string>{"op category", "Count", "total_direct_kernel_time_ms",
                                      "Percentage (%)", "Cumulative Percentage (%)"}));
  ASSERT_EQ(csv.rows.size(), 3u);
  EXPECT_EQ(csv.rows[0][0], "elementwise");
  EXPECT_EQ(csv.rows[0][1], "3");
  EXPECT_EQ(csv.rows[0][2], "0.08");
  EXPECT_EQ(csv.rows[1][0], "GEMM");
  EXPECT_EQ(csv.rows[2][0], "other");
  EXPECT_EQ(csv.rows[2][1], "3");
  EXPECT_NEAR(number(csv, 0, "Percentage (%)"), 80.0 / 155 * 100, 1e-12);
  EXPECT_NEAR(number(csv, 2, "Cumulative Percentage (%)"), 100.0, 1e-12);
}

TEST_F(OpsSheets, OpsUniqueArgs) {
  const Csv csv = sheet("ops_unique_args");
  ASSERT_EQ(csv.header.size(), 27u);
  EXPECT_EQ(csv.header[9], "operation_count");
  EXPECT_EQ(csv.header[22], "ex_UID");
  ASSERT_EQ(csv.rows.size(), 7u);
  // Sorted by direct sum, ties by ex_UID: copy_ (earlier in the file) before allreduce_.
  const std::vector<std::string> names = {"aten::mm",         "aten::add",  "aten::copy_",
                                          "c10d::allreduce_", "my::custom", "cudaGraphLaunch",
                                          "aten::fill_"};
  for (std::size_t i = 0; i < names.size(); ++i) EXPECT_EQ(cell(csv, i, "name"), names[i]);
  EXPECT_EQ(cell(csv, 0, "op category"), "GEMM");
  EXPECT_EQ(cell(csv, 0, "process_name"), "Unknown");  // no M events in this trace
  EXPECT_EQ(cell(csv, 0, "Input Dims"), "((2, 3), (3, 4))");
  EXPECT_EQ(cell(csv, 0, "Input type"), "('float', 'float')");
  EXPECT_EQ(cell(csv, 0, "Concrete Inputs"), "('', '')");
  EXPECT_EQ(cell(csv, 1, "Input Dims"), "");  // None prints empty
  EXPECT_EQ(cell(csv, 0, "operation_count"), "1");
  EXPECT_EQ(cell(csv, 0, "total_direct_kernel_time_mean"), "50.0");
  EXPECT_EQ(cell(csv, 0, "total_direct_kernel_time_std"), "");  // one instance: NaN
  EXPECT_EQ(cell(csv, 3, "total_subtree_kernel_time_sum"), "100.0");
  EXPECT_EQ(cell(csv, 0, "ex_UID"), "0");  // aten::mm is the first event
  EXPECT_EQ(cell(csv, 0, "kernel_details_summary"),
            "[{'name': 'gemm_kernel_K1', 'stream': 7, 'count': 1, 'total_duration_us': 50.0, "
            "'mean_duration_us': 50.0, 'median_duration_us': 50.0, 'std_dev_duration_us': 0.0, "
            "'min_duration_us': 50.0, 'max_duration_us': 50.0}]");
  // my::custom: kernA (stream 7) and kernB (stream 8) tie at 10 µs and sort by name.
  EXPECT_EQ(cell(csv, 4, "trunc_kernel_details"),
            "[{'name': 'kernA', 'stream': 7, 'mean_duration_us': 10.0}, "
            "{'name': 'kernB', 'stream': 8, 'mean_duration_us': 10.0}]");
  EXPECT_NEAR(number(csv, 0, "Percentage (%)"), 50.0 / 155 * 100, 1e-12);
}

TEST_F(OpsSheets, KernelSummary) {
  // Kernels only (the memcpy is not a kernel), unlinked ones included; the graph kernels are
  // filed under their launch; the all-reduce under c10d::allreduce_ whose category comes from
  // its direct (mul) kernel. Sorted by the plain sum of durations (total 250 µs).
  const Csv csv = sheet("kernel_summary");
  ASSERT_EQ(csv.header[0], "Parent op category");
  ASSERT_EQ(csv.header[1], "Parent cpu_op");
  const std::vector<std::vector<std::string>> expected = {
      {"elementwise", "c10d::allreduce_", "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "9", "100.0",
       "1"},
      {"GEMM", "aten::mm", "gemm_kernel_K1", "7", "50.0", "1"},
      {"elementwise", "aten::add", "void at::native::vectorized_elementwise_kernel<add>", "8",
       "40.0", "1"},
      {"elementwise", "c10d::allreduce_", "void at::native::vectorized_elementwise_kernel<mul>",
       "7", "20.0", "1"},
      {"other", "my::custom", "kernA", "7", "10.0", "1"},
      {"other", "my::custom", "kernB", "8", "10.0", "1"},
      {"", "", "unlinkedK", "7", "10.0", "1"},
      {"graph", "cudaGraphLaunch", "graphK1", "7", "5.0", "1"},
      {"graph", "cudaGraphLaunch", "graphK2", "7", "5.0", "1"},
      {"other", "aten::fill_", "fill_zero_dur", "7", "0.0", "1"}};
  ASSERT_EQ(csv.rows.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    for (std::size_t c = 0; c < expected[i].size(); ++c)
      EXPECT_EQ(csv.rows[i][c], expected[i][c]) << "row " << i << " column " << csv.header[c];
  }
  EXPECT_NEAR(number(csv, 0, "Percent of kernels time (%)"), 40.0, 1e-12);
  // The timeline's total is 950 µs (first to last linked GPU event).
  EXPECT_NEAR(number(csv, 0, "Percent of total time (%)"), 100.0 / 950 * 100, 1e-12);
}

TEST_F(OpsSheets, ShortKernels) {
  // Under 10 µs: graphK1, graphK2 (5 µs) and fill_zero_dur (0 µs). 100 bins over [0, 5].
  const Csv hist = sheet("short_kernel_histogram");
  ASSERT_EQ(hist.rows.size(), 100u);
  EXPECT_EQ(hist.rows[0], (std::vector<std::string>{"0.0", "0.05", "1"}));
  EXPECT_EQ(hist.rows[99][2], "2");  // the last bin is closed: both 5 µs kernels
  EXPECT_EQ(hist.rows[99][1], "5.0");
  // Only fill_zero_dur has a cpu_op with shape args; the graph kernels are dropped.
  const Csv summary = sheet("short_kernels_summary");
  ASSERT_EQ(summary.rows.size(), 1u);
  EXPECT_EQ(summary.rows[0],
            (std::vector<std::string>{"aten::fill_", "((4,), ())", "((1,), ())", "('', '0')",
                                      "fill_zero_dur", "0.0", "1", "0.0", "0.0"}));
}

TEST_F(OpsSheets, CategoriesWithoutARegistry) {
  // Without op models: names and kernels only. aten::add keeps elementwise from its
  // at::native kernel, aten::mm and aten::copy_ (a memcpy) fall back to other.
  auto in = inputs();
  in.registry_category = {};
  const auto rows = perf_report::build_launcher_rows(in);
  std::map<std::string, std::string> category;
  for (const auto& r : rows) category[std::string(r.name)] = std::string(r.category);
  EXPECT_EQ(category["aten::mm"], "other");
  EXPECT_EQ(category["aten::add"], "elementwise");
  EXPECT_EQ(category["aten::copy_"], "other");
  EXPECT_EQ(category["c10d::allreduce_"], "elementwise");
}

TEST_F(OpsSheets, GpuOnlyTraceGetsKernelSheetsOnly) {
  traceprism::testing::TraceText t;
  t.x("cuda_runtime", "cudaLaunchKernel", "10", "1", "{\"correlation\":1}");
  t.x("kernel", "k_short", "100", "4", "{\"correlation\":1,\"stream\":3,\"device\":0}", "0", "3");
  t.flow(1, "10", "100", 3);
  t.x("kernel", "k_alone", "120", "30", "{\"correlation\":2,\"stream\":3,\"device\":0}", "0", "3");
  load(t.str());
  std::vector<std::string> names;
  std::map<std::string, std::string> csv_of;
  for (auto& [name, table] : perf_report::build_launcher_sheets(inputs())) {
    names.push_back(name);
    csv_of[name] = traceprism::report::sheet_csv(table);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"kernel_summary", "short_kernel_histogram",
                                             "short_kernels_summary"}));
  const Csv summary = parse_csv(csv_of["kernel_summary"]);
  EXPECT_EQ(summary.header[0], "Parent op category");
  EXPECT_EQ(summary.header[1], "Kernel name");  // no Parent cpu_op column at all
  ASSERT_EQ(summary.rows.size(), 2u);
  EXPECT_EQ(summary.rows[0][0], "");  // the unlinked kernel has no category
  EXPECT_EQ(summary.rows[1][0], "runtime");
  // GPU-only: short kernels grouped by name only, nothing dropped.
  const Csv short_summary = parse_csv(csv_of["short_kernels_summary"]);
  EXPECT_EQ(short_summary.header[0], "Kernel name");
  ASSERT_EQ(short_summary.rows.size(), 1u);
  EXPECT_EQ(short_summary.rows[0][0], "k_short");
  // One short kernel: numpy widens the range to [3.5, 4.5].
  const Csv hist = parse_csv(csv_of["short_kernel_histogram"]);
  EXPECT_EQ(hist.rows[0][0], "3.5");
  EXPECT_EQ(hist.rows[50][2], "1");
}

TEST_F(OpsSheets, ShortKernelsWithoutShapeArgsLeaveOnlyTheAggregateHeader) {
  // Every short kernel's cpu_op lacks shape args (a record_shapes=False trace): pandas drops
  // every row and writes the two header levels of the un-flattened aggregate.
  traceprism::testing::TraceText t;
  t.launch("aten::relu", 10, 20, "relu_kernel", 100, 3, 7, 1);
  load(t.str());
  std::string csv;
  for (auto& [name, table] : perf_report::build_launcher_sheets(inputs()))
    if (name == "short_kernels_summary") csv = traceprism::report::sheet_csv(table);
  EXPECT_EQ(csv,
            "Kernel duration (µs),Kernel duration (µs),Kernel duration (µs)\nsum,count,mean\n");
}

// --group_by_num_kernels: ops_unique_args also keys on each op's direct kernel count.
TEST_F(OpsSheets, GroupByNumKernelsSplitsUniqueArgsByKernelCount) {
  traceprism::testing::TraceText t;
  t.launch("aten::mm", 100, 20, "gemm_a", 200, 10, 7, 1);
  t.launch("aten::mm", 300, 20, "gemm_a", 400, 12, 7, 2);
  t.x("cuda_runtime", "cudaLaunchKernel", "310", "1", "{\"correlation\":3}");
  t.x("kernel", "bias_add", "415", "3", "{\"correlation\":3,\"stream\":7,\"device\":0}", "0", "7");
  t.flow(3, "310", "415", 7);
  load(t.str());
  const auto rows = perf_report::build_launcher_rows(inputs());
  const Csv plain =
      parse_csv(traceprism::report::sheet_csv(perf_report::ops_unique_args_sheet(rows)));
  ASSERT_EQ(plain.rows.size(), 1u);
  EXPECT_EQ(plain.column("num_kernels"), plain.header.size());
  const Csv split = parse_csv(traceprism::report::sheet_csv(
      perf_report::ops_unique_args_sheet(rows, {.num_kernels = true})));
  ASSERT_EQ(split.rows.size(), 2u);
  EXPECT_EQ(split.header.at(split.column("Concrete Inputs") + 1), "num_kernels");
  EXPECT_EQ(cell(split, 0, "num_kernels"), "2");  // 12 + 3 µs first
  EXPECT_EQ(cell(split, 0, "operation_count"), "1");
  EXPECT_EQ(cell(split, 1, "num_kernels"), "1");
}

// Inference-mode spec §4 "Call stacks", §5.2-§5.4: ops grouped by their nearest nn.Module,
// counters dropped ("Linear_0" and "Linear_1" are one module); an op outside every module
// is "NA".
TEST_F(OpsSheets, GroupByParentModuleSplitsOpsByTheirEnclosingModule) {
  traceprism::testing::TraceText t;
  t.x("python_function", "nn.Module: Model_0", "0", "1000");
  t.x("python_function", "nn.Module: Linear_0", "100", "200");
  t.launch("aten::mm", 110, 100, "gemm_a", 2000, 10, 7, 1);
  t.x("python_function", "nn.Module: Linear_1", "400", "200");
  t.launch("aten::mm", 410, 100, "gemm_a", 2100, 30, 7, 2);
  t.launch("aten::mm", 1100, 100, "gemm_a", 2200, 5, 7, 3);
  load(t.str());
  const auto& index = session_.file.index;
  traceprism::model::CallTreeOptions with_python;
  with_python.include_python = true;
  const auto parents = traceprism::model::CallTree::parents(index, with_python);
  perf_report::LauncherSheetInputs in = inputs();
  in.group_by_parent_module = true;
  in.python_parents = parents;
  const auto rows = perf_report::build_launcher_rows(in);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].call_stack, "['aten::mm', 'nn.Module: Linear_0', 'nn.Module: Model_0']");
  EXPECT_EQ(rows[0].parent_module, "nn.Module: Linear");
  EXPECT_EQ(rows[1].parent_module, "nn.Module: Linear");
  EXPECT_EQ(rows[2].call_stack, "['aten::mm']");
  EXPECT_EQ(rows[2].parent_module, "NA");

  const perf_report::OpsSheetsGrouping modules{.parent_module = true};
  const Csv summary =
      parse_csv(traceprism::report::sheet_csv(perf_report::ops_summary_sheet(rows, modules)));
  EXPECT_EQ(
      summary.header,
      (std::vector<std::string>{
          "name", "parent_module", "total_direct_kernel_time_sum", "total_subtree_kernel_time_sum",
          "total_subtree_kernel_time_count", "total_direct_kernel_time_ms", "Count", "Categories",
          "call_stack_first", "Percentage (%)", "Cumulative Percentage (%)"}));
  ASSERT_EQ(summary.rows.size(), 2u);
  EXPECT_EQ(cell(summary, 0, "parent_module"), "nn.Module: Linear");
  EXPECT_EQ(number(summary, 0, "total_direct_kernel_time_sum"), 40);
  EXPECT_EQ(cell(summary, 0, "total_subtree_kernel_time_count"), "2");
  EXPECT_EQ(cell(summary, 0, "call_stack_first"),
            "['aten::mm', 'nn.Module: Linear_0', 'nn.Module: Model_0']");
  EXPECT_EQ(cell(summary, 1, "parent_module"), "NA");

  const Csv by_category = parse_csv(
      traceprism::report::sheet_csv(perf_report::ops_summary_by_category_sheet(rows, modules)));
  EXPECT_EQ(by_category.header.at(1), "parent_module");
  EXPECT_EQ(by_category.header.at(3), "call_stack_first");
  ASSERT_EQ(by_category.rows.size(), 2u);
  EXPECT_EQ(cell(by_category, 0, "Count"), "2");

  const Csv unique =
      parse_csv(traceprism::report::sheet_csv(perf_report::ops_unique_args_sheet(rows, modules)));
  EXPECT_EQ(unique.header.at(2), "parent_module");
  EXPECT_EQ(unique.header.at(unique.column("ex_UID") + 1), "call_stack");
  ASSERT_EQ(unique.rows.size(), 2u);
  EXPECT_EQ(cell(unique, 0, "operation_count"), "2");
}

TEST(ModuleCallStack, LongFramesAreCutAndEveryCounterDropped) {
  traceprism::testing::TraceText t;
  const std::string long_name = "nn.Module: Block_12_" + std::string(300, 'x');
  t.x("python_function", long_name, "0", "100");
  t.x("python_function", "nn.Module: Attn_3_7", "10", "50");
  t.x("cpu_op", "aten::bmm", "20", "10");
  traceprism::testing::TempDir dir;
  traceprism::pipeline::LoadOptions options;
  options.quiet = true;
  const auto session = traceprism::pipeline::load_trace(dir.write("t.json", t.str()), options);
  traceprism::model::CallTreeOptions with_python;
  with_python.include_python = true;
  const auto& index = session.file.index;
  const auto parents = traceprism::model::CallTree::parents(index, with_python);
  traceprism::index::Row bmm = 0;
  while (index.name(bmm) != "aten::bmm") ++bmm;
  const auto stack = perf_report::module_call_stack(index, parents, bmm);
  ASSERT_EQ(stack.frames.size(), 3u);
  EXPECT_EQ(stack.frames[1], "nn.Module: Attn_3_7");
  EXPECT_EQ(stack.frames[2], long_name.substr(0, 256) + "..");
  EXPECT_EQ(stack.parent_module, "nn.Module: Attn");
}

// A kernel whose args have no stream: the reference reads args.stream only, so the kernel
// details say None and kernel_summary's Kernel stream is empty (not the tid Kineto also uses).
TEST_F(OpsSheets, KernelWithoutArgsStreamHasNoStream) {
  traceprism::testing::TraceText t;
  t.x("cpu_op", "aten::mm", "100", "20");
  t.x("cuda_runtime", "cudaLaunchKernel", "105", "1", "{\"correlation\":1}");
  t.x("kernel", "gemm_a", "200", "10", "{\"correlation\":1}", "0", "7");
  t.flow(1, "105", "200", 7);
  load(t.str());
  EXPECT_NE(cell(sheet("ops_unique_args"), 0, "kernel_details_summary").find("'stream': None"),
            std::string::npos);
  EXPECT_EQ(cell(sheet("kernel_summary"), 0, "Kernel stream"), "");
}

TEST(CsvSheet, PandasLayout) {
  text::CsvSheet empty;
  EXPECT_EQ(empty.to_csv(), "\n");
  text::CsvSheet header_only{{"bin_start", "bin_end", "count"}, {}};
  EXPECT_EQ(header_only.to_csv(), "bin_start,bin_end,count\n");
  text::CsvSheet sheet{{"a", "b"}, {{"x,y", text::float_cell(0.5)}, {"", "1"}}};
  EXPECT_EQ(sheet.to_csv(), "a,b\n\"x,y\",0.5\n,1\n");
  EXPECT_EQ(text::float_cell(std::nan("")), "");
  EXPECT_EQ(text::float_cell(1e-05), "1e-05");
  EXPECT_EQ(text::text_cell(std::nullopt), "");
}

TEST(OpCategory, ReferenceRules) {
  EXPECT_EQ(perf_report::categorize_op("aten::mm", "GEMM", "void at::native::elementwise"), "GEMM");
  EXPECT_EQ(perf_report::categorize_op("triton_poi_fused_add_0", std::nullopt, std::nullopt),
            "triton");
  EXPECT_EQ(perf_report::categorize_op("record_param_comms", std::nullopt, std::nullopt),
            "record_param_comms");
  EXPECT_EQ(perf_report::categorize_op("aten::sum", std::nullopt,
                                       "void at::native::reduce_kernel<512, 1>"),
            "reduce");
  // The first needle wins, and only for at::native kernels.
  EXPECT_EQ(perf_report::categorize_op("x", std::nullopt,
                                       "void at::native::elementwise_reduce_multi_tensor_apply"),
            "elementwise");
  EXPECT_EQ(perf_report::categorize_op("x", std::nullopt, "void at::native::multi_tensor_apply_k"),
            "multi_tensor_apply");
  EXPECT_EQ(perf_report::categorize_op("x", std::nullopt, "elementwise_kernel"), "other");
  EXPECT_EQ(perf_report::categorize_op("x", std::nullopt, std::nullopt), "other");
}
