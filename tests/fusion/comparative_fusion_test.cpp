// Comparative fusion (analysis-rules §9.2, §9.5) on a hand-made trace 1 with TraceDiff rows
// written by hand: a module whose kernels trace 2 runs as fewer kernels becomes a candidate with
// the measured gap; the Case-A gates and the filters drop the others. Expected numbers are
// worked out from the fixture's kernel durations.
#include <gtest/gtest.h>

#include <traceprism/sdk.hpp>
#include <traceprism/testing.hpp>

#include <map>
#include <string>
#include <vector>

#include "fusion/comparative_candidates.hpp"
#include "fusion/fusion_estimate.hpp"

namespace traceprism::plugins::fusion {
namespace {

RowKind row_kind(Kind k) {
  switch (k) {
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

// A module with its kernels, each launched by its own runtime call; the kernels' rows.
std::vector<Row> module_with_kernels(testing::FakeTrace& t, const std::string& name, double ts,
                                     const std::vector<std::pair<std::string, double>>& kernels) {
  double span = 0;
  for (const auto& k : kernels) span += k.second + 1;
  auto module = t.add(Kind::kPythonFunction, name, ts, span + 100);
  double at = ts + 1;
  std::vector<Row> rows;
  for (const auto& [kernel, dur] : kernels) {
    const Row launch = t.runtime("cudaLaunchKernel", at, 0.5).parent(module);
    rows.push_back(t.kernel(kernel, at + 0.5, dur).launcher(launch));
    at += dur + 1;
  }
  return rows;
}

// Per module of trace 1, its trace-1 kernel rows and what TraceDiff matched them to.
struct Module {
  std::string name;
  std::vector<std::pair<std::string, double>> trace1;
  std::vector<std::pair<std::string, double>> trace2;  // under the same divergence point
};

std::vector<FusionCandidate> g_candidates;
FusionMetrics g_metrics;
const Module kModules[] = {
    // 4 kernels (1160 µs) where trace 2 runs one (800 µs): a 360 µs gap, below the 680 µs of
    // the three extra (shortest) kernels.
    {"nn.Module: SparseMoe_0",
     {{"moe_sorting_kernel", 120}, {"moe_stage1", 480}, {"moe_stage2", 480}, {"moe_sum", 80}},
     {{"fused_moe_kernel", 800}}},
    // A 2 µs fill beside a slower attention kernel: 1500 vs 200 µs, but fusing the fill away
    // saves at most its 2 µs (below 0.1 ms: no estimate).
    {"nn.Module: Attention_0", {{"fill_kernel", 2}, {"attn_fwd", 1500}}, {{"flash_fwd", 200}}},
    // Trace 2 runs more kernels: Case A needs trace 1 to run more.
    {"nn.Module: Mlp_0", {{"gemm_a", 100}, {"gemm_b", 100}}, {{"g1", 50}, {"g2", 50}, {"g3", 50}}},
};

class ComparativeOnFakeHost : public Analyzer {
 public:
  explicit ComparativeOnFakeHost(Context&) {}
  Status run(Context& ctx) override {
    FusionInputs in;
    in.rows.events = ctx.events();
    in.rows.python_parent = ctx.python_tree_parents();
    for (std::size_t r = 0; r < in.rows.events.size(); ++r)
      in.rows.kind.push_back(row_kind(in.rows.events.kind(static_cast<Row>(r))));
    in.trace_diff = diff_;
    in.baseline_ms = 1.26 * 4;  // the three modules' window, so that only the gap matters
    g_candidates = extract_comparative_candidates(in);
    g_metrics = estimate_comparative_fusion(g_candidates, in.baseline_ms);
    return Status::kOk;
  }
  static TraceDiffInputs diff_;
};
TraceDiffInputs ComparativeOnFakeHost::diff_;

class ComparativeFusion : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::FakeTrace t;
    TraceDiffInputs diff;
    double ts = 0;
    std::int64_t lca = 0;
    for (const Module& m : kModules) {
      const std::vector<Row> rows = module_with_kernels(t, m.name, ts, m.trace1);
      for (std::size_t k = 0; k < rows.size(); ++k)
        diff.add_trace1(static_cast<std::int32_t>(rows[k]),
                        {m.trace1[k].first, m.trace1[k].second, lca});
      for (const auto& [name, dur] : m.trace2) diff.trace2_by_lca[lca].push_back({name, dur, lca});
      ts += 5000;
      ++lca;
    }
    ComparativeOnFakeHost::diff_ = diff;
    ASSERT_EQ(testing::run<ComparativeOnFakeHost>(t).status, Status::kOk);
  }
};

TEST_F(ComparativeFusion, ModulesWithFewerKernelsInTraceTwoAreCandidates) {
  ASSERT_EQ(g_candidates.size(), 2u);  // not Mlp: trace 2 runs more kernels there
  const FusionCandidate& moe = g_candidates[0];
  EXPECT_EQ(moe.base_name, "SparseMoe");
  EXPECT_EQ(moe.kernels.size(), 4u);
  EXPECT_DOUBLE_EQ(moe.total_kernel_time_us, 1160);
  ASSERT_TRUE(moe.trace2.has_value());
  EXPECT_DOUBLE_EQ(moe.trace2->total_kernel_time_us, 800);
  EXPECT_DOUBLE_EQ(moe.trace2->extra_kernel_time_us, 80 + 120 + 480);
  EXPECT_EQ(g_candidates[1].base_name, "Attention");
  EXPECT_DOUBLE_EQ(g_candidates[1].trace2->extra_kernel_time_us, 2);
}

TEST_F(ComparativeFusion, TheEstimateIsTheMeasuredGapCappedAtTheExtraKernels) {
  ASSERT_EQ(g_metrics.estimates.size(), 1u);  // the attention gap is kernel speed, not fusion
  const FusionEstimate& e = g_metrics.estimates[0];
  EXPECT_EQ(e.operation, "SparseMoe");
  EXPECT_TRUE(e.measured_gap);
  EXPECT_DOUBLE_EQ(e.time_ms, 1.16);
  EXPECT_DOUBLE_EQ(e.trace2_time_ms, 0.8);
  EXPECT_DOUBLE_EQ(e.gap_ms, 0.36);
  EXPECT_EQ(e.delta_kernel_count, 3);
  const double high = 0.36 / (1.26 * 4) * 100;
  EXPECT_NEAR(e.impact_score_high, high, 0.005);
  EXPECT_NEAR(e.impact_score, 0.875 * high, 0.005);
  EXPECT_NEAR(e.impact_score_low, 0.75 * high, 0.005);
}

}  // namespace
}  // namespace traceprism::plugins::fusion
