// Launch↔GPU linking and ingestion counts on the bert traces, against the figures measured on
// the raw JSON in the trace-format spec (§1.2, §1.5).
#include <gtest/gtest.h>

#include <filesystem>

#include "pipeline/trace_load.hpp"
#include "support/shared_traces.hpp"

namespace fs = std::filesystem;
using traceprism::index::EventKind;

namespace {

const fs::path kTraceDir = traceprism::testing::shared_traces() / "tracelens";

traceprism::pipeline::TraceSession load(const fs::path& trace) {
  traceprism::pipeline::LoadOptions options;
  options.quiet = true;
  return traceprism::pipeline::load_trace(trace.string(), options);
}

TEST(BertLinking, H100) {
  const fs::path trace = kTraceDir / "h100" / "gaunernst_bert-small-uncased__1016001.json.gz";
  if (!fs::exists(trace)) GTEST_SKIP() << trace << " is absent";
  auto s = load(trace);
  const auto& x = s.file.index;
  EXPECT_EQ(x.size(), 2551u);
  EXPECT_EQ(x.rows_of_kind(EventKind::kKernel).size(), 60u);
  EXPECT_EQ(x.rows_of_kind(EventKind::kGpuMemcpy).size(), 1u);
  EXPECT_EQ(x.rows_of_kind(EventKind::kCpuOp).size(), 479u);
  EXPECT_EQ(x.rows_of_kind(EventKind::kCudaRuntime).size(), 110u);
  EXPECT_EQ(x.rows_of_kind(EventKind::kCudaDriver).size(), 22u);
  EXPECT_EQ(x.rows_of_kind(EventKind::kFlowStart).size(), 86u);
  EXPECT_EQ(x.rows_of_kind(EventKind::kFlowEnd).size(), 107u);
  // §1.5: 61 ids have both flow halves: 60 kernels + 1 memcpy, all linked.
  EXPECT_EQ(s.links.linked_count(), 61u);
  EXPECT_EQ(s.links.unlinked_count(), 0u);
  EXPECT_EQ(s.links.key(), traceprism::model::LaunchLinks::Key::kCorrelation);
  // 22 kernels come through the driver API (cuLaunchKernel).
  std::size_t via_driver = 0;
  for (auto g : x.rows_of_kind(EventKind::kKernel)) {
    if (x.kind(static_cast<traceprism::index::Row>(s.links.launcher(g))) == EventKind::kCudaDriver)
      ++via_driver;
  }
  EXPECT_EQ(via_driver, 22u);
  EXPECT_TRUE(x.stats().empty());
  ASSERT_EQ(x.metadata().devices.size(), 1u);
  EXPECT_EQ(x.metadata().devices[0].name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(x.metadata().devices[0].num_sms, 132);
}

TEST(BertLinking, Mi300) {
  const fs::path trace = kTraceDir / "mi300" / "gaunernst_bert-small-uncased__1016001.json.gz";
  if (!fs::exists(trace)) GTEST_SKIP() << trace << " is absent";
  auto s = load(trace);
  const auto& x = s.file.index;
  EXPECT_EQ(x.size(), 2653u);
  EXPECT_EQ(x.rows_of_kind(EventKind::kKernel).size(), 60u);
  EXPECT_EQ(x.rows_of_kind(EventKind::kGpuMemcpy).size(), 1u);
  EXPECT_EQ(x.rows_of_kind(EventKind::kCudaRuntime).size(), 161u);
  EXPECT_EQ(x.rows_of_kind(EventKind::kFlowStart).size(), 61u);
  EXPECT_EQ(x.rows_of_kind(EventKind::kFlowEnd).size(), 161u);
  // §1.5: 61 ids with both halves; the 100 f-only flows sit on the CPU thread and link nothing.
  EXPECT_EQ(s.links.linked_count(), 61u);
  EXPECT_EQ(s.links.unlinked_count(), 0u);
  ASSERT_EQ(x.metadata().devices.size(), 1u);
  EXPECT_EQ(x.metadata().devices[0].name, "AMD Instinct MI300X VF");
  EXPECT_EQ(x.metadata().devices[0].warp_size, 64);
}

TEST(QwenLinking, UnlinkedEventsBeforeTheCpuWindow) {
  const fs::path trace = kTraceDir / "h100" / "Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz";
  if (!fs::exists(trace)) GTEST_SKIP() << trace << " is absent";
  auto s = load(trace);
  // traces/README.md: 509 GPU events (436 kernels, 73 memsets) have no runtime launch event.
  EXPECT_EQ(s.links.unlinked_count(), 509u);
  EXPECT_EQ(s.file.index.rows_of_kind(EventKind::kGpuMemset).size(), 241u);
}

TEST(GraphLaunch, SglangDecodeLinksAllGraphKernels) {
  const fs::path trace =
      kTraceDir / "inference" / "sglang_decode" / "sglang_Qwen3-8B_decode.json.gz";
  if (!fs::exists(trace)) GTEST_SKIP() << trace << " is absent";
  auto s = load(trace);
  // traces/README.md: one hipGraphLaunch accounts for 544 of its 555 kernels.
  EXPECT_EQ(s.links.graph_launches(), 1u);
  std::size_t from_graph = 0;
  for (auto g : s.file.index.rows_of_kind(EventKind::kKernel)) {
    auto l = s.links.launcher(g);
    if (l >= 0 && s.file.index.name(static_cast<traceprism::index::Row>(l)) == "hipGraphLaunch")
      ++from_graph;
  }
  EXPECT_EQ(from_graph, 544u);
  EXPECT_EQ(s.file.index.rows_of_kind(EventKind::kKernel).size(), 555u);
}

}  // namespace
