// diagnosis.md §6.2 on hand-made traces: a fusion candidate's time is the sum of each instance's
// own kernels (instances of different sizes, attention narrowed per instance, a module nested in
// one of its own name counted once), never above the kernels it covers; the estimates' time and
// impacts follow the measured time while the reference's extrapolation (first instance × count)
// stays under the reference_* figures. The expected sums are written out by hand from the
// fixtures' kernel durations.
#include <gtest/gtest.h>

#include <traceprism/sdk.hpp>
#include <traceprism/testing.hpp>

#include <map>
#include <string>
#include <vector>

#include "fusion/candidate_extraction.hpp"
#include "fusion/fusion_estimate.hpp"

namespace traceprism::plugins::fusion {
namespace {

RowKind row_kind(Kind k) {
  switch (k) {
    case Kind::kCpuOp:
      return RowKind::kCpuOp;
    case Kind::kPythonFunction:
      return RowKind::kPythonFunction;
    case Kind::kRuntime:
      return RowKind::kRuntime;
    case Kind::kKernel:
      return RowKind::kKernel;
    default:
      return RowKind::kOther;
  }
}

// What the extraction gave on the fake host, kept past the run (the analyzer object dies with
// it): per base name, the reference's total, the measured time and the covered kernel time.
struct Extracted {
  double reference_us = 0, measured_us = 0, covered_us = 0;
  int instances = 0;
  std::size_t kernels = 0;
};
std::map<std::string, Extracted> g_extracted;
double g_union_us = 0;

// The perf rows that make the narrowing see GEMMs (an op of category GEMM lists the kernel).
std::vector<PerfRow> gemm_rows() {
  PerfRow mm;
  mm.name = "aten::mm";
  mm.op_category = "GEMM";
  mm.kernel_names = std::vector<std::string>{"gemm_bf16_tn_kernel"};
  return {mm};
}

class ExtractOnFakeHost : public Analyzer {
 public:
  explicit ExtractOnFakeHost(Context&) {}
  Status run(Context& ctx) override {
    FusionInputs in;
    in.rows.events = ctx.events();
    in.rows.python_parent = ctx.python_tree_parents();
    for (std::size_t r = 0; r < in.rows.events.size(); ++r)
      in.rows.kind.push_back(row_kind(in.rows.events.kind(static_cast<Row>(r))));
    in.unified = gemm_rows();
    const KernelPerfLookup lookup(in.unified);
    const std::vector<FusionCandidate> candidates = extract_candidates(in, lookup);
    g_extracted.clear();
    std::vector<const FusionCandidate*> all;
    for (const FusionCandidate& c : candidates) {
      all.push_back(&c);
      g_extracted[c.base_name] = {c.total_kernel_time_us, c.measured_time_us,
                                  covered_kernel_time_us(in.rows, {&c}), c.instance_count,
                                  c.kernels.size()};
    }
    g_union_us = covered_kernel_time_us(in.rows, all);
    return Status::kOk;
  }
};

// A module row with its kernels, each launched by its own runtime call; returns the module row.
Row module_with_kernels(testing::FakeTrace& t, const std::string& name, double ts,
                        const std::vector<std::pair<std::string, double>>& kernels,
                        Row parent = kNoRow) {
  double span = 0;
  for (const auto& k : kernels) span += k.second + 1;
  auto module = t.add(Kind::kPythonFunction, name, ts, span + 100);
  if (parent != kNoRow) module.parent(parent);
  double at = ts + 1;
  for (const auto& [kernel, dur] : kernels) {
    const Row launch = t.runtime("cudaLaunchKernel", at, 0.5).parent(module);
    t.kernel(kernel, at + 0.5, dur).launcher(launch);
    at += dur + 1;
  }
  return module;
}

class MeasuredFusionTime : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::FakeTrace t;
    // Two blocks of different sizes: 10 + 20 µs, then 30 + 50 µs.
    module_with_kernels(t, "nn.Module: Block_0", 0,
                        {{"elementwise_mul_kernel", 10}, {"elementwise_add_kernel", 20}});
    module_with_kernels(t, "nn.Module: Block_1", 1000,
                        {{"elementwise_mul_kernel", 30}, {"elementwise_add_kernel", 50}});
    // A Sequential inside a Sequential: the outer one's 5 + 5 µs and the inner one's 7 + 7 µs.
    const Row outer = module_with_kernels(t, "nn.Module: Seq_0", 2000,
                                          {{"relu_kernel", 5}, {"sigmoid_kernel", 5}});
    module_with_kernels(t, "nn.Module: Seq_1", 2050, {{"tanh_kernel", 7}, {"neg_kernel", 7}},
                        outer);
    // Two attention modules of different sizes: QK^T 100, softmax 10, PV 100 (and a 5 µs add
    // outside the span); then 300, 30, 300.
    module_with_kernels(t, "nn.Module: Attn_0", 3000,
                        {{"gemm_bf16_tn_kernel", 100},
                         {"softmax_warp_forward", 10},
                         {"gemm_bf16_tn_kernel", 100},
                         {"residual_add_kernel", 5}});
    module_with_kernels(
        t, "nn.Module: Attn_1", 4000,
        {{"gemm_bf16_tn_kernel", 300}, {"softmax_warp_forward", 30}, {"gemm_bf16_tn_kernel", 300}});
    ASSERT_EQ(testing::run<ExtractOnFakeHost>(t).status, Status::kOk);
  }

  const Extracted& candidate(const std::string& base) {
    static const Extracted none;
    auto it = g_extracted.find(base);
    EXPECT_NE(it, g_extracted.end()) << "no candidate " << base;
    return it == g_extracted.end() ? none : it->second;
  }
};

TEST_F(MeasuredFusionTime, InstancesOfDifferentSizesAddTheirOwnKernels) {
  const Extracted& block = candidate("Block");
  EXPECT_EQ(block.instances, 2);
  EXPECT_DOUBLE_EQ(block.measured_us, 10 + 20 + 30 + 50);
  EXPECT_DOUBLE_EQ(block.covered_us, 10 + 20 + 30 + 50);
}

TEST_F(MeasuredFusionTime, ANestedInstanceOfTheSameNameCountsOnce) {
  const Extracted& seq = candidate("Seq");
  EXPECT_EQ(seq.instances, 2);                                // the reference's count
  EXPECT_DOUBLE_EQ(seq.reference_us, 5 + 5 + 7 + 7 + 7 + 7);  // it adds the inner one again
  EXPECT_DOUBLE_EQ(seq.measured_us, 5 + 5 + 7 + 7);
  EXPECT_DOUBLE_EQ(seq.covered_us, 5 + 5 + 7 + 7);
}

TEST_F(MeasuredFusionTime, AttentionNarrowsInEachInstance) {
  const Extracted& attn = candidate("Attn");
  EXPECT_EQ(attn.kernels, 3u);                                // QK^T, softmax, PV
  EXPECT_DOUBLE_EQ(attn.reference_us, (100 + 10 + 100) * 2);  // first instance × 2
  EXPECT_DOUBLE_EQ(attn.measured_us, 100 + 10 + 100 + 300 + 30 + 300);
  EXPECT_DOUBLE_EQ(attn.covered_us, 100 + 10 + 100 + 300 + 30 + 300);
}

TEST_F(MeasuredFusionTime, NoCandidateClaimsMoreThanTheKernelsItCovers) {
  ASSERT_FALSE(g_extracted.empty());
  double measured = 0;
  for (const auto& [base, c] : g_extracted) {
    EXPECT_LE(c.measured_us, c.covered_us + 1e-9) << base;
    measured += c.measured_us;
  }
  // The fixture's candidates share no kernel: their union is the sum, all kernels but the add.
  EXPECT_DOUBLE_EQ(g_union_us, (10 + 20 + 30 + 50) + (5 + 5 + 7 + 7) + (210 + 630));
  EXPECT_LE(measured, g_union_us + 1e-9);
}

// The estimate of a two-instance elementwise chain (100 + 200 µs, then 300 + 500 µs): 1 MB
// through each kernel on a 5.3 TB/s roofline, E2E 10 ms.
TEST(MeasuredFusionEstimate, TimeAndImpactFollowTheMeasuredSum) {
  FusionCandidate c;
  c.module_name = "nn.Module: Block_0";
  c.base_name = "Block";
  c.instance_count = 2;
  c.kernels = {{"elementwise_mul_kernel", "Elementwise Mul", 100, true, 1, "", 0.5, 0.5},
               {"elementwise_add_kernel", "Elementwise Add", 200, true, 2, "", 0.5, 0.5}};
  c.kernel_count = c.eligible_kernel_count = 2;
  c.total_kernel_time_us = c.measured_time_us = 100 + 200 + 300 + 500;
  std::vector<PerfRow> unified(2);
  for (std::size_t i = 0; i < 2; ++i) {
    unified[i].name = i == 0 ? "aten::mul" : "aten::add";
    unified[i].op_category = "elementwise";
    unified[i].data_moved_mb = 1.0;
    unified[i].gflops = 0.0;
    unified[i].kernel_names = std::vector<std::string>{c.kernels[i].name};
  }
  const KernelPerfLookup lookup(unified);
  Peaks peaks;
  peaks.hbm_tbs = 5.3;
  peaks.matrix_bf16_tflops = 708;
  peaks.vector_bf16_tflops = 163;
  const double baseline_ms = 10.0;
  const FusionMetrics m = estimate_fusion({c}, lookup, peaks, baseline_ms);
  ASSERT_EQ(m.estimates.size(), 1u);
  const FusionEstimate& e = m.estimates[0];
  EXPECT_DOUBLE_EQ(e.time_ms, 1.1);                         // 100 + 200 + 300 + 500 µs
  EXPECT_DOUBLE_EQ(e.reference_extrapolated_time_ms, 0.6);  // (100 + 200) × 2
  // The fused kernel reads 0.5 MB and writes 0.5 MB: 1e6 B / 5.3e12 B/s = 0.18868 µs of the 300.
  const double saved_share = (300 - 1e6 / 5.3e12 * 1e6) / 300;
  EXPECT_NEAR(e.impact_score_high, saved_share * 1.1 / baseline_ms * 100, 0.006);
  EXPECT_NEAR(e.reference_impact_score_high, saved_share * 0.6 / baseline_ms * 100, 0.006);
  EXPECT_LE(e.impact_score_high, e.time_ms / baseline_ms * 100);

  FusionSettings reference;
  reference.time_rule = TimeRule::kReferenceExtrapolated;
  const FusionMetrics r = estimate_fusion({c}, lookup, peaks, baseline_ms, reference);
  ASSERT_EQ(r.estimates.size(), 1u);
  EXPECT_DOUBLE_EQ(r.estimates[0].time_ms, 0.6);
  EXPECT_DOUBLE_EQ(r.estimates[0].impact_score, e.reference_impact_score);
}

}  // namespace
}  // namespace traceprism::plugins::fusion
