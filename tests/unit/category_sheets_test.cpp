// The per-category perf-model sheets (trace-format spec §8.6) on small synthetic traces with
// op-model results filled in by hand: families and sheet names, grouping by parameters,
// column order and cell formats, the _fwd/_bwd split with its moves and drops.
#include <gtest/gtest.h>

#include <map>

#include "model/forward_backward.hpp"
#include "perf_report/category_sheets.hpp"
#include "pipeline/trace_load.hpp"
#include "report/sheet_csv.hpp"
#include "support/csv.hpp"
#include "support/temp_dir.hpp"
#include "support/trace_builder.hpp"

using traceprism::index::EventKind;
using traceprism::index::Row;
using traceprism::model::OpParam;
using traceprism::model::OpWork;
using traceprism::model::OpWorkStatus;
using traceprism::model::OpWorkTable;
using traceprism::testing::Csv;

namespace {

struct Answer {
  std::string category;
  std::string sheet;  // "" = category without _fwd/_bwd
  OpWorkStatus status = OpWorkStatus::kModelled;
  double flops = -1, bytes = -1;
  std::vector<OpParam> params;
  std::string bwd_category;
  OpWorkStatus bwd_status = OpWorkStatus::kNotModelled;
  double flops_bwd = -1, bytes_bwd = -1;
  bool has_model = true;
};

class Sheets {
 public:
  explicit Sheets(const std::string& json) {
    traceprism::pipeline::LoadOptions options;
    options.quiet = true;
    session_ = traceprism::pipeline::load_trace(dir_.write("t.json", json), options);
    fwd_bwd_ = traceprism::model::ForwardBackwardLinks::build(index());
    work_.set_index(&index());
  }
  const traceprism::index::EventIndex& index() const { return session_.file.index; }

  // The answer for the n-th row (file order) named `name`, or every such row when n < 0.
  void answer(std::string_view name, const Answer& a, int n = -1) {
    int seen = 0;
    for (Row r : index().rows_of_kind(EventKind::kCpuOp)) {
      if (index().name(r) != name) continue;
      if (n >= 0 && seen++ != n) continue;
      OpWork w;
      w.row = r;
      w.status = a.status;
      w.has_model = a.has_model;
      w.category = work_.intern_text(a.category);
      w.sheet = work_.intern_text(a.sheet);
      w.compute_spec = work_.intern_text("vector_bf16");
      w.params = work_.intern_params(a.params);
      w.flops = a.flops;
      w.bytes = a.bytes;
      w.bwd_category = work_.intern_text(a.bwd_category);
      w.bwd_status = a.bwd_status;
      w.flops_bwd = a.flops_bwd;
      w.bytes_bwd = a.bytes_bwd;
      work_.add(w);
    }
  }

  std::map<std::string, Csv> build(const traceprism::platform::PlatformInfo* platform = nullptr,
                                   bool group_by_num_kernels = false) {
    work_.finish();
    traceprism::perf_report::CategorySheetInputs in;
    in.group_by_num_kernels = group_by_num_kernels;
    in.platform = platform;
    in.index = &index();
    in.tree = &session_.tree;
    in.links = &session_.links;
    in.fwd_bwd = &fwd_bwd_;
    in.op_work = &work_;
    std::map<std::string, Csv> out;
    order.clear();
    for (const auto& [name, sheet] : traceprism::perf_report::build_category_sheets(in)) {
      order.push_back(name);
      out[name] = traceprism::testing::parse_csv(traceprism::report::sheet_csv(sheet));
    }
    return out;
  }
  std::vector<std::string> order;

 private:
  traceprism::testing::TempDir dir_;
  traceprism::pipeline::TraceSession session_;
  traceprism::model::ForwardBackwardLinks fwd_bwd_;
  OpWorkTable work_;
};

std::string cell(const Csv& csv, std::size_t row, const std::string& column) {
  const std::size_t c = csv.column(column);
  if (c == csv.header.size()) {
    ADD_FAILURE() << "no column " << column;
    return "";
  }
  return csv.rows.at(row).at(c);
}

// Three addmm calls (two with the same params) and a layer_norm that nests its native op.
std::string forward_trace() {
  traceprism::testing::TraceText t;
  t.launch("aten::addmm", 100, 20, "gemm_a", 200, 10, 7, 1);
  t.launch("aten::addmm", 300, 20, "gemm_a", 400, 12, 7, 2);
  t.launch("aten::addmm", 500, 20, "gemm_b", 600, 30, 7, 3);
  t.x("cpu_op", "aten::layer_norm", "700", "50");
  t.launch("aten::native_layer_norm", 705, 40, "ln_kernel", 800, 8, 7, 4);
  return t.str();
}

// A model's forward answer for an op of a sheet family.
Answer modelled(std::string category, std::string sheet, double flops, double bytes,
                std::vector<OpParam> params = {}) {
  Answer a;
  a.category = std::move(category);
  a.sheet = std::move(sheet);
  a.flops = flops;
  a.bytes = bytes;
  a.params = std::move(params);
  return a;
}

// ... whose model also gives the op's backward numbers (through autograd links).
Answer with_backward(Answer a, std::string bwd_category, double flops_bwd, double bytes_bwd) {
  a.bwd_category = std::move(bwd_category);
  a.bwd_status = OpWorkStatus::kModelled;
  a.flops_bwd = flops_bwd;
  a.bytes_bwd = bytes_bwd;
  return a;
}

Answer category_only(Answer a) {
  a.has_model = false;
  return a;
}

Answer gemm(std::string m) {
  return modelled("GEMM", "GEMM", 1e9, 1e6, {{"M", m}, {"bias", "True"}, {"stride_A", "(512, 1)"}});
}

TEST(CategorySheets, GroupsByNameAndParamsSortedByKernelTime) {
  Sheets s(forward_trace());
  s.answer("aten::addmm", gemm("141"), 0);
  s.answer("aten::addmm", gemm("141"), 1);
  s.answer("aten::addmm", gemm("30522"), 2);
  auto sheets = s.build();
  ASSERT_EQ(s.order, std::vector<std::string>{"GEMM"});
  const Csv& g = sheets["GEMM"];
  const std::vector<std::string> head = {"name",
                                         "param: M",
                                         "param: bias",
                                         "param: stride_A",
                                         "GFLOPS_first",
                                         "Data Moved (MB)_first",
                                         "FLOPS/Byte_first",
                                         "TB/s_mean",
                                         "TB/s_median"};
  EXPECT_TRUE(std::equal(head.begin(), head.end(), g.header.begin()));
  const std::vector<std::string> tail = {"TFLOPS/s_max",
                                         "process_name_first",
                                         "process_label_first",
                                         "thread_name_first",
                                         "Compute Spec",
                                         "kernel_details__summarize_kernel_stats",
                                         "trunc_kernel_details",
                                         "Input Dims_first",
                                         "Input type_first",
                                         "Input Strides_first",
                                         "Concrete Inputs_first",
                                         "Kernel Time (µs)_mean",
                                         "Kernel Time (µs)_median",
                                         "Kernel Time (µs)_std",
                                         "Kernel Time (µs)_min",
                                         "Kernel Time (µs)_max",
                                         "Kernel Time (µs)_sum",
                                         "name_count",
                                         "UID_first"};
  ASSERT_GE(g.header.size(), tail.size());
  EXPECT_TRUE(std::equal(tail.begin(), tail.end(), g.header.end() - tail.size()));
  // M=30522: one call, 30 µs; M=141: two calls, 10 + 12 = 22 µs.
  ASSERT_EQ(g.rows.size(), 2u);
  EXPECT_EQ(cell(g, 0, "param: M"), "30522");
  EXPECT_EQ(cell(g, 0, "Kernel Time (µs)_sum"), "30.0");
  EXPECT_EQ(cell(g, 0, "Kernel Time (µs)_std"), "");  // one instance
  EXPECT_EQ(cell(g, 1, "param: M"), "141");
  EXPECT_EQ(cell(g, 1, "param: bias"), "True");
  EXPECT_EQ(cell(g, 1, "param: stride_A"), "(512, 1)");
  EXPECT_EQ(cell(g, 1, "name_count"), "2");
  EXPECT_EQ(cell(g, 1, "Kernel Time (µs)_sum"), "22.0");
  EXPECT_EQ(cell(g, 1, "Kernel Time (µs)_mean"), "11.0");
  EXPECT_EQ(cell(g, 1, "Kernel Time (µs)_std"), "1.4142135623730951");  // sample std of 10, 12
  EXPECT_EQ(cell(g, 1, "GFLOPS_first"), "1.0");
  EXPECT_EQ(cell(g, 1, "Data Moved (MB)_first"), "0.95367431640625");  // 1e6 / 2^20
  EXPECT_EQ(cell(g, 1, "FLOPS/Byte_first"), "1000.0");
  // TFLOPS/s per call: 1e-3 / 10e-6 = 100 and 1e-3 / 12e-6 = 83.33..; the mean of the two.
  EXPECT_NEAR(std::stod(cell(g, 1, "TFLOPS/s_mean")), (100 + 1e-3 / 12e-6) / 2, 1e-9);
  EXPECT_EQ(cell(g, 1, "Compute Spec"), "vector_bf16");
  EXPECT_EQ(cell(g, 1, "process_name_first"), "Unknown");
  EXPECT_EQ(cell(g, 1, "Input Dims_first"), "");  // no shapes in this trace
  EXPECT_EQ(cell(g, 1, "kernel_details__summarize_kernel_stats"),
            "[{'name': 'gemm_a', 'stream': 7, 'count': 2, 'total_duration_us': 22.0, "
            "'mean_duration_us': 11.0, 'median_duration_us': 11.0, 'std_dev_duration_us': 1.0, "
            "'min_duration_us': 10.0, 'max_duration_us': 12.0}]");
  EXPECT_EQ(cell(g, 1, "trunc_kernel_details"),
            "[{'name': 'gemm_a', 'stream': 7, 'mean_duration_us': 11.0}]");
}

// --group_by_num_kernels: two addmm calls with the same parameters, one launching a second
// kernel, are one row by default and two rows keyed by num_kernels (after the param columns).
TEST(CategorySheets, GroupByNumKernelsSplitsRowsByKernelCount) {
  traceprism::testing::TraceText t;
  t.launch("aten::addmm", 100, 20, "gemm_a", 200, 10, 7, 1);
  t.launch("aten::addmm", 300, 20, "gemm_a", 400, 12, 7, 2);
  t.x("cuda_runtime", "cudaLaunchKernel", "310", "1", "{\"correlation\":3}");
  t.x("kernel", "bias_add", "415", "3", "{\"correlation\":3,\"stream\":7,\"device\":0}", "0", "7");
  t.flow(3, "310", "415", 7);
  {
    Sheets s(t.str());
    s.answer("aten::addmm", gemm("141"));
    const Csv g = s.build()["GEMM"];
    ASSERT_EQ(g.rows.size(), 1u);
    EXPECT_EQ(g.column("num_kernels"), g.header.size());
    EXPECT_EQ(cell(g, 0, "name_count"), "2");
  }
  Sheets s(t.str());
  s.answer("aten::addmm", gemm("141"));
  const Csv g = s.build(nullptr, true)["GEMM"];
  ASSERT_EQ(g.rows.size(), 2u);
  EXPECT_EQ(g.header.at(g.column("param: stride_A") + 1), "num_kernels");
  EXPECT_EQ(cell(g, 0, "num_kernels"), "2");  // 12 + 3 µs first
  EXPECT_EQ(cell(g, 0, "Kernel Time (µs)_sum"), "15.0");
  EXPECT_EQ(cell(g, 0, "name_count"), "1");
  EXPECT_EQ(cell(g, 1, "num_kernels"), "1");
  EXPECT_EQ(cell(g, 1, "Kernel Time (µs)_sum"), "10.0");
}

TEST(CategorySheets, NestedOpsAreRowsAndParamColumnsFollowPandas) {
  Sheets s(forward_trace());
  // layer_norm: no output_mask key (missing -> "nan"); num_channels int in one row and float
  // in the other -> a float64 column ("16.0"); stride_output None -> empty.
  s.answer("aten::layer_norm", modelled("NORM_fwd", "Normalization", 10, 20,
                                        {{"num_channels", "16"}, {"stride_output", "None"}}));
  s.answer("aten::native_layer_norm", modelled("NORM_fwd", "Normalization", 10, 20,
                                               {{"num_channels", "4.0"},
                                                {"stride_output", "None"},
                                                {"output_mask", "[True]"},
                                                {"kind", "'rms'"}}));
  auto sheets = s.build();
  ASSERT_EQ(s.order, std::vector<std::string>{"Normalization"});
  const Csv& n = sheets["Normalization"];
  ASSERT_EQ(n.rows.size(), 2u);
  // Same kernel time (8 µs): UID order, the outer op first.
  EXPECT_EQ(cell(n, 0, "name"), "aten::layer_norm");
  EXPECT_EQ(cell(n, 0, "param: num_channels"), "16.0");
  EXPECT_EQ(cell(n, 0, "param: stride_output"), "");
  EXPECT_EQ(cell(n, 0, "param: output_mask"), "nan");
  EXPECT_EQ(cell(n, 1, "param: num_channels"), "4.0");
  EXPECT_EQ(cell(n, 1, "param: output_mask"), "[True]");
  EXPECT_EQ(cell(n, 1, "param: kind"), "rms");  // str() of a string drops the quotes
  EXPECT_EQ(cell(n, 0, "Kernel Time (µs)_sum"), cell(n, 1, "Kernel Time (µs)_sum"));
}

TEST(CategorySheets, FailedAndCategoryOnlyRowsAreLeftOut) {
  Sheets s(forward_trace());
  s.answer("aten::addmm", gemm("141"), 0);
  Answer failed = gemm("141");
  failed.status = OpWorkStatus::kFailed;
  s.answer("aten::addmm", failed, 1);
  Answer not_modelled = gemm("141");
  not_modelled.status = OpWorkStatus::kNotModelled;
  s.answer("aten::addmm", not_modelled, 2);
  s.answer("aten::layer_norm", category_only(modelled("NORM_fwd", "Normalization", 1, 1)));
  s.answer("aten::native_layer_norm", modelled("triton", "", 1, 1));
  auto sheets = s.build();
  ASSERT_EQ(s.order, std::vector<std::string>{"GEMM"});
  EXPECT_EQ(sheets["GEMM"].rows.size(), 1u);
  EXPECT_EQ(cell(sheets["GEMM"], 0, "name_count"), "1");
}

// Forward ops with autograd-linked backward nodes: SDPA gets _fwd and _bwd sheets; CONV's
// convolution_backward rows move to CONV_bwd and convolution's backward rows are dropped.
std::string training_trace() {
  traceprism::testing::TraceText t;
  auto bwd = [&](const std::string& node, int seq, int ts, const std::string& kernel, int corr) {
    t.x("cpu_op", "autograd::engine::evaluate_function: " + node, std::to_string(ts), "100",
        "{\"Sequence number\":" + std::to_string(seq) + "}", "100", "200");
    t.x("cuda_runtime", "cudaLaunchKernel", std::to_string(ts + 10), "2",
        "{\"correlation\":" + std::to_string(corr) + "}", "100", "200");
    t.x("kernel", kernel, std::to_string(ts + 50), "20",
        "{\"correlation\":" + std::to_string(corr) + ",\"stream\":7,\"device\":0}", "0", "7");
    t.event("{\"ph\":\"s\",\"id\":" + std::to_string(corr) + ",\"pid\":100,\"tid\":200,\"ts\":" +
            std::to_string(ts + 10) + ",\"cat\":\"ac2g\",\"name\":\"ac2g\"}");
    t.event("{\"ph\":\"f\",\"id\":" + std::to_string(corr) + ",\"pid\":0,\"tid\":7,\"ts\":" +
            std::to_string(ts + 50) + ",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\"}");
  };
  t.x("cpu_op", "aten::_scaled_dot_product_flash_attention", "100", "20",
      "{\"Sequence number\":1}");
  t.x("cuda_runtime", "cudaLaunchKernel", "105", "2", "{\"correlation\":1}");
  t.x("kernel", "flash_fwd", "200", "10", "{\"correlation\":1,\"stream\":7,\"device\":0}", "0",
      "7");
  t.flow(1, "105", "200", 7);
  t.x("cpu_op", "aten::convolution", "300", "20", "{\"Sequence number\":2}");
  t.x("cuda_runtime", "cudaLaunchKernel", "305", "2", "{\"correlation\":2}");
  t.x("kernel", "conv_fwd", "400", "15", "{\"correlation\":2,\"stream\":7,\"device\":0}", "0", "7");
  t.flow(2, "305", "400", 7);
  bwd("ConvolutionBackward0", 2, 1000, "conv_bwd_kernel", 3);
  bwd("SdpaBackward0", 1, 2000, "flash_bwd", 4);
  t.launch("aten::convolution_backward", 3000, 20, "conv_bwd_direct", 3100, 5, 7, 5);
  return t.str();
}

TEST(CategorySheets, ForwardAndBackwardSheets) {
  Sheets s(training_trace());
  s.answer(
      "aten::_scaled_dot_product_flash_attention",
      with_backward(modelled("SDPA_fwd", "SDPA", 4e9, 2e6, {{"B", "1"}}), "SDPA_bwd", 10e9, 5e6));
  s.answer("aten::convolution",
           with_backward(modelled("CONV_fwd", "CONV", 1e9, 1e6, {{"convNd", "'conv2d'"}}),
                         "CONV_bwd", 2e9, 2e6));
  s.answer("aten::convolution_backward",
           modelled("CONV_bwd", "CONV", 3e9, 3e6, {{"convNd", "'conv2d'"}, {"grad", "True"}}));
  auto sheets = s.build();
  // CONV_bwd: aten::convolution's backward row is dropped, the forward-numbers row of
  // aten::convolution_backward is moved in (after the backward rows, its extra parameter
  // column appended).
  EXPECT_EQ(s.order, (std::vector<std::string>{"SDPA_fwd", "SDPA_bwd", "CONV_fwd", "CONV_bwd"}));
  const Csv& fwd = sheets["SDPA_fwd"];
  ASSERT_EQ(fwd.rows.size(), 1u);
  EXPECT_EQ(cell(fwd, 0, "Kernel Time (µs)_sum"), "10.0");
  EXPECT_EQ(cell(fwd, 0, "GFLOPS_first"), "4.0");
  const Csv& bwd = sheets["SDPA_bwd"];
  ASSERT_EQ(bwd.rows.size(), 1u);
  EXPECT_EQ(cell(bwd, 0, "name"), "aten::_scaled_dot_product_flash_attention");
  EXPECT_EQ(cell(bwd, 0, "GFLOPS_first"), "10.0");
  EXPECT_EQ(cell(bwd, 0, "Kernel Time (µs)_sum"), "20.0");  // the backward node's kernel
  EXPECT_NE(cell(bwd, 0, "kernel_details__summarize_kernel_stats").find("flash_bwd"),
            std::string::npos);
  const Csv& conv_fwd = sheets["CONV_fwd"];
  ASSERT_EQ(conv_fwd.rows.size(), 1u);
  EXPECT_EQ(cell(conv_fwd, 0, "name"), "aten::convolution");
  EXPECT_EQ(cell(conv_fwd, 0, "param: convNd"), "conv2d");
  const Csv& conv_bwd = sheets["CONV_bwd"];
  ASSERT_EQ(conv_bwd.rows.size(), 1u);
  EXPECT_EQ(cell(conv_bwd, 0, "name"), "aten::convolution_backward");
  EXPECT_EQ(cell(conv_bwd, 0, "GFLOPS_first"), "3.0");  // its own (forward) numbers
  EXPECT_EQ(cell(conv_bwd, 0, "param: grad"), "True");
  EXPECT_EQ(conv_bwd.column("param: grad"), conv_bwd.column("UID_first") + 1);
}

TEST(CategorySheets, InferenceTraceHasNoBackwardSheets) {
  Sheets s(forward_trace());
  s.answer("aten::addmm", with_backward(modelled("SDPA_fwd", "SDPA", 1, 1), "SDPA_bwd", 2, 2));
  s.build();
  EXPECT_EQ(s.order, std::vector<std::string>{"SDPA_fwd"});
}

TEST(CategorySheets, RooflineColumnsWhenAPlatformGivesPeaks) {
  Sheets s(forward_trace());
  s.answer("aten::addmm", gemm("141"));
  {
    auto plain = s.build();
    EXPECT_EQ(plain["GEMM"].column("Roofline Time (µs)_first"), plain["GEMM"].header.size());
  }
  traceprism::platform::PlatformInfo platform;
  platform.numbers["peak_tflops.vector_bf16"] = 100;
  platform.numbers["hbm_bandwidth_gbps"] = 1000;
  auto sheets = s.build(&platform);
  const Csv& g = sheets["GEMM"];
  // compute 1e9 / 100e12 s = 10 µs, memory 1e6 / 1e12 s = 1 µs: compute bound, 10 µs.
  const std::size_t spec = g.column("Compute Spec");
  EXPECT_EQ(g.column("Roofline Time (µs)_first"), spec + 1);
  EXPECT_EQ(g.column("Roofline Bound_first"), spec + 2);
  EXPECT_EQ(g.column("Pct Roofline_mean"), spec + 3);
  EXPECT_EQ(g.column("kernel_details__summarize_kernel_stats"), spec + 8);
  EXPECT_EQ(cell(g, 0, "Roofline Bound_first"), "COMPUTE_BOUND");
  EXPECT_EQ(cell(g, 0, "Roofline Time (µs)_first"), "10.0");
  // One group of three calls taking 10, 12 and 30 µs: 100 %, 83.3 % and 33.3 %.
  ASSERT_EQ(g.rows.size(), 1u);
  EXPECT_NEAR(std::stod(cell(g, 0, "Pct Roofline_mean")), (100 + 1000.0 / 12 + 1000.0 / 30) / 3,
              1e-9);
}

}  // namespace
