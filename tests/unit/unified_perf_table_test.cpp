// The unified perf table (trace-format spec §8.5) on small synthetic traces with op-model
// results filled in by hand: which events are collected, Synthetic Ops, the sole-backward
// rule, the per-row numbers and the summary sheet. Expected values are worked out in comments.
#include <gtest/gtest.h>

#include <cmath>

#include "model/forward_backward.hpp"
#include "perf_report/unified_perf_table.hpp"
#include "pipeline/trace_load.hpp"
#include "report/sheet_csv.hpp"
#include "support/csv.hpp"
#include "support/temp_dir.hpp"
#include "support/trace_builder.hpp"

using traceprism::index::EventKind;
using traceprism::index::Row;
using traceprism::model::OpWork;
using traceprism::model::OpWorkStatus;
using traceprism::model::OpWorkTable;
using traceprism::perf_report::UnifiedGroup;
using traceprism::perf_report::UnifiedPerfTable;

namespace {

// The §16 vector (same events as reference_vector_test.cpp).
std::string reference_vector() {
  traceprism::testing::TraceText t;
  auto gpu = [&](const std::string& cat, const std::string& name, int ts, int dur, int corr,
                 int stream) {
    t.x(cat, name, std::to_string(ts), std::to_string(dur),
        "{\"correlation\":" + std::to_string(corr) + ",\"stream\":" + std::to_string(stream) +
            ",\"device\":0}",
        "0", std::to_string(stream));
  };
  auto runtime = [&](const std::string& name, int ts, int corr) {
    t.x("cuda_runtime", name, std::to_string(ts), "1",
        "{\"correlation\":" + std::to_string(corr) + "}");
  };
  auto flow = [&](int corr, int host_ts, int gpu_ts, int stream) {
    t.flow(corr, std::to_string(host_ts), std::to_string(gpu_ts), stream);
  };
  t.x("cpu_op", "aten::mm", "1000", "100");
  runtime("cudaLaunchKernel", 1010, 10);
  gpu("kernel", "gemm_kernel_K1", 1200, 50, 10, 7);
  flow(10, 1010, 1200, 7);
  t.x("cpu_op", "aten::add", "1200", "50");
  runtime("cudaLaunchKernel", 1210, 11);
  gpu("kernel", "void at::native::vectorized_elementwise_kernel<add>", 1220, 40, 11, 8);
  flow(11, 1210, 1220, 8);
  t.x("cpu_op", "my::custom", "1300", "100");
  runtime("cudaLaunchKernel", 1310, 12);
  runtime("cudaLaunchKernel", 1320, 13);
  gpu("kernel", "kernA", 1400, 10, 12, 7);
  gpu("kernel", "kernB", 1405, 10, 13, 8);
  flow(12, 1310, 1400, 7);
  flow(13, 1320, 1405, 8);
  t.x("cuda_runtime", "cudaGraphLaunch", "1500", "5", "{\"correlation\":20}");
  gpu("kernel", "graphK1", 1600, 5, 20, 7);
  gpu("kernel", "graphK2", 1606, 5, 20, 7);
  t.x("cpu_op", "aten::copy_", "1700", "50");
  runtime("cudaMemcpyAsync", 1710, 30);
  gpu("gpu_memcpy", "Memcpy DtoD (Device -> Device)", 1760, 20, 30, 7);
  flow(30, 1710, 1760, 7);
  gpu("kernel", "unlinkedK", 1800, 10, 99, 7);
  t.x("cpu_op", "c10d::allreduce_", "1900", "20");
  runtime("cudaLaunchKernel", 1901, 40);
  gpu("kernel", "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 1900, 100, 40, 9);
  flow(40, 1901, 1900, 9);
  t.x("cpu_op", "aten::mul", "1910", "20");
  runtime("cudaLaunchKernel", 1915, 41);
  gpu("kernel", "void at::native::vectorized_elementwise_kernel<mul>", 1950, 20, 41, 7);
  flow(41, 1915, 1950, 7);
  t.x("cpu_op", "aten::fill_", "2100", "10");
  runtime("cudaLaunchKernel", 2101, 50);
  gpu("kernel", "fill_zero_dur", 2150, 0, 50, 7);
  flow(50, 2101, 2150, 7);
  return t.str();
}

// A trace loaded with everything the unified table reads, and an op-model table to fill.
class Loaded {
 public:
  explicit Loaded(const std::string& json) {
    traceprism::pipeline::LoadOptions options;
    options.quiet = true;
    session = traceprism::pipeline::load_trace(dir.write("t.json", json), options);
    fwd_bwd = traceprism::model::ForwardBackwardLinks::build(index());
    work.set_index(&index());
  }
  const traceprism::index::EventIndex& index() const { return session.file.index; }

  // One op-model answer for every row named `name`.
  void model(std::string_view name, const std::string& category, OpWorkStatus status,
             double flops = -1, double bytes = -1, const std::string& spec = "",
             std::vector<traceprism::model::OpParam> params = {}) {
    for (Row r : index().rows_of_kind(EventKind::kCpuOp)) {
      if (index().name(r) != name) continue;
      OpWork w;
      w.row = r;
      w.status = status;
      w.category = work.intern_text(category);
      w.compute_spec = work.intern_text(spec);
      w.params = work.intern_params(params);
      w.flops = flops;
      w.bytes = bytes;
      work.add(w);
    }
  }
  void backward_model(double flops_bwd, double bytes_bwd, const std::string& bwd_category) {
    // Adjusts the answers just added (before build()).
    pending_bwd = {flops_bwd, bytes_bwd};
    pending_bwd_category = bwd_category;
  }
  UnifiedPerfTable build(const traceprism::platform::PlatformInfo* platform = nullptr) {
    finish();
    traceprism::perf_report::UnifiedPerfInputs in;
    in.index = &index();
    in.tree = &session.tree;
    in.links = &session.links;
    in.fwd_bwd = &fwd_bwd;
    in.op_work = &work;
    in.platform = platform;
    return traceprism::perf_report::build_unified_perf_table(in);
  }
  void finish() {
    if (finished) return;
    finished = true;
    if (pending_bwd) {
      // OpWorkTable has no mutation API: rebuild it with the backward fields set.
      OpWorkTable rebuilt;
      rebuilt.set_index(&index());
      for (OpWork w : work.all()) {
        w.category = rebuilt.intern_text(work.text(w.category));
        w.compute_spec = rebuilt.intern_text(work.text(w.compute_spec));
        w.params = rebuilt.intern_params(work.params(w.params));
        w.bwd_category = rebuilt.intern_text(pending_bwd_category);
        w.bwd_status = OpWorkStatus::kModelled;
        w.flops_bwd = pending_bwd->first;
        w.bytes_bwd = pending_bwd->second;
        rebuilt.add(w);
      }
      work = std::move(rebuilt);
    }
    work.finish();
  }

  traceprism::testing::TempDir dir;
  traceprism::pipeline::TraceSession session;
  traceprism::model::ForwardBackwardLinks fwd_bwd;
  OpWorkTable work;
  std::optional<std::pair<double, double>> pending_bwd;
  std::string pending_bwd_category;
  bool finished = false;
};

const UnifiedGroup* group(const UnifiedPerfTable& t, std::string_view name) {
  for (const UnifiedGroup& g : t.groups)
    if (g.name == name) return &g;
  ADD_FAILURE() << "no group " << name;
  return nullptr;
}

TEST(UnifiedPerfTable, ReferenceVectorRowsAndOrder) {
  Loaded t(reference_vector());
  // aten::mm is modelled (GFLOPS 0.004194304, 0.21875 MiB); add and copy_ have models that
  // fail on the vector's shapeless args; fill_, my::custom, c10d::allreduce_ have none.
  t.model("aten::mm", "GEMM", OpWorkStatus::kModelled, 4194304, 229376, "matrix_bf16");
  t.model("aten::add", "elementwise", OpWorkStatus::kFailed);
  t.model("aten::mul", "elementwise", OpWorkStatus::kFailed);
  t.model("aten::copy_", "elementwise", OpWorkStatus::kFailed);
  const UnifiedPerfTable table = t.build();
  const std::size_t n = t.index().size();  // the first fresh UID
  // Kernel Time sums (reference): mm 50, add 40, copy_ 20, the mul Synthetic Op 20 (ex_UID
  // n+2), my::custom 15, graphK1 5 (n), graphK2 5 (n+1), fill_ 0. Ties by ex_UID.
  const std::vector<std::pair<std::string, double>> expected = {
      {"aten::mm", 50},
      {"aten::add", 40},
      {"aten::copy_", 20},
      {"c10d::allreduce_->void at::native::vectorized_elementwise_kernel<mul> (Synthetic Op)", 20},
      {"my::custom", 15},
      {"cudaGraphLaunch->graphK1 (Synthetic Op)", 5},
      {"cudaGraphLaunch->graphK2 (Synthetic Op)", 5},
      {"aten::fill_", 0}};
  ASSERT_EQ(table.groups.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(table.groups[i].name, expected[i].first) << i;
    EXPECT_NEAR(table.groups[i].kernel_time_sum_us, expected[i].second, 1e-9) << i;
  }
  EXPECT_EQ(table.groups[3].ex_uid, n + 2);
  EXPECT_EQ(table.groups[5].ex_uid, n);
  EXPECT_EQ(table.groups[6].ex_uid, n + 1);
  // Categories: registry for mm/add/copy_; the Synthetic Op copies c10d::allreduce_, whose
  // first direct kernel (NCCL excluded) is an at::native elementwise kernel.
  EXPECT_EQ(table.groups[0].category, "GEMM");
  EXPECT_EQ(table.groups[1].category, "elementwise");
  EXPECT_EQ(table.groups[3].category, "elementwise");
  EXPECT_EQ(table.groups[4].category, "other");
  EXPECT_EQ(table.groups[5].category, "other");
  // A failed model keeps the row, timed only, and counts as a model.
  EXPECT_TRUE(table.groups[1].has_perf_model);
  EXPECT_TRUE(std::isnan(table.groups[1].gflops));
  EXPECT_FALSE(table.groups[4].has_perf_model);
  // Percentages of 155 µs in all.
  EXPECT_NEAR(table.groups[0].percentage, 50.0 / 155 * 100, 1e-12);
  EXPECT_NEAR(table.groups.back().cumulative_percentage, 100, 1e-9);
}

TEST(UnifiedPerfTable, ReferenceVectorModelNumbers) {
  Loaded t(reference_vector());
  t.model("aten::mm", "GEMM", OpWorkStatus::kModelled, 4194304, 229376, "matrix_bf16",
          {{"M", "128"}, {"bias", "False"}, {"stride_A", "(128, 1)"}, {"dtype", "'float'"}});
  const UnifiedPerfTable table = t.build();
  const UnifiedGroup* mm = group(table, "aten::mm");
  ASSERT_TRUE(mm);
  EXPECT_NEAR(mm->gflops, 0.004194304, 1e-18);
  EXPECT_NEAR(mm->data_moved_mb, 0.21875, 1e-15);              // 229376 / 2^20
  EXPECT_NEAR(mm->flops_per_byte, 18.285714285714285, 1e-12);  // 4194304 / 229376
  EXPECT_NEAR(mm->tflops_per_s.mean, 0.08388608, 1e-15);       // 4.194304e-6 TFLOP / 50e-6 s
  EXPECT_NEAR(mm->tb_per_s.mean, 0.00458752, 1e-15);           // 229376e-12 TB / 50e-6 s
  EXPECT_TRUE(std::isnan(mm->tb_per_s.std));                   // one instance
  EXPECT_EQ(mm->compute_spec, "matrix_bf16");
  EXPECT_EQ(mm->perf_params, "{'M': 128, 'bias': False, 'stride_A': (128, 1), 'dtype': 'float'}");
  ASSERT_EQ(mm->kernel_summary.size(), 1u);
  EXPECT_EQ(mm->kernel_summary[0].name, "gemm_kernel_K1");
  EXPECT_EQ(mm->kernel_summary[0].stream, 7);
  EXPECT_TRUE(table.has_model_columns);
  EXPECT_FALSE(table.has_roofline_columns);
  // my::custom: both kernels in launch order, summarized by (total, name).
  const UnifiedGroup* custom = group(table, "my::custom");
  ASSERT_TRUE(custom);
  ASSERT_EQ(custom->kernel_summary.size(), 2u);
  EXPECT_EQ(custom->kernel_summary[0].name, "kernA");
  EXPECT_EQ(custom->kernel_summary[1].name, "kernB");
  EXPECT_EQ(custom->duration.mean, 100);
}

TEST(UnifiedPerfTable, NotImplementedDropsTheRowAndItsKernelsStayCovered) {
  Loaded t(reference_vector());
  t.model("aten::mm", "GEMM", OpWorkStatus::kNotModelled);
  const UnifiedPerfTable table = t.build();
  for (const UnifiedGroup& g : table.groups) {
    EXPECT_NE(g.name, "aten::mm");
    EXPECT_EQ(g.name.find("gemm_kernel_K1"), std::string::npos) << g.name;
  }
  EXPECT_EQ(table.groups.size(), 7u);
  EXPECT_FALSE(table.has_model_columns);
}

TEST(UnifiedPerfTable, CsvColumnsWithoutModelNumbers) {
  Loaded t(reference_vector());
  const std::string csv =
      traceprism::report::sheet_csv(traceprism::perf_report::unified_perf_summary_sheet(t.build()));
  const auto sheet = traceprism::testing::parse_csv(csv);
  const std::vector<std::string> expected = {"name",
                                             "op category",
                                             "process_name",
                                             "process_label",
                                             "thread_name",
                                             "Input Dims",
                                             "Input type",
                                             "Input Strides",
                                             "Concrete Inputs",
                                             "ex_UID",
                                             "operation_count",
                                             "total_duration_us",
                                             "mean_duration_us",
                                             "std_duration_us",
                                             "Kernel Time (µs)_mean",
                                             "Kernel Time (µs)_std",
                                             "Kernel Time (µs)_sum",
                                             "duration_us_median",
                                             "duration_us_min",
                                             "duration_us_max",
                                             "Kernel Time (µs)_median",
                                             "Kernel Time (µs)_min",
                                             "Kernel Time (µs)_max",
                                             "kernel_details_summary",
                                             "trunc_kernel_details",
                                             "perf_params",
                                             "has_perf_model",
                                             "Percentage (%)",
                                             "Cumulative Percentage (%)"};
  EXPECT_EQ(sheet.header, expected);
  ASSERT_EQ(sheet.rows.size(), 8u);
  EXPECT_EQ(sheet.rows[0][0], "aten::mm");
  EXPECT_EQ(sheet.rows[0][1], "other");    // no registry entry in this run
  EXPECT_EQ(sheet.rows[0][2], "Unknown");  // no process_name metadata
  EXPECT_EQ(sheet.rows[0][5], "");         // Input Dims None
  EXPECT_EQ(sheet.rows[0][16], "50.0");    // Kernel Time sum
  EXPECT_EQ(sheet.rows[0][26], "False");
}

TEST(UnifiedPerfTable, CsvRooflineColumnsFollowTheGoldenRule) {
  Loaded t(reference_vector());
  t.model("aten::mm", "GEMM", OpWorkStatus::kModelled, 4194304, 229376, "matrix_bf16");
  traceprism::platform::PlatformInfo platform;
  platform.numbers["peak_tflops.matrix_bf16"] = 1000;
  platform.numbers["hbm_bandwidth_gbps"] = 4000;
  const UnifiedPerfTable table = t.build(&platform);
  ASSERT_TRUE(table.has_roofline_columns);
  const UnifiedGroup* mm = group(table, "aten::mm");
  // compute 4194304 / 1e15 s = 0.004194304 µs; memory 229376 / 4e12 s = 0.057344 µs.
  EXPECT_EQ(mm->roofline_bound, "MEMORY_BOUND");
  EXPECT_NEAR(mm->roofline_time_us, 0.057344, 1e-15);
  EXPECT_NEAR(mm->pct_roofline.mean, 0.057344 / 50 * 100, 1e-12);
  const auto sheet = traceprism::testing::parse_csv(
      traceprism::report::sheet_csv(traceprism::perf_report::unified_perf_summary_sheet(table)));
  auto at = [&](const std::string& c) { return sheet.column(c); };
  EXPECT_EQ(at("Roofline Bound"), at("Compute Spec") + 1);
  EXPECT_EQ(at("TB/s_mean"), at("Roofline Bound") + 1);
  EXPECT_EQ(at("Roofline Time (µs)_first"), at("TFLOPS/s_max") + 1);
  EXPECT_EQ(at("Pct Roofline_mean"), at("Roofline Time (µs)_first") + 1);
  EXPECT_EQ(at("Kernel Time (µs)_median"), at("Pct Roofline_max") + 1);
  EXPECT_EQ(sheet.rows[0][at("Roofline Bound")], "MEMORY_BOUND");
  // Rows without a model have no roofline: empty cells.
  EXPECT_EQ(sheet.rows[1][at("Roofline Bound")], "");
}

// Op nesting: the outermost op with a model is collected with its whole subtree's kernels;
// an op without a model is walked through to the modelled op below it.
std::string nested_trace() {
  traceprism::testing::TraceText t;
  t.x("cpu_op", "aten::linear", "100", "50");
  t.launch("aten::addmm", 105, 40, "gemm", 200, 10, 7, 1);
  t.x("cpu_op", "aten::layer_norm", "300", "50");
  t.launch("aten::native_layer_norm", 305, 40, "ln_kernel", 400, 8, 7, 2);
  // A leaf without a model that launches a collective: dropped.
  t.launch("c10d::broadcast_", 500, 10, "ncclKernel_Broadcast", 600, 30, 9, 3);
  return t.str();
}

TEST(UnifiedPerfTable, CollectsTheOutermostModelledOp) {
  Loaded t(nested_trace());
  t.model("aten::addmm", "GEMM", OpWorkStatus::kModelled, 100, 10);
  t.model("aten::layer_norm", "NORM_fwd", OpWorkStatus::kModelled, 10, 10);
  t.model("aten::native_layer_norm", "NORM_fwd", OpWorkStatus::kModelled, 10, 10);
  const UnifiedPerfTable table = t.build();
  ASSERT_EQ(table.rows.size(), 2u);
  EXPECT_EQ(table.rows[0].name, "aten::addmm");
  EXPECT_EQ(table.rows[1].name, "aten::layer_norm");
  EXPECT_NEAR(table.rows[1].kernel_time_us, 8, 1e-9);
  // The NCCL kernel is communication: no Synthetic Op for it either.
  for (const auto& r : table.rows) EXPECT_EQ(r.name.find("nccl"), std::string::npos);
}

// cuLaunchKernel (cuda_driver) below an op does not make it a leaf: its kernel becomes a
// Synthetic Op of the op.
TEST(UnifiedPerfTable, DriverLaunchesMakeSyntheticOps) {
  traceprism::testing::TraceText t;
  t.x("cpu_op", "my::op", "100", "50");
  t.x("cuda_driver", "cuLaunchKernel", "110", "2", "{\"correlation\":5}");
  t.x("kernel", "custom_kernel", "200", "10", "{\"correlation\":5,\"stream\":7,\"device\":0}", "0",
      "7");
  t.flow(5, "110", "200", 7);
  Loaded l(t.str());
  const UnifiedPerfTable table = l.build();
  ASSERT_EQ(table.rows.size(), 1u);
  EXPECT_TRUE(table.rows[0].synthetic);
  EXPECT_EQ(table.rows[0].name, "my::op->custom_kernel (Synthetic Op)");
  EXPECT_EQ(table.rows[0].uid, l.index().size());
  EXPECT_EQ(table.rows[0].duration_us, 50);  // the copied op's dur
}

// Training: the autograd wrapper of aten::foo (Sequence number 5) holds one kernel-launching
// op named after it, so that op shows aten::foo's backward numbers.
std::string backward_trace() {
  traceprism::testing::TraceText t;
  t.x("cpu_op", "aten::foo", "100", "50", "{\"Sequence number\":5}");
  t.x("cuda_runtime", "cudaLaunchKernel", "110", "2", "{\"correlation\":1}");
  t.x("kernel", "foo_fwd", "200", "10", "{\"correlation\":1,\"stream\":7,\"device\":0}", "0", "7");
  t.flow(1, "110", "200", 7);
  t.x("cpu_op", "autograd::engine::evaluate_function: FooBackward0", "1000", "100",
      "{\"Sequence number\":5}", "100", "200");
  t.x("cpu_op", "FooBackward0", "1010", "80", "{}", "100", "200");
  t.x("cpu_op", "aten::foo_backward_impl", "1020", "60", "{}", "100", "200");
  t.x("cuda_runtime", "cudaLaunchKernel", "1030", "2", "{\"correlation\":2}", "100", "200");
  t.x("kernel", "foo_bwd", "1100", "25", "{\"correlation\":2,\"stream\":7,\"device\":0}", "0", "7");
  t.event(
      "{\"ph\":\"s\",\"id\":2,\"pid\":100,\"tid\":200,\"ts\":1030,\"cat\":\"ac2g\",\"name\":"
      "\"ac2g\"}");
  t.event(
      "{\"ph\":\"f\",\"id\":2,\"pid\":0,\"tid\":7,\"ts\":1100,\"cat\":\"ac2g\",\"name\":\"ac2g\","
      "\"bp\":\"e\"}");
  return t.str();
}

TEST(UnifiedPerfTable, SoleBackwardUsesTheForwardModelsBackwardNumbers) {
  Loaded t(backward_trace());
  t.model("aten::foo", "FOO_fwd", OpWorkStatus::kModelled, 2e9, 1e6, "vector_fp32");
  t.backward_model(4e9, 3e6, "FOO_bwd");
  const UnifiedPerfTable table = t.build();
  ASSERT_EQ(table.rows.size(), 2u);
  const auto& bwd = table.rows[1];
  EXPECT_EQ(bwd.name, "FooBackward0");
  EXPECT_TRUE(bwd.sole_backward);
  EXPECT_TRUE(bwd.has_perf_model);
  EXPECT_EQ(bwd.category, "FOO_bwd");
  ASSERT_TRUE(bwd.metrics);
  EXPECT_NEAR(bwd.metrics->gflops, 4, 1e-12);
  EXPECT_NEAR(bwd.kernel_time_us, 25, 1e-9);  // the wrapper's kernels
  EXPECT_NEAR(bwd.metrics->tflops_per_s, 4e-3 / 25e-6, 1e-9);
}

TEST(UnifiedPerfTable, NoBackwardModelMeansALeafOp) {
  Loaded t(backward_trace());
  t.model("aten::foo", "FOO_fwd", OpWorkStatus::kModelled, 2e9, 1e6, "vector_fp32");
  const UnifiedPerfTable table = t.build();
  ASSERT_EQ(table.rows.size(), 2u);
  EXPECT_EQ(table.rows[1].name, "aten::foo_backward_impl");
  EXPECT_FALSE(table.rows[1].has_perf_model);
  EXPECT_EQ(table.rows[1].category, "other");
}

TEST(UnifiedPerfTable, GpuOnlyTraceHasNoTable) {
  traceprism::testing::TraceText t;
  t.x("kernel", "k", "100", "10", "{\"stream\":7,\"device\":0}", "0", "7");
  Loaded l(t.str());
  const UnifiedPerfTable table = l.build();
  EXPECT_TRUE(table.rows.empty());
  EXPECT_EQ(
      traceprism::report::sheet_csv(traceprism::perf_report::unified_perf_summary_sheet(table)),
      "\n");
}

}  // namespace
