// validate::validate_report on a small hand-written report folder: the valid report passes, and
// each rule reports the expected problem when the report breaks it.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "io/report_manifest.hpp"
#include "support/temp_dir.hpp"
#include "validate/report_validator.hpp"

namespace traceprism::validate {
namespace {

namespace fs = std::filesystem;
using traceprism::testing::TempDir;

// One compute, one fusion and one system P-item, with everything the validator checks.
const std::string kValidReport = R"md(# BERT - MI300X Standalone Analysis

## Executive Summary

GEMM kernels dominate the 10.00 ms span.

| Metric | Value |
|--------|-------|
| Total Time | 10.00 ms |
| Compute % | 80.00% |
| Idle % | 20.00% |
| Exposed Communication % | 0.00% |
| Top Bottleneck Category | GEMM (100.00%) |

![Performance breakdown](perf_breakdown.svg)

---

## Compute Kernel Optimizations

### Top Operations

<!-- impact-begin kind=top_ops -->
| Rank | Category | Time (ms) | % of Compute Time | Ops |
|------|----------|-----------|-------------------|-----|
| 1 | GEMM | 8.0 | 100.00 | 1 | <!-- top-ops-row low=30.0 high=40.0 -->
<!-- impact-end -->

### 🔴 P1: Compute-bound BF16 GEMMs far below roofline (<30%) (Tensile)

**Insight**: One GEMM shape takes 80% of the time.

**Action**: Tune the GEMM tiles.

<!-- impact-begin kind=p_item category=gemm low=30.00 mid=35.00 high=40.00 -->
**Impact**: impact_score: 35.00
<!-- impact-end -->

→ *See [Detailed Analysis: Compute kernel insights > P1](#detailed-analysis-compute-p1) for details*

---

## Kernel Fusion Opportunities (Experimental)

### 🟡 P1: Unfused RMSNorm

**Insight**: Five kernels of one norm.

**Action**: Fuse them.

<!-- impact-begin kind=p_item low=1.00 mid=2.00 high=3.00 -->
**Impact**: impact_score: 2.00 (perf-model coverage 4/5 kernels)
<!-- impact-end -->

**Confidence**: Medium -- name hint only

→ *See [Detailed Analysis: Kernel fusion insights > P1](#detailed-analysis-fusion-P1) for details*

---

## System-Level Optimizations

### 🔴 P1: GPU idle 20.0% of end-to-end time

**Insight**: The GPU waits for the host.

**Action**: Overlap host work.

<!-- impact-begin kind=p_item low=null mid=null high=null -->
**Impact**: Not quantifiable from trace data
<!-- impact-end -->

→ *See [Detailed Analysis: System-level insights > P1](#detailed-analysis-system-p1) for details*

---

## Detailed Analysis

### Compute Kernel Insights

<a id="detailed-analysis-compute-p1"></a>
<!-- reasoning-candidate tier=compute rank=1 -->
#### 🔴 P1: Compute-bound BF16 GEMMs far below roofline (<30%) (Tensile)
**Identification:** One shape.

**Data:**

| Operation | Args | Kernel Path | Kernel Name | Time (ms) | %E2E | Count | FLOPS/Byte | Efficiency | Bound |
|---|---|---|---|---|---|---|---|---|---|
| aten::mm | (256,512) bf16<br>(512,128) bf16 | Tensile (vendor) | Cijk_A | 8.0 | 80.0 | 10 | 170.44 | 4.46% of 708 TFLOPS | compute-bound |

**Reasoning for Slowdown:** Low efficiency.

**Resolution:** Tune.

**Impact estimate:**
<!-- impact-begin kind=detail_estimate low=30.00 high=40.00 -->
- Low end impact_score: 30.00
- High end impact_score: 40.00
<!-- impact-end -->

### Kernel Fusion Insights

<a id="detailed-analysis-fusion-P1"></a>
<!-- reasoning-candidate tier=fusion rank=1 -->
#### 🟡 P1: Unfused RMSNorm (0.5 ms, 4 instances)
**Identification:** A norm.

**Data:**

| Kernel | Type | Duration (us) | Perf model |
|---|---|---|---|
| rsqrt_kernel | elementwise | 10.0 | Yes |

**Impact estimate:**
<!-- impact-begin kind=detail_estimate low=1.00 high=3.00 -->
- Low end impact_score: 1.00
- High end impact_score: 3.00
<!-- impact-end -->

### System-Level Insights

<a id="detailed-analysis-system-p1"></a>
<!-- reasoning-candidate tier=system rank=1 -->
#### 🔴 P1: GPU idle 20.0% of end-to-end time
**Identification:** Idle.

**Impact estimate:**
Impact estimate is not quantifiable from trace data.

---

## Appendix

### Model Architecture
- **Model**: BERT
)md";

const std::string kFindings = R"json({"schema_version": 1, "findings": [
 {"tier": "compute", "rank": 1, "category": "gemm",
  "impact": {"kind": "quantified", "low": 30.0, "mid": 35.0, "high": 40.0}},
 {"tier": "fusion", "rank": 1, "category": "kernel_fusion",
  "impact": {"kind": "quantified", "low": 1.0, "mid": 2.0, "high": 3.0}},
 {"tier": "system", "rank": 1, "category": "cpu_idle", "impact": {"kind": "not_quantifiable"}}
]})json";

const std::string kUnifiedCsv =
    "name,op category,Input Dims,Input type\n"
    "aten::mm,GEMM,\"((256, 512), (512, 128))\",\"('c10::BFloat16', 'c10::BFloat16')\"\n";

class ReportValidator : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(dir_.path() / "perf_report_csvs");
    dir_.write("findings.json", kFindings);
    dir_.write("perf_report_csvs/unified_perf_summary.csv", kUnifiedCsv);
    dir_.write("perf_breakdown.svg", "<svg xmlns=\"http://www.w3.org/2000/svg\"/>\n");
  }

  // The problems of the report with `from` replaced by `to` (once; the text must contain it).
  std::vector<std::string> problems_after(const std::string& from, const std::string& to) {
    std::string text = kValidReport;
    const std::size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << "the fixture has no `" << from << "`";
    if (at != std::string::npos) text.replace(at, from.size(), to);
    return problems_of(text);
  }

  std::vector<std::string> problems_of(const std::string& text) {
    dir_.write("analysis.md", text);
    traceprism::io::write_report_manifest(dir_.path());
    std::vector<std::string> out;
    for (const auto& p : validate_report(dir_.path())) out.push_back(p.to_string());
    return out;
  }

  TempDir dir_;
};

// True when some problem contains `part`.
bool has(const std::vector<std::string>& problems, const std::string& part) {
  return std::any_of(problems.begin(), problems.end(),
                     [&](const std::string& p) { return p.find(part) != std::string::npos; });
}

std::string joined(const std::vector<std::string>& problems) {
  std::string out;
  for (const auto& p : problems) out += p + "\n";
  return out;
}

#define EXPECT_PROBLEM(problems, part) \
  EXPECT_TRUE(has(problems, part)) << "expected `" << (part) << "` in:\n" << joined(problems)

TEST_F(ReportValidator, ValidReportHasNoProblem) {
  EXPECT_EQ(joined(problems_of(kValidReport)), "");
}

TEST_F(ReportValidator, MissingOrShortReport) {
  auto p = validate_report(dir_.path());
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].to_string().rfind("analysis.md:0: missing", 0), 0u) << p[0].to_string();
  EXPECT_PROBLEM(problems_of("# Short\n"), "shorter than 100 characters");
}

// A folder whose files come from different runs: each file differs from, or is missing in,
// the manifest the run that wrote analysis.md left.
TEST_F(ReportValidator, FilesFromAnotherRunDifferFromTheManifest) {
  ASSERT_EQ(joined(problems_of(kValidReport)), "");
  dir_.write("findings.json", R"({"findings": []})");
  dir_.write("perf_report_csvs/GEMM.csv", "name\n");
  std::vector<std::string> problems;
  for (const auto& p : validate_report(dir_.path())) problems.push_back(p.to_string());
  EXPECT_PROBLEM(problems, "findings.json:0: differs from the manifest");
  EXPECT_PROBLEM(problems, "perf_report_csvs/GEMM.csv:0: not listed in the manifest");
  std::filesystem::remove(dir_.path() / "report_manifest.json");
  problems.clear();
  for (const auto& p : validate_report(dir_.path())) problems.push_back(p.to_string());
  EXPECT_PROBLEM(problems, "report_manifest.json:0: missing or unreadable");
}

TEST_F(ReportValidator, HeadersPresentAndInOrder) {
  EXPECT_PROBLEM(problems_after("## Appendix", "## Appendices"),
                 "analysis.md:0: the `## Appendix` header is missing");
  std::string swapped = kValidReport;
  swapped.replace(swapped.find("## Executive Summary"), 20, "## Placeholder Sect");
  swapped += "\n## Executive Summary\n\n| Metric | Value |\n";
  EXPECT_PROBLEM(problems_of(swapped), "must be in the order of the template");
}

TEST_F(ReportValidator, ExecutiveSummaryTable) {
  EXPECT_PROBLEM(problems_after("| Idle % | 20.00% |\n", ""), "table has no `Idle` row");
  EXPECT_PROBLEM(problems_after("| Compute % | 80.00% |", "| Compute % | Y% |"),
                 "placeholder cell");
}

TEST_F(ReportValidator, UnfilledPlaceholders) {
  auto p = problems_after("- **Model**: BERT", "- **Model**: <model>");
  EXPECT_PROBLEM(p, "unfilled template placeholder `<model>`");
  EXPECT_PROBLEM(problems_after("Tune the GEMM tiles.", "<Brief Title>"), "<Brief Title>");
}

TEST_F(ReportValidator, MarkersBalancedWithKnownKinds) {
  auto unclosed = problems_after("**Impact**: impact_score: 35.00\n<!-- impact-end -->",
                                 "**Impact**: impact_score: 35.00");
  EXPECT_PROBLEM(unclosed, "is not closed by an impact-end");
  EXPECT_PROBLEM(problems_after("- High end impact_score: 3.00\n<!-- impact-end -->\n",
                                "- High end impact_score: 3.00\n<!-- impact-end -->\n"
                                "<!-- impact-end -->\n"),
                 "impact-end marker without an impact-begin");
  EXPECT_PROBLEM(problems_after("kind=detail_estimate low=30.00", "kind=estimate low=30.00"),
                 "unknown marker kind `estimate`");
  EXPECT_PROBLEM(problems_after("kind=p_item low=1.00 mid=2.00", "kind=p_item low=1.00"),
                 "has no `mid=` attribute");
  EXPECT_PROBLEM(problems_after("low=null mid=null", "low=null mid=2.0"), "mixes null and numeric");
  EXPECT_PROBLEM(problems_after("low=30.00 high=40.00 -->", "low=30.00 high =40.00 -->"),
                 "is not a `name=value` token");
  EXPECT_PROBLEM(problems_after("low=30.00 high=40.00 -->", "low=30.00 high=forty -->"),
                 "neither a number nor null");
}

TEST_F(ReportValidator, TopOperationsBlock) {
  EXPECT_PROBLEM(problems_after(" <!-- top-ops-row low=30.0 high=40.0 -->", ""),
                 "analysis.md:26: Top Operations row has no");
  EXPECT_PROBLEM(problems_after("top-ops-row low=30.0 high=40.0", "top-ops-row low=30.0"),
                 "needs `high=<number|null>`");
  EXPECT_PROBLEM(problems_after("<!-- impact-begin kind=top_ops -->", "<!-- top ops -->"),
                 "no `<!-- impact-begin kind=top_ops -->` block");
}

TEST_F(ReportValidator, PItemsMatchMarkersAndBlocks) {
  // A card without its marker: heading and marker counts differ.
  auto p = problems_after(
      "<!-- impact-begin kind=p_item low=null mid=null high=null -->\n"
      "**Impact**: Not quantifiable from trace data\n<!-- impact-end -->\n",
      "");
  EXPECT_PROBLEM(p, "1 system P-item heading(s) but 0 kind=p_item marker(s)");
  EXPECT_PROBLEM(p, "0 system P-item(s) but findings.json has 1");
  // A detailed block without its reasoning-candidate marker.
  EXPECT_PROBLEM(problems_after("<!-- reasoning-candidate tier=system rank=1 -->\n", ""),
                 "1 `####` P heading(s) but 0 reasoning-candidate marker(s)");
  EXPECT_PROBLEM(problems_after("tier=system rank=1", "tier=compute rank=1"),
                 "reasoning-candidate tier=compute inside `### System-Level Insights`");
}

TEST_F(ReportValidator, CardLinksResolve) {
  EXPECT_PROBLEM(problems_after("(#detailed-analysis-system-p1)", "(#detailed-analysis-system-p2)"),
                 "link to #detailed-analysis-system-p2 has no");
}

TEST_F(ReportValidator, EveryBlockHasAnEstimate) {
  EXPECT_PROBLEM(problems_after("Impact estimate is not quantifiable from trace data.", "None."),
                 "neither a kind=detail_estimate marker nor the sentence");
}

TEST_F(ReportValidator, ComputeDataTable) {
  EXPECT_PROBLEM(problems_after("**Data:**\n\n| Operation", "**Data:** one shape\n\n| Operation"),
                 "must be alone on its line");
  EXPECT_PROBLEM(
      problems_after("| Operation | Args | Kernel Path |", "| Operation | Shapes | Kernel Path |"),
      "column 2 is `Shapes`, expected `Args`");
}

TEST_F(ReportValidator, ArgsCellsTraceToThePerfReport) {
  EXPECT_PROBLEM(problems_after("(256,512) bf16<br>", "(256, 512) bf16<br>"),
                 "Args cell `(256, 512) bf16<br>(512,128) bf16` matches no");
  fs::remove(dir_.path() / "perf_report_csvs" / "unified_perf_summary.csv");
  EXPECT_PROBLEM(problems_of(kValidReport), "perf_report_csvs/unified_perf_summary.csv:0: missing");
}

TEST_F(ReportValidator, FusionImpactLineFormat) {
  EXPECT_PROBLEM(
      problems_after("impact_score: 2.00 (perf-model coverage 4/5 kernels)", "impact_score: 2.00"),
      "fusion Impact line must read");
}

TEST_F(ReportValidator, ConsistentWithFindingsJson) {
  EXPECT_PROBLEM(problems_after("low=30.00 mid=35.00", "low=30.00 mid=35.10"),
                 "compute P1 marker mid=35.10 differs from findings.json (35)");
  EXPECT_TRUE(problems_after("low=30.00 mid=35.00", "low=30.00 mid=35.004").empty());
  EXPECT_PROBLEM(problems_after("category=gemm", "category=sdpa_fwd"),
                 "marker category=sdpa_fwd but findings.json has `gemm`");
  fs::remove(dir_.path() / "findings.json");
  EXPECT_PROBLEM(problems_of(kValidReport), "findings.json:0: missing");
}

TEST_F(ReportValidator, LinkedImagesExist) {
  fs::remove(dir_.path() / "perf_breakdown.svg");
  EXPECT_PROBLEM(problems_of(kValidReport),
                 "analysis.md:15: image `perf_breakdown.svg` does not exist");
}

// Regression (issue 19): a target longer than a file name may be threw out of the validator.
TEST_F(ReportValidator, AnImagePathTheFileSystemRefusesDoesNotExist) {
  const std::string target(5000, 'x');
  EXPECT_PROBLEM(problems_after("perf_breakdown.svg", target + ".svg"),
                 "image `" + target + ".svg` does not exist");
}

}  // namespace
}  // namespace traceprism::validate
