// The device-copy bandwidth model (diagnosis spec §6.6): bytes of aten::cat / _to_copy / clone /
// contiguous computed by hand from their shapes, never for memcpy events or modelled ops, and
// the op_metrics columns it fills (the perf-report sheets are written before it runs).
#include "perf_report/device_copy_model.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace traceprism::perf_report {
namespace {

const char* kCatBf16Kernel =
    "void at::native::(anonymous namespace)::CatArrayBatchedCopy<at::native::(anonymous "
    "namespace)::OpaqueType<2u>, unsigned int, 4, 64, 64>(...)";

std::vector<KernelSummaryEntry> kernels(std::initializer_list<const char*> names) {
  std::vector<KernelSummaryEntry> out;
  for (const char* n : names) out.push_back({n, 0, {}, 1, 10, 10, 10, 0, 10, 10});
  return out;
}

// Qwen's rotary cat: two (16, 16, 559, 32) bf16 halves. 16·16·559·32 = 4579328 elements each;
// read 2 · 4579328 and write the same: 4 · 4579328 · 2 bytes = 36634624.
constexpr double kCatBytes = 36634624;

TEST(DeviceCopyModel, CatReadsEveryInputAndWritesTheirSum) {
  EXPECT_EQ(device_copy_bytes("aten::cat", "(((16, 16, 559, 32), (16, 16, 559, 32)), ())",
                              "('TensorList', 'Scalar')", "('', '-1')", kernels({kCatBf16Kernel})),
            kCatBytes);
  // A cat kernel that does not name its element size: unknown.
  EXPECT_EQ(device_copy_bytes("aten::cat", "(((2, 3), (2, 3)), ())", "('TensorList', 'Scalar')",
                              "None", kernels({"void at::native::cat_kernel"})),
            std::nullopt);
}

TEST(DeviceCopyModel, ConversionsAndClones) {
  const auto k = kernels({"void at::native::unrolled_elementwise_kernel<direct_copy_kernel>"});
  // float -> bf16 (ScalarType 15): 16·559·1024 = 9158656 elements · (4 + 2) bytes = 54951936.
  EXPECT_EQ(device_copy_bytes("aten::_to_copy", "((16, 559, 1024), (), (), (), (), (), ())",
                              "('float', 'Scalar', '', '', '', 'Scalar', '')",
                              "('', '15', '', '', '', 'False', '')", k),
            54951936.0);
  // No dtype given: written at the input's. clone of (8, 12, 3137, 64) bf16: 19273728 · 4.
  EXPECT_EQ(device_copy_bytes("aten::clone", "((8, 12, 3137, 64), ())", "('c10::BFloat16', '')",
                              "('', '')", k),
            77094912.0);
  EXPECT_EQ(device_copy_bytes("aten::contiguous", "((8, 12, 3137, 64), ())",
                              "('c10::BFloat16', 'Scalar')", "('', '0')", k),
            77094912.0);
}

TEST(DeviceCopyModel, NeverHostDeviceCopiesOrOtherOps) {
  EXPECT_EQ(
      device_copy_bytes("aten::_to_copy", "((16, 559, 1024), (), ())", "('float', 'Scalar', '')",
                        "('', '6', '')", kernels({"Memcpy HtoD (Pageable -> Device)"})),
      std::nullopt);
  EXPECT_EQ(device_copy_bytes("aten::clone", "((4, 4), ())", "('float', '')", "('', '')", {}),
            std::nullopt)
      << "no kernel: nothing ran on the device";
  // aten::copy_ has the reference's UnaryElementwise model; other ops are not copies.
  EXPECT_EQ(device_copy_bytes("aten::copy_", "((4, 4), (4, 4), ())", "('float', 'float', '')",
                              "('', '', '')", kernels({kCatBf16Kernel})),
            std::nullopt);
  EXPECT_EQ(device_copy_bytes("aten::add", "((4, 4), (4, 4))", "('float', 'float')", "None",
                              kernels({kCatBf16Kernel})),
            std::nullopt);
}

UnifiedGroup cat_group() {
  UnifiedGroup g;
  g.name = "aten::cat";
  g.category = "other";
  g.input_dims = "(((16, 16, 559, 32), (16, 16, 559, 32)), ())";
  g.input_type = "('TensorList', 'Scalar')";
  g.concrete_inputs = "('', '-1')";
  g.kernel_summary = kernels({kCatBf16Kernel});
  g.kernel_time = {20, 20, 5, 10, 40};  // mean, median, std, min, max (µs)
  const double nan = std::nan("");
  g.gflops = g.data_moved_mb = g.flops_per_byte = g.roofline_time_us = nan;
  return g;
}

TEST(DeviceCopyModel, FillsTheRooflineColumnsAtHbmBandwidth) {
  UnifiedPerfTable table;
  table.groups = {cat_group()};
  platform::PlatformInfo h100;
  h100.numbers["hbm_bandwidth_gbps"] = 3350;
  add_device_copy_models(table, &h100);
  const UnifiedGroup& g = table.groups[0];
  EXPECT_TRUE(g.has_perf_model);
  EXPECT_TRUE(table.has_model_columns);
  EXPECT_TRUE(table.has_roofline_columns);
  EXPECT_EQ(g.roofline_bound, "MEMORY_BOUND");
  EXPECT_EQ(g.gflops, 0.0);
  EXPECT_DOUBLE_EQ(g.data_moved_mb, 36634624.0 / (1024 * 1024));  // 34.9375 MiB
  // 36634624 B / 3350 GB/s = 10.9357 µs.
  const double roofline_us = 36634624.0 / 3350e9 * 1e6;
  EXPECT_NEAR(g.roofline_time_us, 10.9357, 1e-4);
  EXPECT_DOUBLE_EQ(g.roofline_time_us, roofline_us);
  // Mean over time (bytes / mean kernel time): 36634624 B / 20 µs = 1.8317 TB/s; 54.68 % of
  // roofline. The fastest instance (10 µs) gives the max, the slowest (40 µs) the min.
  EXPECT_NEAR(g.tb_per_s.mean, 1.8317312, 1e-9);
  EXPECT_NEAR(g.tb_per_s.max, 3.6634624, 1e-9);
  EXPECT_NEAR(g.tb_per_s.min, 0.9158656, 1e-9);
  EXPECT_NEAR(g.pct_roofline.mean, 54.6785, 1e-3);
  EXPECT_TRUE(std::isnan(g.pct_roofline.std));
}

TEST(DeviceCopyModel, NoBandwidthOrAModelAlreadyLeavesTheGroup) {
  UnifiedPerfTable table;
  table.groups = {cat_group()};
  add_device_copy_models(table, nullptr);
  platform::PlatformInfo unknown;
  add_device_copy_models(table, &unknown);
  EXPECT_FALSE(table.groups[0].has_perf_model);
  EXPECT_FALSE(table.has_roofline_columns);
  table.groups[0].has_perf_model = true;  // a reference model owns it
  platform::PlatformInfo h100;
  h100.numbers["hbm_bandwidth_gbps"] = 3350;
  add_device_copy_models(table, &h100);
  EXPECT_FALSE(table.groups[0].roofline_bound.has_value());
}

}  // namespace
}  // namespace traceprism::perf_report
