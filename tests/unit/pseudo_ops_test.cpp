// Inference mode's unfused MoE pseudo ops (model/pseudo_ops.hpp, inference-mode spec §4.2): which
// kernels get one, their args, and the tree they hang in (the reference's QUIRK: the pseudo op
// adopts the launch, whose parent stays the real op).
#include "model/pseudo_ops.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>

#include "model/kernel_launchers.hpp"
#include "pipeline/trace_load.hpp"
#include "support/temp_dir.hpp"
#include "support/trace_builder.hpp"

namespace {

using traceprism::index::Row;
using traceprism::testing::TraceText;

constexpr const char* kUp = "_matmul_ogs_NNT_bf16xbf16xmxfp4_16x128x256x1_swiglu";
constexpr const char* kDown = "_matmul_ogs_NNT_bf16xbf16xmxfp4_16x128x256x1";
constexpr const char* kFinalize = "_finalize_matmul_scatter_bf16";

// A launch directly under the op above it, its kernel on stream 7 and their flow.
void launch(TraceText& t, int correlation, double ts, const std::string& kernel, double k_ts) {
  const std::string id = std::to_string(correlation);
  t.x("cuda_runtime", "hipModuleLaunchKernel", std::to_string(ts), "5",
      "{\"correlation\":" + id + "}");
  t.x("kernel", kernel, std::to_string(k_ts), "50",
      "{\"correlation\":" + id + ",\"stream\":7,\"device\":0}", "0", "7");
  t.flow(correlation, std::to_string(ts), std::to_string(k_ts), 7);
}

// Rows: 0 vllm::moe_forward, 1 TopK (k = 2), 2-3 its launch and kernel, then per GEMM and the
// finalize kernel: launch, kernel, and two flow rows (4 rows each, after TopK's 2 flow rows).
std::string moe_trace(const std::string& extra_op = "") {
  TraceText t;
  t.x("cpu_op", "vllm::moe_forward", "0", "1000",
      R"({"Input Dims": [[32, 3072], [32, 32], [], []], "Input type": ["c10::BFloat16",
         "c10::BFloat16", "", ""], "Concrete Inputs": ["", "", "", ""]})");
  t.x("cpu_op", "TopK", "10", "50",
      R"({"Input Dims": [[32, 32], []], "Input type": ["c10::BFloat16", "Scalar"],
         "Concrete Inputs": ["", "2"]})");
  launch(t, 1, 20, "topk_kernel", 1000);
  launch(t, 2, 100, kUp, 2000);
  launch(t, 3, 200, kDown, 2100);
  launch(t, 4, 300, kFinalize, 2200);
  if (!extra_op.empty()) t.x("cpu_op", extra_op, "5000", "10");
  return t.str();
}

struct Loaded {
  traceprism::testing::TempDir dir;
  traceprism::pipeline::TraceSession session;
};

std::unique_ptr<Loaded> load(const std::string& text, bool pseudo_ops = true) {
  auto out = std::make_unique<Loaded>();
  traceprism::pipeline::LoadOptions options;
  options.quiet = true;
  options.pseudo_ops = pseudo_ops;
  out->session = traceprism::pipeline::load_trace(out->dir.write("t.json", text), options);
  return out;
}

Row row_named(const traceprism::index::EventIndex& index, std::string_view name) {
  for (Row r = 0; r < index.size(); ++r)
    if (index.name(r) == name) return r;
  ADD_FAILURE() << name << " not found";
  return 0;
}

TEST(PseudoOps, EachMoeKernelGetsOneWithTheLayersArgs) {
  const auto loaded = load(moe_trace());
  const auto& index = loaded->session.file.index;
  const auto& tree = loaded->session.tree;
  const auto& links = loaded->session.links;
  const Row moe_forward = 0;
  // Appended after the trace's rows, in the reference's order: the GEMMs by start, then the
  // finalize kernel.
  const Row first = static_cast<Row>(index.size() - 3);
  ASSERT_EQ(index.name(first), "pseudo_op::moe_triton_unfused_up");
  ASSERT_EQ(index.name(first + 1), "pseudo_op::moe_triton_unfused_down");
  ASSERT_EQ(index.name(first + 2), "pseudo_op::moe_triton_unfused_finalize_matmul_scatter");
  EXPECT_EQ(*index.pseudo_op_args(first),
            R"({"MoE GEMM type":"up","MoE GEMM index":0,"MoE GEMM gated":true,"MoE topk":2})");
  EXPECT_EQ(*index.pseudo_op_args(first + 1),
            R"({"MoE GEMM type":"down","MoE GEMM index":1,"MoE GEMM gated":false,"MoE topk":2})");
  EXPECT_EQ(*index.pseudo_op_args(first + 2), R"({"MoE GEMM type":"finalize_matmul_scatter"})");
  EXPECT_FALSE(index.pseudo_op_args(moe_forward));
  EXPECT_TRUE(index.has_time(moe_forward));
  for (Row p = first; p < first + 3; ++p) {
    EXPECT_FALSE(index.has_time(p));
    // The real op's shape args.
    EXPECT_EQ(index.strings().view(index.op_args(p)->input_dims),
              index.strings().view(index.op_args(moe_forward)->input_dims));
  }

  // The pseudo op takes its launch's place below moe_forward and holds the launch; the launch's
  // parent stays moe_forward, so moe_forward remains the kernels' launcher.
  const Row up_kernel = row_named(index, kUp);
  const auto up_launch = static_cast<Row>(links.launcher(up_kernel));
  EXPECT_EQ(tree.parent(first), static_cast<std::int32_t>(moe_forward));
  EXPECT_EQ(tree.parent(up_launch), static_cast<std::int32_t>(moe_forward));
  ASSERT_EQ(tree.children(first).size(), 1u);
  EXPECT_EQ(tree.children(first)[0], up_launch);
  const auto below = tree.children(moe_forward);
  EXPECT_EQ(std::count(below.begin(), below.end(), up_launch), 0);
  EXPECT_EQ(std::count(below.begin(), below.end(), first), 1);
  EXPECT_EQ(std::count(below.begin(), below.end(), Row{1}), 1);  // TopK stays
  const auto launchers = traceprism::model::KernelLaunchers::build(index, tree, links);
  for (const auto& l : launchers.all()) {
    if (std::find(l.kernels.begin(), l.kernels.end(), up_kernel) != l.kernels.end()) {
      EXPECT_EQ(l.row, moe_forward);
    }
  }
}

TEST(PseudoOps, TopkDefaultsToFourWithoutATopKOp) {
  std::string text = moe_trace();
  text.replace(text.find("\"TopK\""), 6, "\"Sort\"");
  const auto loaded = load(text);
  const auto& index = loaded->session.file.index;
  EXPECT_NE(index.pseudo_op_args(index.size() - 3)->find("\"MoE topk\":4"), std::string::npos);
}

TEST(PseudoOps, OnlyForTheUnfusedTritonMoeInInferenceMode) {
  const std::size_t plain_rows = load(moe_trace(), false)->session.file.index.size();
  EXPECT_EQ(load(moe_trace())->session.file.index.size(), plain_rows + 3);
  // The AITER fused MoE is another extension's (not built): no pseudo ops.
  EXPECT_EQ(load(moe_trace("vllm::rocm_aiter_fused_moe"))->session.file.index.size(),
            plain_rows + 1);
  // No matmul_ogs kernel: nothing to split.
  std::string no_gemm = moe_trace();
  for (const char* kernel : {kUp, kDown}) {
    const std::string name = kernel;
    no_gemm.replace(no_gemm.find(name), name.size(), "other_kernel");
  }
  EXPECT_EQ(load(no_gemm)->session.file.index.size(), plain_rows);
}

}  // namespace
