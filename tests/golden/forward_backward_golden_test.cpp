// Forward/backward linking (trace-format spec §3.7) on the two training traces in
// ../shared/traces. Expected pairs were computed from the raw JSON with a separate script that
// follows the spec text (group cpu_ops by Sequence number; first evaluate_function op is the
// backward node; latest-starting op on another thread is the forward op).
#include "model/forward_backward.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "ingest/trace_reader.hpp"
#include "support/shared_traces.hpp"

namespace fs = std::filesystem;
using traceprism::model::ForwardBackwardLinks;

namespace {

TEST(ForwardBackward, NormalizationTrainingTrace) {
  const fs::path trace = traceprism::testing::shared_traces() / "tracelens" / "perf_model" /
                         "normalization" / "normalization_layer_test.json.gz";
  if (!fs::exists(trace)) GTEST_SKIP() << trace << " is absent";
  auto file = traceprism::ingest::read_trace(trace.string());
  auto links = ForwardBackwardLinks::build(file.index);
  EXPECT_EQ(links.pairs().size(), 51u);
  EXPECT_EQ(links.forward_of(0), 984);   // MseLossBackward0 -> aten::mse_loss
  EXPECT_EQ(links.forward_of(10), 975);  // FusedRmsNormBackward0 -> aten::_fused_rms_norm
  EXPECT_EQ(links.forward_of(15), 971);
  EXPECT_EQ(file.index.name(984), "aten::mse_loss");
  EXPECT_EQ(links.backward_of(984), std::vector<traceprism::index::Row>{0});
  EXPECT_EQ(links.forward_of(984), -1);
}

TEST(ForwardBackward, RocmToyTrainingTrace) {
  const fs::path trace = traceprism::testing::shared_traces() / "hta" / "amd_trace" /
                         "mi250_minitoy_train_ROCm6_2_kineto.json.gz";
  if (!fs::exists(trace)) GTEST_SKIP() << trace << " is absent";
  auto file = traceprism::ingest::read_trace(trace.string());
  auto links = ForwardBackwardLinks::build(file.index);
  EXPECT_EQ(links.pairs().size(), 4u);
  EXPECT_EQ(links.forward_of(0), 66);
  EXPECT_EQ(links.forward_of(10), 55);
  EXPECT_EQ(links.forward_of(14), 51);
  EXPECT_EQ(file.index.name(55), "aten::relu");
}

}  // namespace
