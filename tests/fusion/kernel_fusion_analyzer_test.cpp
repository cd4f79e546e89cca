// The kernel-fusion analyzer end to end on a host context: what it emits (findings, tables,
// figures, the published kernel map) and the §9.7 reject rule, which drops the elem_01 case's
// only estimate (10 independent aten::add from a script's main) from the findings while the
// metrics keep it.
#include "fusion/kernel_fusion_analyzer.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "fusion/fusion_candidate.hpp"
#include "fusion/fusion_prose.hpp"
#include "fusion/reject_rule.hpp"
#include "fusion_case.hpp"

namespace traceprism::plugins::fusion {
namespace {

using testing::CaseFiles;
using testing::FusionCase;

std::optional<CaseFiles> find_case(const std::string& name) {
  for (const CaseFiles& c : testing::fusion_cases())
    if (c.name == name) return c;
  return std::nullopt;
}

double figure(const findings::AnalyzerOutcome& o, const std::string& key) {
  for (const auto& [k, v] : o.figures)
    if (k == key) return v;
  ADD_FAILURE() << "no figure " << key;
  return -1;
}

TEST(KernelFusionAnalyzer, RejectsTheLoopOfAddsInElem01) {
  const auto files = find_case("elem_01_add_poor_bw");
  if (!files) GTEST_SKIP() << "shared traces absent";
  FusionCase c(*files);
  KernelFusionAnalyzer analyzer(c.context());
  EXPECT_EQ(analyzer.run(c.context()), Status::kOk);
  EXPECT_TRUE(c.outcome().findings.empty());
  EXPECT_EQ(figure(c.outcome(), "kernel_fusion.estimated_count"), 1);
  EXPECT_EQ(figure(c.outcome(), "kernel_fusion.rejected_count"), 1);
  EXPECT_NEAR(figure(c.outcome(), "kernel_fusion.total_impact_score"), 84.48, 1e-9);
  EXPECT_EQ(figure(c.outcome(), "kernel_fusion.candidate_count"), 1);
}

TEST(KernelFusionAnalyzer, QwenFindingsInMetricsOrder) {
  const auto files = find_case("h100_Qwen_Qwen1.5-0.5B-Chat__1016005");
  if (!files) GTEST_SKIP() << "shared traces absent";
  FusionCase c(*files);
  KernelFusionAnalyzer analyzer(c.context());
  ASSERT_EQ(analyzer.run(c.context()), Status::kOk);
  const auto& findings = c.outcome().findings;
  // Metrics order: Qwen2RMSNorm, apply_rotary_pos_emb (walk), apply_rotary_pos_emb (siblings:
  // not reported, its kernels are all in the walk's estimate), modeling_qwen2.py(218): forward
  // (rejected: a forward frame), Qwen2MLP.
  ASSERT_EQ(findings.size(), 3u);
  EXPECT_EQ(figure(c.outcome(), "kernel_fusion.rejected_count"), 2);
  EXPECT_EQ(findings[0].title, "Unfused RMSNorm in Qwen2RMSNorm");
  EXPECT_EQ(findings[0].key, "kernel_fusion#001");
  EXPECT_EQ(findings[1].title, "Unfused RoPE in apply_rotary_pos_emb");
  EXPECT_EQ(findings[1].key, "kernel_fusion#002");
  EXPECT_EQ(findings[2].title, "GEMM epilogue in Qwen2MLP");
  EXPECT_EQ(findings[2].key, "kernel_fusion#005");
  const findings::Finding& norm = findings[0];
  EXPECT_EQ(norm.category, "kernel_fusion");
  // diagnosis.md §6.2: the impact follows the measured time, the 49 instances' own kernels
  // (fusion_candidates.json total_kernel_time_us 7377.993 µs) instead of the reference's first
  // instance × 49 (kernel_fusion_metrics.json time_ms 7.189, impact_score 16.63).
  EXPECT_NEAR(norm.impact_mid, 16.63 * 7377.993 / 7189.182, 0.01);
  ASSERT_EQ(norm.tables.size(), 2u);
  EXPECT_EQ(norm.tables[0].title, "kernels");
  EXPECT_EQ(norm.tables[1].title, "estimate");
  EXPECT_NE(norm.identification.find("(source: `fusion_candidates.json` → `module_name`, "
                                     "`has_fused_kernel`, `kernels[]`)"),
            std::string::npos);
  const std::string& last = norm.identification;
  EXPECT_EQ(last.substr(last.size() - 1), ")");
  auto metric = [&](const findings::Finding& f, const std::string& key) {
    for (const auto& [k, v] : f.metrics)
      if (k == key) return v;
    return -1.0;
  };
  EXPECT_EQ(metric(norm, "confidence_level"), 2);
  EXPECT_EQ(metric(norm, "instance_count"), 49);
  EXPECT_NEAR(metric(norm, "time_ms"), 7.378, 1e-9);
  EXPECT_NEAR(metric(norm, "reference_extrapolated_time_ms"), 7.189, 1e-9);
  EXPECT_EQ(metric(findings[2], "kernel_count"), 5);
  // The kernel map of the high-confidence estimates, for the compute analyzers.
  ASSERT_EQ(c.outcome().products.size(), 1u);
  EXPECT_EQ(c.outcome().products[0].title, kKernelMapProduct);
}

FusionCandidate candidate(const std::string& base, std::vector<std::string> kernels,
                          bool sibling = false) {
  FusionCandidate c;
  c.base_name = base;
  c.module_name = base;
  c.sibling_sequence = sibling;
  for (std::string& name : kernels) {
    CandidateKernel k;
    k.name = std::move(name);
    k.type = "Elementwise";
    c.kernels.push_back(std::move(k));
  }
  return c;
}

TEST(RejectRule, ContainersFramesAndLoops) {
  const RejectSettings on;
  EXPECT_TRUE(reject_reason(candidate("Qwen2RMSNorm", {"a", "b"}), on).empty());
  EXPECT_FALSE(reject_reason(candidate("Qwen2DecoderLayer", {"a", "b"}), on).empty());
  EXPECT_FALSE(reject_reason(candidate("Qwen2Model", {"a", "b"}), on).empty());
  EXPECT_FALSE(reject_reason(candidate("x/gen.py(42): main", {"a", "b"}), on).empty());
  EXPECT_FALSE(reject_reason(candidate("x/modeling.py(218): forward", {"a", "b"}), on).empty());
  // A frame doing real work stays, unless it is N repeats of one op.
  EXPECT_TRUE(
      reject_reason(candidate("x/modeling.py(68): apply_rotary_pos_emb", {"a", "b"}), on).empty());
  EXPECT_FALSE(
      reject_reason(candidate("x/modeling.py(68): apply_rotary_pos_emb", {"a", "a"}), on).empty());
  EXPECT_FALSE(reject_reason(candidate("Parent", {"a", "a"}, true), on).empty());
  EXPECT_TRUE(reject_reason(candidate("Qwen2MLP", {"a", "a"}), on).empty());  // a module
  // A path containing "main" does not make a frame a container.
  EXPECT_TRUE(reject_reason(candidate("domain/x.py(3): rope", {"a", "b"}), on).empty());
  RejectSettings frames;
  frames.reject_python_frames = true;
  EXPECT_FALSE(
      reject_reason(candidate("x/modeling.py(68): apply_rotary_pos_emb", {"a", "b"}), frames)
          .empty());
  RejectSettings off;
  off.reject_containers = false;
  EXPECT_TRUE(reject_reason(candidate("x/gen.py(42): main", {"a", "a"}), off).empty());
}

TEST(RejectRule, ShortNames) {
  EXPECT_EQ(short_name("transformers/models/qwen2/modeling_qwen2.py(68): apply_rotary_pos_emb"),
            "apply_rotary_pos_emb");
  EXPECT_EQ(short_name("transformers/models/qwen2/modeling_qwen2.py(218): forward"),
            "modeling_qwen2.py(218): forward");
  EXPECT_EQ(short_name("Qwen2MLP"), "Qwen2MLP");
}

// Table cells name what a templated kernel computes, not its wrapper's first 60 characters.
TEST(KernelLabel, KeepsTheTokenThatSaysWhatTheKernelComputes) {
  EXPECT_EQ(kernel_label("short_kernel"), "short_kernel");
  EXPECT_EQ(kernel_label("void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_"
                         "nocast<at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, "
                         "c10::BFloat16, at::native::binary_internal::MulFunctor<float> > >"),
            "at::native::elementwise_kernel<…MulFunctor…>");
  EXPECT_EQ(
      kernel_label("void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous "
                   "namespace)::pow_tensor_scalar_kernel_impl<float, float>(at::"
                   "TensorIteratorBase&, float)::{lambda(float)#1}, std::array<char*, 2ul> >"),
      "at::native::vectorized_elementwise_kernel<…pow_tensor_scalar_kernel_impl…>");
  const std::string opaque(80, 'x');
  EXPECT_EQ(kernel_label(opaque), std::string(60, 'x') + "...");
}

}  // namespace
}  // namespace traceprism::plugins::fusion
