// The compute-tier engine's building blocks (plugins/common): the Python-literal reader, args
// rendering, library attribution, numpy's pairwise sum, the category key and skill map, and the
// engine on small hand-made sheets (impact ladder, anomaly and fusion rules, the group floor,
// comparative efficiency, finding keys in the reference's tie order); then the analyzers
// themselves (gemm-efficiency, triton-efficiency, generic-ops) on the SDK's fake host, with the
// op metrics (ABI 1.5) built by the host's OpMetricsTable from sheets made here. The whole
// reference comparison is tests/golden/compute_category_golden_test.cpp.
//
// The engine's sources are compiled into this test.
#include <gtest/gtest.h>

#include <traceprism/python_literal.hpp>
#include <traceprism/testing.hpp>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "../../plugins/common/compute_analyzer.cpp"
#include "../../plugins/common/compute_category.cpp"
#include "../../plugins/common/compute_classify.cpp"
#include "../../plugins/common/compute_impact.cpp"
#include "../../plugins/common/compute_prose.cpp"
#include "plugins/op_metrics_table.hpp"
#include "support/csv_rows.hpp"

namespace tc = traceprism::plugins::compute;

namespace {

// A unified_perf_summary sheet held in memory: its cells as the CSV would hold them.
class MemorySheet {
 public:
  MemorySheet(std::vector<std::string> columns, std::vector<std::vector<std::string>> rows) {
    csv_.header = std::move(columns);
    csv_.rows = std::move(rows);
    for (auto& row : csv_.rows) row.resize(csv_.header.size());
  }
  const traceprism::testing::Csv& csv() const { return csv_; }
  // The engine's rows of the sheet.
  tc::OpTable ops() const { return traceprism::testing::op_table_from_csv(csv_); }

 private:
  traceprism::testing::Csv csv_;
};

const std::vector<std::string> kColumns = {"name",
                                           "op category",
                                           "Input Dims",
                                           "Input type",
                                           "ex_UID",
                                           "operation_count",
                                           "Kernel Time (\xC2\xB5s)_sum",
                                           "FLOPS/Byte",
                                           "Compute Spec",
                                           "Roofline Bound",
                                           "TFLOPS/s_mean",
                                           "TB/s_mean",
                                           "Pct Roofline_mean",
                                           "kernel_details_summary"};

// One row: name, category, kernel time (µs), Pct Roofline ("" for no model), bound.
std::vector<std::string> op_row(std::string name, std::string category, std::string kernel_us,
                                std::string pct, std::string bound = "COMPUTE_BOUND",
                                std::string kernels = "[{'name': 'Cijk_Ailk_Bljk'}]") {
  return {std::move(name),
          std::move(category),
          "((256, 512), (512, 128))",
          "('c10::BFloat16', 'c10::BFloat16')",
          "3",
          "10",
          std::move(kernel_us),
          "170.5",
          "matrix_bf16",
          std::move(bound),
          "31.5",
          "0.19",
          std::move(pct),
          std::move(kernels)};
}

tc::Peaks mi300x() {
  tc::Peaks p;
  p.tflops = {{"matrix_bf16", 708}, {"vector_bf16", 163}};
  p.hbm_tbs = 5.3;
  return p;
}

tc::CategoryMetrics run(const MemorySheet& s, const std::string& category, double e2e_ms,
                        tc::Scope scope = tc::Scope::kStandalone) {
  const tc::OpTable ops = s.ops();
  tc::Inputs in;
  in.ops = &ops;
  in.e2e_ms = e2e_ms;
  in.peaks = mi300x();
  in.scope = scope;
  return tc::analyze_category(in, category, category);
}

TEST(ComputePythonLiteral, ReadsTheReportsCells) {
  auto v = traceprism::parse_python_literal("((256, 131072), (131072,), ())");
  ASSERT_TRUE(v);
  ASSERT_EQ(v->items.size(), 3u);
  EXPECT_EQ(v->items[1].items.size(), 1u);
  EXPECT_EQ(v->items[1].str(), "(131072,)");
  auto d = traceprism::parse_python_literal(
      "{'M': 256, 'bias': False, 'stride_A': None, 'dtype': ('c10::BFloat16', 'float'), "
      "'mean': np.float64(4.5), 'name': \"it's\"}");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->get("M")->number, 256);
  EXPECT_FALSE(d->get("bias")->boolean);
  EXPECT_EQ(d->get("stride_A")->type, traceprism::PyValue::Type::kNone);
  EXPECT_EQ(d->get("mean")->number, 4.5);
  EXPECT_EQ(d->get("name")->text, "it's");
  EXPECT_FALSE(traceprism::parse_python_literal("((1, 2)"));
  EXPECT_FALSE(traceprism::parse_python_literal(""));
}

TEST(ComputeRenderArgs, FollowsTheReferenceFormat) {
  EXPECT_EQ(
      tc::render_shape_args("((256, 131072), (131072, 512))", "('c10::BFloat16', 'c10::BFloat16')"),
      "(256,131072) bf16<br>(131072,512) bf16");
  EXPECT_EQ(tc::render_shape_args("((128,), ())", "('c10::BFloat16', 'Scalar')"), "(128,) bf16");
  // ScalarList slots stay, '' and Scalar slots go, double maps to fp64, unknown dtypes pass.
  EXPECT_EQ(tc::render_shape_args("((4, 8), (), (), ())", "('Float', 'ScalarList', '', 'Scalar')"),
            "(4,8) fp32<br>() ScalarList");
  EXPECT_EQ(tc::render_shape_args("((8, 12), ())", "('c10::BFloat16', 'double')"),
            "(8,12) bf16<br>() fp64");
  EXPECT_EQ(tc::render_shape_args("((2, 2),)", "('long int',)"), "(2,2) long int");
  EXPECT_EQ(tc::render_shape_args("None", "None"), "");
  EXPECT_EQ(tc::render_shape_args("", ""), "");
}

TEST(ComputeLibrary, OpNameRulesFirstThenKernelRules) {
  EXPECT_EQ(tc::library_of("aiter::fmha_fwd", "void at::native::x"), "AITER");
  EXPECT_EQ(tc::library_of("vllm::rocm_aiter_fused_moe", ""), "AITER");
  EXPECT_EQ(tc::library_of("triton_poi_fused_add_0", ""), "Triton");
  EXPECT_EQ(tc::library_of("aten::mm", "[{'name': 'Cijk_Ailk_Bljk_BBS'}]"), "Tensile");
  EXPECT_EQ(tc::library_of("aten::add", "[{'name': 'void at::native::vectorized'}]"),
            "PyTorch Native");
  EXPECT_FALSE(tc::library_of("aten::mm", "[{'name': 'sm90_xmma_gemm'}]"));
}

TEST(ComputePairwiseSum, MatchesNumpysOrder) {
  EXPECT_EQ(tc::pairwise_sum({}), 0.0);
  EXPECT_EQ(tc::pairwise_sum({0.1, 0.2, 0.3}), (0.0 + 0.1 + 0.2) + 0.3);
  std::vector<double> a = {1e16, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  // Eight partial sums combined as a tree, then the remainder in order.
  const double expected =
      ((((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]))) + a[8]) + a[9];
  EXPECT_EQ(tc::pairwise_sum(a), expected);
}

TEST(ComputeCategories, KeyAndSkillMap) {
  EXPECT_EQ(tc::category_key("GEMM"), "gemm");
  EXPECT_EQ(tc::category_key("CONV_fwd"), "conv_fwd");
  EXPECT_EQ(tc::category_key("Group Quant/x"), "group_quant_x");
  EXPECT_EQ(tc::category_key(""), "other");
  EXPECT_EQ(tc::family_of("groupedgemm_bwd"), tc::Family::kGemm);
  EXPECT_EQ(tc::family_of("inferenceattention"), tc::Family::kSdpa);
  EXPECT_EQ(tc::family_of("rmsnorm"), tc::Family::kNorm);
  EXPECT_EQ(tc::family_of("moe_unfused"), tc::Family::kMoe);
  EXPECT_EQ(tc::family_of("moe_aux"), tc::Family::kGeneric);
  EXPECT_EQ(tc::family_of("multi_tensor_apply"), tc::Family::kGeneric);
  EXPECT_EQ(tc::eff_bucket(29.99), "0-30");
  EXPECT_EQ(tc::eff_bucket(30.0), "30-60");
  EXPECT_EQ(tc::eff_bucket(60.0), "60-100");
  EXPECT_EQ(tc::eff_bucket(std::nullopt), "unknown");
}

// gemm_01 of the reference's unit cases: 4.46% efficiency over the whole 10.89 ms.
TEST(ComputeEngine, QuantifiedFindingOfOneGemm) {
  const MemorySheet s(kColumns, {op_row("aten::mm", "GEMM", "10890", "4.456451900923845")});
  const tc::CategoryMetrics m = run(s, "gemm", 10.89);
  ASSERT_EQ(m.operations.size(), 1u);
  EXPECT_EQ(m.operations[0].args, "(256,512) bf16<br>(512,128) bf16");
  EXPECT_EQ(m.operations[0].library, "Tensile");
  EXPECT_EQ(m.operations[0].launcher_path, "Tensile (vendor)");
  ASSERT_EQ(m.findings.size(), 1u);
  const tc::CategoryFinding& f = m.findings[0];
  EXPECT_EQ(f.bound_type, "compute");
  EXPECT_EQ(f.library, "Tensile");
  EXPECT_EQ(f.eff_bucket, "0-30");
  EXPECT_DOUBLE_EQ(f.impact, 83.6);
  EXPECT_DOUBLE_EQ(f.low, 71.66);
  EXPECT_DOUBLE_EQ(f.high, 95.54);
  const tc::FindingText text = tc::finding_text(m, f);
  EXPECT_EQ(text.title, "Compute-bound BF16 GEMMs far below roofline (<30%)");
  EXPECT_NE(text.insight.find("10.89 ms"), std::string::npos) << text.insight;
  EXPECT_NE(text.insight.find("4.46%"), std::string::npos) << text.insight;
}

TEST(ComputeEngine, NoFindingAtRooflineOrUnderTheFloor) {
  // 100 < eff <= 110: zero gap, no estimate (quirk 18); a tiny op: under the 0.5 floor.
  const MemorySheet s(kColumns, {op_row("aten::mm", "GEMM", "1000", "105"),
                                 op_row("aten::addmm", "GEMM", "5", "10")});
  const tc::CategoryMetrics m = run(s, "gemm", 10);
  EXPECT_EQ(m.estimates.size(), 1u);
  EXPECT_TRUE(m.findings.empty());
}

TEST(ComputeEngine, AnomalyAndMissingModelGoHeuristic) {
  const MemorySheet s(kColumns, {op_row("aten::mm", "GEMM", "2000", "150"),
                                 op_row("vllm::fused_moe", "", "6000", "", "")});
  const tc::CategoryMetrics gemm = run(s, "gemm", 10);
  ASSERT_EQ(gemm.findings.size(), 1u);
  EXPECT_TRUE(gemm.operations[0].efficiency.is_anomaly);
  EXPECT_TRUE(gemm.findings[0].heuristic);
  EXPECT_DOUBLE_EQ(gemm.findings[0].impact, 6.0);  // 30% of its 20% share
  const tc::CategoryMetrics other = run(s, "other", 10);
  ASSERT_EQ(other.findings.size(), 1u);
  EXPECT_EQ(other.findings[0].bound_type, "unmodeled");
  EXPECT_DOUBLE_EQ(other.findings[0].high, 27.0);
  EXPECT_EQ(other.operations[0].classification.sub_category, "miscellaneous");
}

TEST(ComputeEngine, WithoutRooflineColumnsModelledOpsGetNoHeuristic) {
  // A run without platform peaks: no Pct Roofline column. A modelled op's efficiency is unknown
  // (no estimate); an op without a model still gets the heuristic one.
  const MemorySheet s(
      {"name", "op category", "Kernel Time (\xC2\xB5s)_sum", "has_perf_model"},
      {{"aten::mm", "GEMM", "4000", "True"}, {"aten::cat", "GEMM", "2000", "False"}});
  const tc::CategoryMetrics m = run(s, "gemm", 10);
  ASSERT_EQ(m.estimates.size(), 1u);
  EXPECT_EQ(m.estimates[0].operation, "aten::cat");
  EXPECT_TRUE(m.estimates[0].heuristic);
}

TEST(ComputeEngine, FusionFlaggedOpsGetNoEstimate) {
  const MemorySheet s(kColumns, {op_row("aten::mm", "GEMM", "5000", "10")});
  const tc::OpTable ops = s.ops();
  tc::Inputs in;
  in.ops = &ops;
  in.e2e_ms = 10;
  in.peaks = mi300x();
  in.fusion_kernel_map = {{"Cijk_Ailk_Bljk_BBS_BH_MT256", "mlp"}};  // prefix match either way
  const tc::CategoryMetrics m = tc::analyze_category(in, "gemm", "GEMM");
  EXPECT_TRUE(m.operations[0].fusion_flagged);
  EXPECT_EQ(m.operations[0].fusion_candidate_name, "mlp");
  EXPECT_TRUE(m.estimates.empty());
}

TEST(ComputeEngine, CommunicationOpsLeaveOther) {
  const MemorySheet s(
      kColumns, {op_row("c10d::allgather_", "", "100", ""), op_row("aten::cat", "", "900", "")});
  const tc::CategoryMetrics m = run(s, "other", 1);
  ASSERT_EQ(m.operations.size(), 1u);
  EXPECT_EQ(m.skipped_communication_ops, std::vector<std::string>{"c10d::allgather_"});
  EXPECT_DOUBLE_EQ(m.total_time_ms, 0.9);
}

TEST(ComputeEngine, ComparativeEfficiencyIsClampedToTheRoofline) {
  std::vector<std::string> columns = kColumns;
  columns.push_back("delta_us (trace2 - trace1)");
  std::vector<std::string> row = op_row("aten::convolution", "CONV_fwd", "2000", "2.0904");
  row.push_back("-1960");
  const MemorySheet s(columns, {row});
  const tc::CategoryMetrics m = run(s, "conv_fwd", 2, tc::Scope::kComparative);
  EXPECT_DOUBLE_EQ(*m.operations[0].efficiency.efficiency_percent, 2.09);
  EXPECT_EQ(m.operations[0].efficiency.warning.rfind("[ROOFLINE CAP]", 0), 0u);
  ASSERT_EQ(m.findings.size(), 1u);
  EXPECT_EQ(m.findings[0].eff_bucket, "all");
}

TEST(ComputeEngine, PriorityOrderBreaksTiesByMetricsFileName) {
  const MemorySheet s(kColumns,
                      {op_row("aten::mm", "GEMM", "1000", "50"),
                       op_row("aten::layer_norm", "NORM_fwd", "1000", "50", "MEMORY_BOUND"),
                       op_row("aten::rms_norm", "NORM", "1000", "50", "MEMORY_BOUND")});
  std::vector<tc::CategoryMetrics> all = {run(s, "norm_fwd", 10), run(s, "gemm", 10),
                                          run(s, "norm", 10)};
  const std::vector<tc::RankedFinding> order = tc::priority_order(all);
  ASSERT_EQ(order.size(), 3u);
  EXPECT_EQ(order[0].metrics->category, "gemm");
  EXPECT_EQ(order[1].metrics->category, "norm_fwd");  // "norm_fwd_metrics" < "norm_metrics"
  EXPECT_EQ(order[2].metrics->category, "norm");
  // The finding keys sort the same way, so the host's (analyzer, key) tie order agrees.
  EXPECT_LT(tc::finding_key(all[0], all[0].findings[0]),
            tc::finding_key(all[2], all[2].findings[0]));
  EXPECT_EQ(tc::finding_key(all[1], all[1].findings[0]), "gemm_metrics#001");
}

// ---- The analyzers on the fake host ----

using GemmEfficiency = tc::FamilyAnalyzer<tc::Family::kGemm>;
using TritonEfficiency = tc::FamilyAnalyzer<tc::Family::kTriton, false>;
using GenericOps = tc::FamilyAnalyzer<tc::Family::kGeneric>;

template <class T>
traceprism::testing::RunResult run_analyzer(const traceprism::testing::FakeTrace& trace,
                                            const char* name) {
  return traceprism::testing::run(trace, traceprism::analyzer<T>(name, ""));
}

class ComputeAnalyzers : public ::testing::Test {
 protected:
  ComputeAnalyzers() {
    for (int i = 0; i < 4; ++i) trace_.cpu_op("aten::mm", i * 10.0, 5);  // ex_UID 3 is a row
    trace_.set_platform_number("achievable_tflops.matrix_bf16", 708);
    trace_.set_platform_number("achievable_hbm_bandwidth_gbps", 5300);
  }
  // Serves the sheet as the host does (its OpMetricsTable), with gpu_timeline's 10.89 ms.
  void serve_unified(const MemorySheet& s) {
    metrics_ = std::make_unique<traceprism::plugins::OpMetricsTable>(
        traceprism::testing::unified_table_from_csv(s.csv()), 10.89);
    trace_.set_op_metrics(metrics_->view());
  }

  traceprism::testing::FakeTrace trace_;
  std::unique_ptr<traceprism::plugins::OpMetricsTable> metrics_;
};

TEST_F(ComputeAnalyzers, GemmEfficiencyReportsTheGemmPItem) {
  const MemorySheet unified(kColumns, {op_row("aten::mm", "GEMM", "10890", "4.456451900923845")});
  serve_unified(unified);
  const auto r = run_analyzer<GemmEfficiency>(trace_, "gemm-efficiency");
  ASSERT_EQ(r.status, traceprism::Status::kOk) << r.error;
  ASSERT_EQ(r.findings.size(), 1u);
  const auto& f = r.findings[0];
  EXPECT_EQ(f.category, "gemm");
  EXPECT_EQ(f.key, "gemm_metrics#001");
  EXPECT_EQ(f.title, "Compute-bound BF16 GEMMs far below roofline (<30%)");
  EXPECT_EQ(f.library, "Tensile");
  EXPECT_EQ(f.impact_kind, TRACEPRISM_IMPACT_QUANTIFIED);
  EXPECT_DOUBLE_EQ(f.impact_low, 71.66);
  EXPECT_DOUBLE_EQ(f.impact_mid, 83.6);
  EXPECT_DOUBLE_EQ(f.impact_high, 95.54);
  EXPECT_EQ(f.rows, std::vector<traceprism::Row>{3});
  ASSERT_EQ(f.tables.size(), 1u);
  const std::vector<std::string> columns = {"Operation",  "Args", "Kernel Path", "Kernel Name",
                                            "Time (ms)",  "%E2E", "Count",       "FLOPS/Byte",
                                            "Efficiency", "Bound"};
  EXPECT_EQ(f.tables[0].columns, columns);
  ASSERT_EQ(f.tables[0].rows.size(), 1u);
  EXPECT_EQ(f.tables[0].rows[0][1], "(256,512) bf16<br>(512,128) bf16");
  EXPECT_EQ(f.tables[0].rows[0][4], "10.89");
  EXPECT_EQ(f.tables[0].rows[0][5], "100.0");
  EXPECT_EQ(f.tables[0].rows[0][8], "4.46% of 708 TFLOPS");
  EXPECT_EQ(f.tables[0].rows[0][9], "compute-bound");
  EXPECT_DOUBLE_EQ(r.figure("gemm.total_time_ms"), 10.89);
  EXPECT_DOUBLE_EQ(r.figure("gemm.impact_score"), 83.6);
  EXPECT_DOUBLE_EQ(r.figure("gemm.category_specific.peak_maf_tflops"), 708);
}

// ABI 1.10: with the host's call stacks, the Kernel Path is the source line the op is called
// from (the reference agent's launcher_path), not the library.
TEST_F(ComputeAnalyzers, KernelPathIsTheEntryPointWhenTheHostHasCallStacks) {
  const MemorySheet unified(kColumns, {op_row("aten::mm", "GEMM", "10890", "4.456451900923845")});
  auto table = traceprism::testing::unified_table_from_csv(unified.csv());
  table.has_call_stack_columns = true;
  table.groups.at(0).entry_point = "model.py(40): forward";
  table.groups.at(0).call_stack_full = "['model.py(40): forward', 'aten::mm', 'Cijk_Ailk_Bljk']";
  metrics_ = std::make_unique<traceprism::plugins::OpMetricsTable>(std::move(table), 10.89);
  trace_.set_op_metrics(metrics_->view());
  const traceprism::OpMetrics view(metrics_->view());
  EXPECT_EQ(view.entry_point(0), "model.py(40): forward");
  const auto r = run_analyzer<GemmEfficiency>(trace_, "gemm-efficiency");
  ASSERT_EQ(r.status, traceprism::Status::kOk) << r.error;
  ASSERT_EQ(r.findings.size(), 1u);
  ASSERT_EQ(r.findings[0].tables.size(), 1u);
  EXPECT_EQ(r.findings[0].tables[0].rows.at(0).at(2), "model.py(40): forward");
}

TEST_F(ComputeAnalyzers, SkippedWithoutTheUnifiedSheetOrItsCategories) {
  auto r = run_analyzer<GemmEfficiency>(trace_, "gemm-efficiency");
  EXPECT_EQ(r.status, traceprism::Status::kSkipped);
  EXPECT_TRUE(r.findings.empty());
  const MemorySheet unified(kColumns, {op_row("aten::mm", "GEMM", "10890", "4.45")});
  serve_unified(unified);
  r = run_analyzer<GenericOps>(trace_, "generic-ops");  // no generic category
  EXPECT_EQ(r.status, traceprism::Status::kSkipped);
  EXPECT_TRUE(r.findings.empty());
}

TEST_F(ComputeAnalyzers, TritonComputesNoImpactUnlessAsked) {
  const MemorySheet unified(
      kColumns, {op_row("triton_poi_fused_add_0", "triton", "10890", "10", "MEMORY_BOUND")});
  serve_unified(unified);
  auto r = run_analyzer<TritonEfficiency>(trace_, "triton-efficiency");
  EXPECT_EQ(r.status, traceprism::Status::kOk);
  EXPECT_TRUE(r.findings.empty());
  EXPECT_DOUBLE_EQ(r.figure("triton.category_specific.pointwise_count"), 1);
  trace_.set_option("triton-efficiency.QuantifyImpact", "true");
  r = run_analyzer<TritonEfficiency>(trace_, "triton-efficiency");
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].library, "Triton");
}

TEST_F(ComputeAnalyzers, GenericOpsReportsUnmodeledOpsHeuristically) {
  const MemorySheet unified(kColumns, {op_row("vllm::rocm_aiter_fused_moe", "", "7026", "", "")});
  serve_unified(unified);
  const auto r = run_analyzer<GenericOps>(trace_, "generic-ops");
  ASSERT_EQ(r.findings.size(), 1u);
  const auto& f = r.findings[0];
  EXPECT_EQ(f.category, "other");
  EXPECT_EQ(f.impact_kind, TRACEPRISM_IMPACT_HEURISTIC);
  EXPECT_EQ(f.library, "AITER");
  EXPECT_EQ(f.title, "vllm::rocm_aiter_fused_moe with no performance model (64.52% of E2E)");
  EXPECT_DOUBLE_EQ(f.impact_mid, 19.36);
  EXPECT_EQ(f.tables[0].columns.back(), "Sub-Category");
  EXPECT_EQ(f.tables[0].rows[0][8], "\xE2\x80\x94");
}

}  // namespace
