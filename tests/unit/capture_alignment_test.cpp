// Aligning a capture's launch calls with a graph replay's kernels (inference-mode spec §3.7):
// the reference tests' cases (exact, memcpy pair, greedy skip, group reorder, group count
// mismatch, multi-stream tie-break) and the failures.
#include <gtest/gtest.h>

#include "model/capture_alignment.hpp"

namespace traceprism::model {
namespace {

using Pairs = std::vector<std::pair<std::size_t, std::size_t>>;

CapturedCall launch(const std::string& kernel) {
  return {"hipLaunchKernel", kernel};
}

std::vector<ReplayedEvent> on_stream(const std::vector<std::string>& names, std::int64_t s = 3) {
  std::vector<ReplayedEvent> out;
  for (const std::string& n : names) out.push_back({n, s});
  return out;
}

TEST(CaptureAlignment, SameNamesInOrderAreExact) {
  const Alignment a = align_capture({launch("k1"), launch("k2")}, on_stream({"k1", "k2"}));
  EXPECT_EQ(a.code, AlignmentCode::kExact);
  EXPECT_EQ(a.pairs, (Pairs{{0, 0}, {1, 1}}));
}

TEST(CaptureAlignment, CopiesPairWithCopiesAndMemsetsWithFills) {
  const std::vector<CapturedCall> calls = {
      {"hipMemcpyAsync", std::nullopt}, {"hipMemsetAsync", std::nullopt}, launch("k1")};
  const Alignment a = align_capture(
      calls, on_stream({"Memcpy DtoD (Device -> Device)", "fillBufferAligned", "k1"}));
  EXPECT_EQ(a.code, AlignmentCode::kExact);
  EXPECT_EQ(a.pairs.size(), 3u);
  EXPECT_TRUE(call_matches(calls[1], {"Memset (Device)", 3}));
  EXPECT_FALSE(call_matches(calls[0], {"k1", 3}));
}

TEST(CaptureAlignment, DifferentLengthsTakeTheNextMatchingCall) {
  const Alignment a =
      align_capture({launch("k1"), launch("extra"), launch("k2")}, on_stream({"k1", "k2"}));
  EXPECT_EQ(a.code, AlignmentCode::kGreedy);
  EXPECT_EQ(a.pairs, (Pairs{{0, 0}, {1, 2}}));
  const Alignment short_capture = align_capture({launch("k1")}, on_stream({"k1", "k2"}));
  EXPECT_EQ(short_capture.code, AlignmentCode::kFailed);
  EXPECT_TRUE(short_capture.pairs.empty());
}

TEST(CaptureAlignment, SameCountsOutOfOrderAreRegrouped) {
  const Alignment a =
      align_capture({launch("k1"), launch("k2"), launch("k1")}, on_stream({"k2", "k1", "k1"}));
  EXPECT_EQ(a.code, AlignmentCode::kRegrouped);
  EXPECT_EQ(a.pairs, (Pairs{{1, 0}, {0, 1}, {2, 2}}));  // in the calls' order
  const Alignment mismatch =
      align_capture({launch("k1"), launch("k1"), launch("k2")}, on_stream({"k2", "k2", "k1"}));
  EXPECT_EQ(mismatch.code, AlignmentCode::kFailed);
}

TEST(CaptureAlignment, CudaCallsWithoutKernelNamesAlignByPosition) {
  const Alignment a =
      align_capture({{"cudaLaunchKernel", std::nullopt}, {"cudaLaunchKernel", std::nullopt}},
                    on_stream({"gemm", "softmax"}));
  EXPECT_EQ(a.code, AlignmentCode::kExact);
  EXPECT_EQ(a.pairs, (Pairs{{0, 0}, {1, 1}}));
}

TEST(CaptureAlignment, SeveralStreamsUseTheLongestMatchingRunOnTies) {
  // k1 on stream 1; k1 then k2 on stream 2.
  const std::vector<ReplayedEvent> replayed = {{"k1", 1}, {"k1", 2}, {"k2", 2}};
  const Alignment first = align_capture({launch("k1"), launch("k1"), launch("k2")}, replayed);
  EXPECT_EQ(first.code, AlignmentCode::kPerStream);
  EXPECT_EQ(first.pairs, (Pairs{{0, 0}, {1, 1}, {2, 2}}));  // a tie: the first stream
  const Alignment run = align_capture({launch("k1"), launch("k2"), launch("k1")}, replayed);
  EXPECT_EQ(run.pairs, (Pairs{{0, 2}, {1, 0}, {2, 1}}));  // stream 2 matches k1, k2 in a row
  const Alignment unpaired = align_capture({launch("k1")}, replayed);
  EXPECT_EQ(unpaired.code, AlignmentCode::kFailed);
  const Alignment nameless = align_capture({{"cudaLaunchKernel", std::nullopt}}, replayed);
  EXPECT_TRUE(nameless.merge_failed);
}

}  // namespace
}  // namespace traceprism::model
