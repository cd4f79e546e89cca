// The kernel-fusion analyzer end to end on a host context: what it emits (findings, tables,
// figures, the published kernel map) and the §9.7 reject rule, which drops the elem_01 case's
// only estimate (10 independent aten::add from a script's main) from the findings while the
// metrics keep it.
#include "fusion/kernel_fusion_analyzer.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <regex>

#include "fusion/fusion_candidate.hpp"
#include "fusion/fusion_prose.hpp"
#include "fusion/kernel_classifier.hpp"
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

// The container names and kernel labels were read with std::regex, whose libstdc++ matcher
// recurses once per character; the hand-written matchers must answer as the regexes did (the
// oracles below) on random names made of the pieces the patterns look for, and must not
// overflow the stack on a name of a million characters.

std::string random_name(std::mt19937& random, const std::vector<std::string>& pieces,
                        int min_pieces, int max_pieces) {
  std::string out;
  const int n = std::uniform_int_distribution<int>(min_pieces, max_pieces)(random);
  std::uniform_int_distribution<std::size_t> pick(0, pieces.size() - 1);
  for (int i = 0; i < n; ++i) out += pieces[pick(random)];
  return out;
}

TEST(RejectRule, ContainerNamesAsTheRegexReadThem) {
  const std::regex container(
      "Sequential|ModuleList|ModuleDict|DecoderLayer|EncoderLayer|TransformerBlock|Block$|"
      "Layer$|Model$|ForCausalLM|main|forward$");
  const std::vector<std::string> pieces = {
      "Sequential", "Sequent",     "Module", "List",    "Dict", "Decoder", "Encoder",
      "Layer",      "Transformer", "Block",  "Model",   "For",  "Causal",  "LM",
      "main",       "ma",          "in",     "forward", "for",  "ward",    "Qwen2",
      "x",          "\n",          "/",      " "};
  std::mt19937 random(11);
  const RejectSettings on;
  int containers = 0;
  for (int n = 0; n < 20000; ++n) {
    const std::string name = random_name(random, pieces, 0, 5);
    const bool expected = std::regex_search(name, container);
    containers += expected;
    ASSERT_EQ(!reject_reason(candidate(name, {"a", "b"}), on).empty(), expected)
        << "name: [" << name << "]";
  }
  EXPECT_GT(containers, 2000);
  EXPECT_LT(containers, 18000);
  EXPECT_FALSE(
      reject_reason(candidate(std::string(1000000, 'x') + "Layer", {"a", "b"}), on).empty());
  EXPECT_TRUE(
      reject_reason(candidate("Layer" + std::string(1000000, 'x'), {"a", "b"}), on).empty());
}

// kernel_label as it was, with the regexes.
std::string regex_kernel_label(const std::string& name) {
  if (name.size() <= 60) return name;
  static const std::regex kFunctor(R"([A-Za-z0-9_]*(?:Functor|Ops)[A-Za-z0-9_]*)");
  static const std::regex kKernel(R"([A-Za-z0-9_]+_kernel_(?:cuda|impl))");
  std::string head = name.rfind("void ", 0) == 0 ? name.substr(5) : name;
  const std::size_t open = head.find('<');
  if (open == std::string::npos) return head.substr(0, 60) + "...";
  const std::string args = head.substr(open);
  std::string token;
  for (auto it = std::sregex_iterator(args.begin(), args.end(), kFunctor);
       it != std::sregex_iterator(); ++it)
    token = it->str();
  if (token.empty())
    for (auto it = std::sregex_iterator(args.begin(), args.end(), kKernel);
         it != std::sregex_iterator() && token.empty(); ++it)
      if (it->str().rfind("gpu_kernel", 0) != 0) token = it->str();
  if (token.empty()) return head.substr(0, 60) + "...";
  std::string wrapper = head.substr(0, open);
  if (wrapper.size() > 45) wrapper = wrapper.substr(wrapper.rfind("::") + 2);
  return wrapper + "<…" + token + "…>";
}

TEST(KernelLabel, AsTheRegexesReadIt) {
  const std::vector<std::string> pieces = {
      "void ", "at::", "native::", "elementwise", "<",       ">",    ", ",   "Functor",    "Ops",
      "Mul",   "Func", "_kernel_", "_kernel",     "kernel_", "cuda", "impl", "gpu_kernel", "gpu_",
      "_",     "x",    "4",        "(",           ")",       "::",   " ",    "<4, "};
  std::mt19937 random(12);
  int tokens = 0;
  for (int n = 0; n < 20000; ++n) {
    const std::string name = random_name(random, pieces, 8, 30);
    const std::string expected = regex_kernel_label(name);
    tokens += expected.find("<…") != std::string::npos;
    ASSERT_EQ(kernel_label(name), expected) << "name: [" << name << "]";
  }
  EXPECT_GT(tokens, 2000);
  const std::string op(1000000, 'o');
  EXPECT_EQ(kernel_label("void at::native::elementwise_kernel<4, " + op + "Functor<float> >"),
            "at::native::elementwise_kernel<…" + op + "Functor…>");
  EXPECT_EQ(
      kernel_label("void at::native::elementwise_kernel<4, " + op + "_kernel_cuda" + op + ">"),
      "at::native::elementwise_kernel<…" + op + "_kernel_cuda…>");
}

// The rules are regexes (data), applied to a name's first 4096 bytes only.
TEST(KernelClassifier, LongNamesAreClassifiedOnTheirFirst4096Bytes) {
  const std::string tail(1000000, 'a');
  // Whole, these names would run `.*` over a million characters.
  EXPECT_EQ(classify_kernel("rsqrt_" + tail + "_mean_pow"), "Unknown");
  EXPECT_EQ(classify_kernel("triton_red_fused_rsqrt_" + tail + "_mean_pow"), "Elementwise");
  EXPECT_EQ(classify_kernel("cutlass_gemm_" + tail), "GEMM");
  EXPECT_EQ(classify_kernel(std::string(4096 - 4, 'a') + "gemm" + tail), "GEMM");
  EXPECT_EQ(classify_kernel(std::string(4096 - 3, 'a') + "gemm" + tail), "Unknown");
  // Either side of the switch to the breadth-first matcher (1024 bytes), the same answers.
  for (std::size_t length : {1000, 1024, 1025, 1100}) {
    EXPECT_EQ(classify_kernel("fused__to_copy_add_" + std::string(length, 'x') + "mean_pow_rsqrt"),
              "RMSNorm (fused triton)");
    EXPECT_EQ(classify_kernel("void " + std::string(length, 'x') + "_silu_kernel"), "Unknown");
  }
}

}  // namespace
}  // namespace traceprism::plugins::fusion
