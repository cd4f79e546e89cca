// The example at the top of sdk/include/traceprism/op_model.hpp, compiled and run, so that the
// SDK's documentation stays true. Keep the block between the markers identical to that comment.
#include <gtest/gtest.h>
#include <traceprism/op_model.hpp>
#include <traceprism/sdk.hpp>

#include <cstdint>
#include <optional>
#include <string_view>

namespace {

using traceprism::OpCall;
using traceprism::OpModelResult;

// ---- example (op_model.hpp) ----
void mm(const OpCall& c, OpModelResult& r) {
  r.category = "GEMM";
  const auto a = c.shape(0), b = c.shape(1);
  const std::int64_t M = a.at(0), K = a.at(1), N = b.at(1);
  r.param("M", M);
  r.param("N", N);
  r.param("K", K);
  r.compute_spec = c.type(0) == "c10::BFloat16" ? "matrix_bf16" : "";
  r.flops = 2.0 * M * N * K;
}
const char* const kMmNames[] = {"aten::mm", nullptr};
TRACEPRISM_OP_MODELS(traceprism::op_model<&mm>("gemm-mm", "aten::mm: 2MNK FLOPs", kMmNames));
// ---- end of example ----

TEST(SdkExample, TheOpModelOfTheHeaderCommentComputesItsCall) {
  const OpCall call("aten::mm", std::string_view("[[256,512],[512,128]]"),
                    std::string_view("[\"c10::BFloat16\",\"c10::BFloat16\"]"), std::nullopt,
                    std::nullopt, {});
  OpModelResult r;
  mm(call, r);
  EXPECT_EQ(r.category, "GEMM");
  EXPECT_EQ(r.compute_spec, "matrix_bf16");
  EXPECT_DOUBLE_EQ(r.flops, 2.0 * 256 * 128 * 512);
  ASSERT_EQ(r.params.size(), 3u);
  EXPECT_EQ(r.params[0].key, "M");
  EXPECT_EQ(r.params[0].repr, "256");
  // The registration the example ends with describes one model claiming aten::mm.
  EXPECT_STREQ(traceprism_plugin_op_models_[0].name, "gemm-mm");
  EXPECT_STREQ(traceprism_plugin_op_models_[0].op_names[0], "aten::mm");
}

}  // namespace
