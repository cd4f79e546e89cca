// Binding inference attention ops to their serving step's annotation (inference-mode spec
// §2.3): the earliest-starting user annotation containing the op, its end strictly after the
// op's; only the op names the spec lists.
#include "model/step_binding.hpp"

#include <gtest/gtest.h>

#include "ingest/trace_reader.hpp"
#include "support/temp_dir.hpp"
#include "support/trace_builder.hpp"

namespace model = traceprism::model;
using traceprism::testing::TraceText;

namespace {

traceprism::index::EventIndex read(const std::string& text) {
  traceprism::testing::TempDir dir;
  return traceprism::ingest::read_trace(dir.write("t.json", text)).index;
}

TEST(StepBinding, EarliestContainingAnnotationWithAStrictlyLaterEnd) {
  TraceText t;
  // Rows 0-1: two steps; row 2 an SGLang step inside the first (starts later: not chosen).
  t.x("user_annotation", "execute_4_context_0(sq0sk0sqsq0sqsk0)_generation_4(sq4sk40sqsq4sqsk40)",
      "0", "1000");
  t.x("user_annotation", "execute_2_context_2(sq2sk2sqsq2sqsk2)_generation_0(sq0sk0sqsq0sqsk0)",
      "2000", "1000");
  t.x("user_annotation", "step[DECODE bs=4 g_sq=4 g_sk=40 g_sqsq=4 g_sqsk=40]", "10", "900");
  t.x("cpu_op", "vllm::unified_attention_with_output", "100", "50");    // 3: step 1
  t.x("cpu_op", "vllm::unified_attention_with_output", "2500", "500");  // 4: ends with step 2
  t.x("cpu_op", "aten::mm", "120", "10");                               // 5: not an attention op
  t.x("cpu_op", "vllm::unified_attention_with_output", "5000", "10");   // 6: no step
  const auto index = read(t.str());
  const auto binding = model::StepBinding::build(index);
  const auto first = binding.stats(index, 3);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(*first, (model::StepStats{0, 0, 0, 0, 4, 40, 4, 40}));
  EXPECT_FALSE(binding.stats(index, 4).has_value());  // e.end < ann.end is strict
  EXPECT_FALSE(binding.stats(index, 5).has_value());
  EXPECT_FALSE(binding.stats(index, 6).has_value());
}

TEST(StepBinding, NativeAnnotationsCarryNoSums) {
  TraceText t;
  t.x("user_annotation", "step[DECODE bs=32]", "0", "1000");
  t.x("cpu_op", "aiter::mha_batch_prefill", "100", "50");
  const auto index = read(t.str());
  EXPECT_FALSE(model::StepBinding::build(index).stats(index, 1).has_value());
}

}  // namespace
