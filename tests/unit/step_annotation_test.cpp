// Serving step annotations (inference-mode spec §2): every format of §2.1 with the shared
// traces' strings, the phases, and which annotations are a trace's steps (§2.2).
#include <gtest/gtest.h>

#include "model/step_annotation.hpp"
#include "pipeline/trace_load.hpp"
#include "support/temp_dir.hpp"
#include "support/trace_builder.hpp"

namespace traceprism::model {
namespace {

StepAnnotation parsed(std::string_view name) {
  const std::optional<StepAnnotation> a = parse_step_annotation(name);
  EXPECT_TRUE(a.has_value()) << name;
  return a.value_or(StepAnnotation{});
}

TEST(StepAnnotation, VllmDetailedDecodeOfTheSharedTrace) {
  const StepAnnotation a =
      parsed("execute_32_context_0(sq0sk0sqsq0sqsk0)_generation_32(sq32sk55086sqsq32sqsk55086)");
  EXPECT_EQ(a.format, AnnotationFormat::kVllmDetailed);
  EXPECT_TRUE(a.detailed());
  EXPECT_EQ(a.context_requests, 0);
  EXPECT_EQ(a.generation_requests, 32);
  EXPECT_EQ(a.g_sq, 32);
  EXPECT_EQ(a.g_sk, 55086);
  EXPECT_EQ(a.g_sqsq, 32);
  EXPECT_EQ(a.g_sqsk, 55086);
  EXPECT_EQ(a.batch_size, 32);
  EXPECT_TRUE(a.has_sqsk);
  EXPECT_EQ(step_phase(a), StepPhase::kDecodeOnly);
}

TEST(StepAnnotation, VllmDetailedChunkedPrefillWithDecode) {
  const StepAnnotation a = parsed(
      "execute_8192_context_9(sq8155sk8430sqsq7475785sqsk7671310)_generation_37"
      "(sq37sk34489sqsq37sqsk34489)");
  EXPECT_EQ(a.context_requests, 9);
  EXPECT_EQ(a.c_sq, 8155);
  EXPECT_EQ(a.c_sk, 8430);
  EXPECT_EQ(a.c_sqsq, 7475785);
  EXPECT_EQ(a.c_sqsk, 7671310);
  EXPECT_EQ(a.generation_requests, 37);
  EXPECT_EQ(a.g_sk, 34489);
  EXPECT_EQ(a.batch_size, 8192);  // the capture size the piecewise step picks
  EXPECT_EQ(a.num_requests(), 46);
  EXPECT_EQ(step_phase(a), StepPhase::kPrefillDecode);
  EXPECT_EQ(step_phase_name(step_phase(a)), "prefilldecode");
}

TEST(StepAnnotation, NonIntegerFieldsReadAsZero) {
  const StepAnnotation a =
      parsed("execute_4_context_1(sqNAsk7sqsq0sqsk0)_generation_0(sq0sk0sqsq0sqsk0)");
  EXPECT_EQ(a.c_sq, 0);
  EXPECT_EQ(a.c_sk, 7);
  EXPECT_EQ(step_phase(a), StepPhase::kPrefillOnly);
}

TEST(StepAnnotation, HugeCountsSaturateInsteadOfOverflowing) {
  const StepAnnotation a = parsed(
      "execute_1_context_9223372036854775807(sq9223372036854775807sk0sqsq0sqsk0)_generation_"
      "9223372036854775807(sq9223372036854775807sk0sqsq0sqsk0)");
  EXPECT_EQ(a.batch_size, INT64_MAX);
  EXPECT_EQ(a.num_requests(), INT64_MAX);
  // A number beyond int64 is not an integer: it reads as 0.
  EXPECT_EQ(parsed("step[DECODE bs=99999999999999999999]").generation_requests, 0);
}

TEST(StepAnnotation, VllmNative) {
  const StepAnnotation a = parsed("execute_context_1(512)_generation_3(3)");
  EXPECT_EQ(a.format, AnnotationFormat::kVllmNative);
  EXPECT_FALSE(a.detailed());
  EXPECT_EQ(a.context_requests, 1);
  EXPECT_EQ(a.c_sq, 512);
  EXPECT_EQ(a.generation_requests, 3);
  EXPECT_EQ(a.g_sq, 3);
  EXPECT_EQ(a.batch_size, 515);
  EXPECT_FALSE(a.has_sqsk);
}

TEST(StepAnnotation, SglangNativeForms) {
  const StepAnnotation decode = parsed("step[DECODE bs=32]");
  EXPECT_EQ(decode.format, AnnotationFormat::kSglangNative);
  EXPECT_EQ(decode.generation_requests, 32);
  EXPECT_EQ(decode.g_sq, 32);
  EXPECT_EQ(decode.batch_size, 32);
  EXPECT_EQ(step_phase(decode), StepPhase::kDecodeOnly);
  const StepAnnotation extend = parsed("step[EXTEND bs=2 toks=1024]");
  EXPECT_EQ(extend.context_requests, 2);
  EXPECT_EQ(extend.c_sq, 1024);
  EXPECT_EQ(extend.batch_size, 1024);
  // QUIRK (spec §2.1): a native MIXED step counts as prefill only.
  const StepAnnotation mixed = parsed("step[MIXED bs=4 toks=600]");
  EXPECT_EQ(mixed.context_requests, 4);
  EXPECT_EQ(mixed.generation_requests, 0);
  EXPECT_EQ(step_phase(mixed), StepPhase::kPrefillOnly);
}

TEST(StepAnnotation, SglangDetailedForms) {
  const StepAnnotation mixed = parsed(
      "step[MIXED bs=5 toks=520 c=1 c_sq=512 c_sk=512 c_sqsq=262144 c_sqsk=262144 g=4 "
      "g_sq=8 g_sk=4000 g_sqsq=16 g_sqsk=8000]");
  EXPECT_EQ(mixed.format, AnnotationFormat::kSglangDetailed);
  EXPECT_EQ(mixed.context_requests, 1);
  EXPECT_EQ(mixed.generation_requests, 4);
  EXPECT_EQ(mixed.c_sqsq, 262144);
  EXPECT_EQ(mixed.g_sqsk, 8000);
  EXPECT_EQ(mixed.batch_size, 520);  // c_sq + g_sq
  EXPECT_TRUE(mixed.has_sqsk);
  // Speculative decoding (MTP): more query tokens than requests.
  const StepAnnotation mtp = parsed("step[DECODE bs=4 g_sq=8 g_sk=100 g_sqsq=16 g_sqsk=200]");
  EXPECT_EQ(mtp.generation_requests, 4);
  EXPECT_EQ(mtp.g_sq, 8);
  EXPECT_EQ(mtp.batch_size, 8);
  const StepAnnotation extend = parsed("step[EXTEND bs=3 toks=96 c_sqsq=0]");
  EXPECT_EQ(extend.context_requests, 3);
  EXPECT_EQ(extend.batch_size, 96);  // no c_sq / g_sq: the tokens
}

TEST(StepAnnotation, AtomForms) {
  const StepAnnotation decode = parsed("decode[bs=117/128 tok=117 sk=5000 sqsq=117 sqsk=5000 p=0]");
  EXPECT_EQ(decode.format, AnnotationFormat::kAtomDetailed);
  EXPECT_EQ(decode.generation_requests, 117);  // the first number of bs=117/128
  EXPECT_EQ(decode.g_sq, 117);
  EXPECT_EQ(decode.g_sk, 5000);
  EXPECT_EQ(decode.batch_size, 117);
  const StepAnnotation prefill = parsed("prefill[bs=2 tok=300 ctx=[100,200]+0]");
  EXPECT_EQ(prefill.format, AnnotationFormat::kAtomNative);
  EXPECT_EQ(prefill.context_requests, 2);
  EXPECT_EQ(prefill.c_sq, 300);
  EXPECT_FALSE(prefill.has_sqsk);
  EXPECT_EQ(step_phase(prefill), StepPhase::kPrefillOnly);
}

TEST(StepAnnotation, DiffusionCaptureAndNonMatching) {
  const StepAnnotation diffusion = parsed("execute_diffusion_2_1024x768");
  EXPECT_EQ(diffusion.format, AnnotationFormat::kDiffusionNative);
  EXPECT_EQ(diffusion.batch_size, 2);
  EXPECT_EQ(step_phase(diffusion), StepPhase::kIdle);
  const StepAnnotation capture = parsed("capture_32_FULL");
  EXPECT_EQ(capture.format, AnnotationFormat::kCapture);
  EXPECT_EQ(capture.batch_size, 32);
  EXPECT_EQ(capture.mode, "FULL");
  for (const char* other :
       {"ProfilerStep#3", "execute_model", "step[PREFILL bs=1]",
        "my_execute_32_context_0(sq0sk0sqsq0sqsk0)_generation_1(sq1sk1sqsq1sqsk1)"})
    EXPECT_FALSE(parse_step_annotation(other).has_value()) << other;
}

TEST(StepAnnotation, KeyValuePairsAreWholeWordsLeftToRight) {
  // A key starts at the body's start or after a non-word character; "x1b=9" is one word.
  const StepAnnotation a = parsed("step[DECODE,bs=7 x1b=9 bs=8]");
  EXPECT_EQ(a.generation_requests, 7);  // the first bs wins
  // "g=1" right after a value is not a key of its own (no separator before it).
  const StepAnnotation b = parsed("step[MIXED c=2g=1 toks=5 c_sq=1 sqsq=0]");
  EXPECT_EQ(b.context_requests, 2);
  EXPECT_EQ(b.generation_requests, 0);
  // A key with no digits after '=' is skipped, the next one read.
  EXPECT_EQ(parsed("decode[bs=x tok=4 bs=3]").generation_requests, 3);
  EXPECT_EQ(parsed("step[EXTEND=5 bs=6]").context_requests, 6);  // "=5" follows the kind
}

TEST(StepAnnotation, AtomBodyEndsAtTheLineLastBracket) {
  EXPECT_EQ(parsed("prefill[bs=2 tok=3] tail] more").c_sq, 3);
  EXPECT_FALSE(parse_step_annotation("prefill[bs=2\n]").has_value());
  EXPECT_EQ(parsed("capture_4_FULL\nsecond line").mode, "FULL");
}

// Regression (fuzzing, issue 19): std::regex recursed once per character and a long name
// overflowed the stack. Every form is read in linear time and constant stack.
TEST(StepAnnotation, NamesOfAMillionCharactersAreReadWithoutRecursion) {
  const std::string filler(1'000'000, 'a');
  EXPECT_EQ(parsed("prefill[bs=2 tok=9 " + filler + "]").c_sq, 9);
  EXPECT_EQ(parsed("step[DECODE bs=4 " + filler + "]").generation_requests, 4);
  EXPECT_EQ(parsed("execute_context_1(" + filler + ")_generation_2(3)").generation_requests, 2);
  EXPECT_EQ(parsed("capture_8_" + filler).mode.size(), filler.size());
  for (const std::string& other :
       {"step[DECODE " + filler, "prefill[" + filler, "execute_context_1(" + filler,
        "execute_diffusion_" + std::string(1'000'000, '7'), "decode[" + std::string(200'000, '=')})
    EXPECT_FALSE(parse_step_annotation(other).has_value()) << other.substr(0, 20);
  EXPECT_EQ(parsed("decode[" + std::string(300'000, ' ') + "bs=5]").generation_requests, 5);
}

TEST(ServingSteps, DetailedAnnotationsWinAndComeInTimeOrder) {
  testing::TraceText t;
  t.x("user_annotation", "step[DECODE bs=32]", "150", "500");
  t.x("user_annotation",
      "execute_32_context_0(sq0sk0sqsq0sqsk0)_generation_32(sq32sk99sqsq32sqsk99)", "700", "400");
  t.x("user_annotation",
      "execute_32_context_0(sq0sk0sqsq0sqsk0)_generation_32(sq32sk90sqsq32sqsk90)", "100", "500");
  t.x("user_annotation", "capture_32_FULL", "50", "10");
  testing::TempDir dir;
  pipeline::LoadOptions options;
  options.quiet = true;
  const auto session = pipeline::load_trace(dir.write("t.json", t.str()), options);
  const std::vector<ServingStep> steps = serving_steps(session.file.index);
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].annotation.g_sk, 90);
  EXPECT_EQ(steps[1].annotation.g_sk, 99);

  testing::TraceText native_only;
  native_only.x("user_annotation", "step[DECODE bs=8]", "100", "50");
  native_only.x("user_annotation", "ProfilerStep#1", "90", "80");
  const auto native = pipeline::load_trace(dir.write("n.json", native_only.str()), options);
  const std::vector<ServingStep> native_steps = serving_steps(native.file.index);
  ASSERT_EQ(native_steps.size(), 1u);
  EXPECT_EQ(native_steps[0].annotation.generation_requests, 8);
}

}  // namespace
}  // namespace traceprism::model
