// The analysis.md writer on hand-built reports: title and appendix from the model
// identification, executive summary, warnings, fusion cards and blocks (analysis-rules.md §10),
// and a written folder that passes validate_report.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "io/report_manifest.hpp"
#include "report/report_writers.hpp"
#include "support/csv_rows.hpp"
#include "support/temp_dir.hpp"
#include "validate/report_validator.hpp"

namespace traceprism::report {
namespace {

namespace fs = std::filesystem;

const std::string kUnified =
    "name,op category,Input Dims,Input type,operation_count,Kernel Time (\xC2\xB5s)_sum,"
    "Kernel Time (\xC2\xB5s)_mean,Kernel Time (\xC2\xB5s)_std\n"
    "aten::mm,GEMM,\"((256, 512), (512, 128))\",\"('c10::BFloat16', 'c10::BFloat16')\",10,"
    "8000.0,800.0,100.0\n"
    "aten::add,elementwise,\"((256,), (256,))\",\"('float', 'float')\",20,1000.0,50.0,60.0\n";

findings::Finding compute_finding() {
  findings::Finding f;
  f.analyzer = "gemm";
  f.tier = findings::Tier::kCompute;
  f.impact_kind = findings::ImpactKind::kQuantified;
  f.category = "gemm";
  f.title = "Compute-bound BF16 GEMMs far below roofline (<30%)";
  f.library = "Tensile";
  f.insight = "One GEMM shape.";
  f.action = "Tune tiles.";
  f.identification = "Flagged.";
  f.reasoning = "Low efficiency.";
  f.resolution = "Tune.";
  f.impact_low = 30, f.impact_mid = 35, f.impact_high = 40;
  f.tables.push_back(
      {"",
       {"Operation", "Args", "Kernel Path", "Kernel Name", "Time (ms)", "%E2E", "Count",
        "FLOPS/Byte", "Efficiency", "Bound"},
       {{"aten::mm", "(256,512) bf16<br>(512,128) bf16", "Tensile (vendor)", "Cijk_A", "8.0",
         "80.0", "10", "170.44", "4.46% of 708 TFLOPS", "compute-bound"}}});
  f.rank = 1;
  return f;
}

findings::Finding fusion_finding(double confidence_level, const std::string& estimation) {
  findings::Finding f;
  f.analyzer = "kernel-fusion";
  f.plugin = "fusion";
  f.tier = findings::Tier::kFusion;
  f.impact_kind = findings::ImpactKind::kQuantified;
  f.category = "kernel_fusion";
  f.title = "Unfused RMSNorm";
  f.insight = "Five kernels of one norm run separately.";
  f.action = "Fuse them into one kernel.";
  f.identification = "Qwen2RMSNorm launches 5 kernels.";
  f.impact_low = 1.5, f.impact_mid = 2.25, f.impact_high = 3;
  f.metrics = {{"time_ms", 0.512},
               {"instance_count", 49},
               {"kernel_count", 5},
               {"modeled_kernel_count", 4},
               {"confidence_level", confidence_level}};
  f.tables.push_back({"kernels",
                      {"Kernel", "Type", "Duration (us)", "Perf model"},
                      {{"rsqrt_kernel", "elementwise", "10.0", "Yes"}}});
  f.tables.push_back({"estimate",
                      {"Field", "Value"},
                      {{"bound_type", "memory"},
                       {"fusion_type", "vertical"},
                       {"confidence", "Medium"},
                       {"confidence_reason", "module name hints a norm"},
                       {"estimation", estimation}}});
  f.rank = 1;
  return f;
}

findings::Finding system_finding() {
  findings::Finding f;
  f.analyzer = "cpu-idle";
  f.tier = findings::Tier::kSystem;
  f.category = "cpu_idle";
  f.title = "GPU idle 20.0% of end-to-end time";
  f.insight = "The GPU waits.";
  f.action = "Overlap host work.";
  f.identification = "Idle.";
  f.reasoning = "Host bound.";
  f.resolution = "Prefetch.";
  f.rank = 1;
  return f;
}

pipeline::AnalysisReport sample_report() {
  pipeline::AnalysisReport r;
  r.timeline.total_us = 10000;
  r.timeline.computation_us = 8000;
  r.timeline.idle_us = 2000;
  r.timeline.busy_us = 8000;
  r.timeline.events = 30;
  r.platform.name = "MI300X";
  r.model = {"BERT", "Transformer", "base (~100M)", "BF16"};
  r.perf_sheets.push_back(
      {"unified_perf_summary", testing::sheet_table_from_csv(testing::parse_csv(kUnified))});
  static const perf_report::UnifiedPerfTable kUnifiedTable =
      testing::unified_table_from_csv(testing::parse_csv(kUnified));
  r.unified = &kUnifiedTable;
  findings::AnalyzerOutcome gemm;
  gemm.name = "gemm";
  gemm.plugin = "gemm";
  gemm.figures = {{"gemm.total_time_ms", 8.0},     {"gemm.ops", 1},
                  {"gemm.percent_of_compute", 80}, {"gemm.findings", 1},
                  {"gemm.impact_score", 35},       {"gemm.impact_score_low", 30},
                  {"gemm.impact_score_high", 40}};
  r.graph.analyzers.push_back(gemm);
  r.findings.compute.push_back(compute_finding());
  r.findings.fusion.push_back(fusion_finding(1, "full"));
  r.findings.system.push_back(system_finding());
  return r;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(AnalysisMarkdown, TitleAndAppendixFromTheModel) {
  pipeline::AnalysisReport r = sample_report();
  const std::string md = analysis_markdown(r);
  EXPECT_EQ(md.rfind("# BERT - MI300X Standalone Analysis\n", 0), 0u);
  EXPECT_TRUE(contains(md,
                       "### Model Architecture\n- **Model**: BERT\n- **Architecture**: "
                       "Transformer\n- **Scale**: base (~100M)\n- **Precision**: BF16\n"));
  r.model = findings::ModelInfo{};
  const std::string unknown = analysis_markdown(r);
  EXPECT_EQ(unknown.rfind("# Workload - MI300X Standalone Analysis\n", 0), 0u);
  EXPECT_TRUE(contains(unknown, "- **Model**: Cannot be inferred from trace\n"));
}

TEST(AnalysisMarkdown, ExecutiveSummaryTableAndChart) {
  const std::string md = analysis_markdown(sample_report());
  EXPECT_TRUE(contains(md,
                       "| Metric | Value |\n|--------|-------|\n| Total Time | 10.00 ms |\n"
                       "| Compute % | 80.00% |\n| Idle % | 20.00% |\n"
                       "| Exposed Communication % | 0.00% |\n"
                       "| Top Bottleneck Category | GEMM (100.00%) |\n\n"
                       "![Performance breakdown](perf_breakdown.svg)\n"))
      << md;
  EXPECT_TRUE(contains(md, "Kernel time is dominated by GEMM (8.00 ms, 100.0% of computation)"));
  EXPECT_TRUE(contains(md, "The top compute item is \"Compute-bound BF16 GEMMs"));
  EXPECT_TRUE(contains(md, "with impact_score 35.00 (30.00–40.00% of end-to-end time)"));
}

TEST(AnalysisMarkdown, TopBottleneckFallsBackToTheFirstFindingsCategory) {
  pipeline::AnalysisReport r = sample_report();
  // Without a quantified rollup the category has findings, so no Top Operations row either.
  r.graph.analyzers[0].figures.resize(4);
  const std::string md = analysis_markdown(r);
  EXPECT_TRUE(contains(md, "| Top Bottleneck Category | GEMM (100.00%) |")) << md;
}

TEST(AnalysisMarkdown, HighVarianceOpsInWarnings) {
  const std::string md = analysis_markdown(sample_report());
  // aten::add: 20 calls, 1.0 ms of 10 ms, std/mean 1.2; aten::mm has CoV 0.125.
  EXPECT_TRUE(contains(md,
                       "| Operation | Category | CoV | Reported Time (ms) |\n"
                       "|-----------|----------|-----|--------------------|\n"
                       "| aten::add | elementwise | 1.200 | 1.0 |\n"))
      << md;
  EXPECT_TRUE(contains(md, "unreliable kernel time measurements (CoV > 1.0"));
  EXPECT_LT(md.find("## Warnings"), md.find("## Compute Kernel Optimizations"));
}

TEST(AnalysisMarkdown, FusionCard) {
  const std::string md = analysis_markdown(sample_report());
  EXPECT_TRUE(contains(md,
                       "### 🟡 P1: Unfused RMSNorm\n\n"
                       "**Insight**: Five kernels of one norm run separately.\n\n"
                       "**Action**: Fuse them into one kernel.\n\n"
                       "<!-- impact-begin kind=p_item low=1.50 mid=2.25 high=3.00 -->\n"
                       "**Impact**: impact_score: 2.25 (perf-model coverage 4/5 kernels)\n"
                       "<!-- impact-end -->\n\n"
                       "**Confidence**: Medium -- module name hints a norm\n\n"
                       "→ *See [Detailed Analysis: Kernel fusion insights > P1]"
                       "(#detailed-analysis-fusion-P1) for details*\n"))
      << md;
}

TEST(AnalysisMarkdown, FusionDetailedBlock) {
  const std::string md = analysis_markdown(sample_report());
  EXPECT_TRUE(contains(md,
                       "<a id=\"detailed-analysis-fusion-P1\"></a>\n"
                       "<!-- reasoning-candidate tier=fusion rank=1 -->\n"
                       "#### 🟡 P1: Unfused RMSNorm (0.512 ms, 49 instances)\n"
                       "**Identification:** Qwen2RMSNorm launches 5 kernels.\n\n"
                       "**Data:**\n\n"
                       "| Kernel | Type | Duration (us) | Perf model |\n|---|---|---|---|\n"
                       "| rsqrt_kernel | elementwise | 10.0 | Yes |\n\n"
                       "**Impact estimate:**\n"
                       "<!-- impact-begin kind=detail_estimate low=1.50 high=3.00 -->\n"
                       "- Low end impact_score: 1.50\n"
                       "- High end impact_score: 3.00\n"
                       "- Coverage: 4 of 5 kernels modelled\n"
                       "- Fusion pattern: memory-bound, vertical\n"
                       "- Confidence: Medium -- module name hints a norm\n"
                       "<!-- impact-end -->\n"))
      << md;
  // A fusion block has no reasoning or resolution labels.
  const std::string fusion =
      md.substr(md.find("### Kernel Fusion Insights"),
                md.find("### System-Level Insights") - md.find("### Kernel Fusion Insights"));
  EXPECT_FALSE(contains(fusion, "**Reasoning for Slowdown:**"));
  EXPECT_FALSE(contains(fusion, "estimate\n"));  // the estimate table is not a Data table
}

TEST(AnalysisMarkdown, FusionPartialEstimateAndConfidenceIcons) {
  pipeline::AnalysisReport r = sample_report();
  r.findings.fusion = {fusion_finding(2, "partial")};
  std::string md = analysis_markdown(r);
  EXPECT_TRUE(contains(md,
                       "- Coverage: 4 of 5 kernels modelled (1 kernel(s) use measured trace "
                       "time)\n"));
  EXPECT_TRUE(contains(md, "### 🔴 P1: Unfused RMSNorm\n"));
  r.findings.fusion = {fusion_finding(0, "full")};
  md = analysis_markdown(r);
  EXPECT_TRUE(contains(md, "### 🟢 P1: Unfused RMSNorm\n"));
  EXPECT_TRUE(contains(md, "#### 🟢 P1: Unfused RMSNorm (0.512 ms, 49 instances)\n"));
}

TEST(AnalysisMarkdown, EmptyReportKeepsEveryHeader) {
  pipeline::AnalysisReport r;
  const std::string md = analysis_markdown(r);
  for (const char* h :
       {"\n## Executive Summary\n", "\n## Compute Kernel Optimizations\n",
        "\n## Kernel Fusion Opportunities (Experimental)\n", "\n## System-Level Optimizations\n",
        "\n## Detailed Analysis\n", "\n## Appendix\n"})
    EXPECT_TRUE(contains(md, h)) << h;
  EXPECT_TRUE(contains(md, "No kernel fusion opportunities detected."));
  EXPECT_TRUE(contains(md, "✅ No system-level bottlenecks detected."));
  EXPECT_TRUE(contains(md, "| Top Bottleneck Category | None (no GPU work linked to an op) |"));
  EXPECT_FALSE(contains(md, "<model>"));
}

// findings.json as validate_report reads it, for the three findings of sample_report().
const char* kSampleFindings = R"json({"findings": [
 {"tier": "compute", "rank": 1, "category": "gemm",
  "impact": {"kind": "quantified", "low": 30.0, "mid": 35.0, "high": 40.0}},
 {"tier": "fusion", "rank": 1, "category": "kernel_fusion",
  "impact": {"kind": "quantified", "low": 1.5, "mid": 2.25, "high": 3.0}},
 {"tier": "system", "rank": 1, "category": "cpu_idle", "impact": {"kind": "not_quantifiable"}}
]})json";

TEST(AnalysisMarkdown, WrittenFolderPassesTheValidator) {
  traceprism::testing::TempDir dir;
  const pipeline::AnalysisReport r = sample_report();
  fs::create_directories(dir.path() / "perf_report_csvs");
  dir.write("perf_report_csvs/unified_perf_summary.csv", kUnified);
  dir.write("findings.json", kSampleFindings);
  dir.write(kBreakdownChartFile, perf_breakdown_svg(r));
  dir.write("analysis.md", analysis_markdown(r));
  io::write_report_manifest(dir.path());
  std::string problems;
  for (const auto& p : validate::validate_report(dir.path())) problems += p.to_string() + "\n";
  EXPECT_EQ(problems, "");
}

}  // namespace
}  // namespace traceprism::report
