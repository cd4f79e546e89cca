// Recognizing a platform from device properties and kernel names when the trace's device name
// matches no platform file (platform/platform_guess.hpp), on the bundled files.
#include <gtest/gtest.h>

#include "platform/platform_guess.hpp"

namespace traceprism::platform {
namespace {

index::DeviceInfo device(int major, int minor, int warp, int sms, double gib) {
  index::DeviceInfo d;
  d.compute_major = major;
  d.compute_minor = minor;
  d.warp_size = warp;
  d.num_sms = sms;
  d.total_global_mem = static_cast<std::int64_t>(gib * 1024 * 1024 * 1024);
  return d;
}

std::string guessed(const index::DeviceInfo* d, const std::vector<std::string_view>& kernels = {}) {
  const PlatformGuess g = guess_platform(bundled_platforms(), d, kernels);
  return g.platform ? g.platform->name : std::string();
}

std::vector<std::string> candidates(const std::vector<std::string_view>& kernels) {
  std::vector<std::string> out;
  for (const PlatformSpec* p : guess_platform(bundled_platforms(), nullptr, kernels).candidates)
    out.push_back(p->name);
  return out;
}

TEST(PlatformGuess, EveryBundledFileStatesItsArchitecture) {
  for (const PlatformSpec& p : bundled_platforms()) {
    EXPECT_TRUE(p.architecture.starts_with("gfx") || p.architecture.starts_with("sm_")) << p.name;
    EXPECT_GT(p.multiprocessors, 0) << p.name;
  }
}

TEST(PlatformGuess, ArchitectureFromDeviceProperties) {
  EXPECT_EQ(device_architecture(device(9, 4, 64, 304, 192)), "gfx94");
  EXPECT_EQ(device_architecture(device(9, 0, 32, 132, 80)), "sm_90");
  EXPECT_EQ(device_architecture(device(10, 0, 32, 148, 180)), "sm_100");
  EXPECT_EQ(device_architecture(index::DeviceInfo{}), "");
}

TEST(PlatformGuess, ArchitectureFromKernelNames) {
  EXPECT_EQ(kernel_architecture({"Cijk_Ailk_Bljk_BBS_BH_MT256x128x64_ISA942_IU1", "triton_poi_0",
                                 "kernel_gfx942_a"}),
            "gfx942");
  EXPECT_EQ(kernel_architecture({"sm90_xmma_gemm_bf16bf16_bf16f32", "cutlass3x_sm90_tensorop_gemm",
                                 "ampere_sgemm_128x64_nn"}),
            "sm_90");
  EXPECT_EQ(kernel_architecture(
                {"void at::native::vectorized_elementwise_kernel<4>", "Cijk_Ailk_ASM_ASEM64_sm"}),
            "");
}

TEST(PlatformGuess, DevicePropertiesPickOnePlatform) {
  // The vLLM traces' deviceProperties: empty name, gfx942, 304 CUs, 192 GiB.
  const auto mi300x = device(9, 4, 64, 304, 192);
  EXPECT_EQ(guessed(&mi300x), "MI300X");
  const auto mi325x = device(9, 4, 64, 304, 256);
  EXPECT_EQ(guessed(&mi325x), "MI325X");
  const auto h100_sxm = device(9, 0, 32, 132, 79.2);
  EXPECT_EQ(guessed(&h100_sxm), "H100-SXM");
  const auto h100_pcie = device(9, 0, 32, 114, 79.2);
  EXPECT_EQ(guessed(&h100_pcie), "H100-PCIe");
  const auto h200 = device(9, 0, 32, 132, 140);
  EXPECT_EQ(guessed(&h200), "H200");
  const auto mi250x_gcd = device(9, 0, 64, 110, 64);
  EXPECT_EQ(guessed(&mi250x_gcd), "MI250X");
}

TEST(PlatformGuess, NoGuessForADeviceNoFileDescribes) {
  const auto mi300a = device(9, 4, 64, 228, 128);  // gfx942 too, but 228 CUs
  const PlatformGuess g = guess_platform(bundled_platforms(), &mi300a, {"kernel_gfx942"});
  EXPECT_EQ(g.platform, nullptr);
  EXPECT_TRUE(g.candidates.empty());
  EXPECT_EQ(g.evidence, "device properties: gfx94x, 228 compute units, 128 GiB");
}

TEST(PlatformGuess, KernelNamesAloneNarrowButMayNotDecide) {
  EXPECT_EQ(guessed(nullptr, {"sm80_xmma_gemm_f16f16_f16f32"}), "A100-SXM-80GB");
  EXPECT_EQ(candidates({"Cijk_Ailk_ISA942_x"}), (std::vector<std::string>{"MI300X", "MI325X"}));
  EXPECT_EQ(guessed(nullptr, {"Cijk_Ailk_ISA942_x"}), "");
  EXPECT_TRUE(candidates({"triton_poi_fused_0"}).empty());
}

}  // namespace
}  // namespace traceprism::platform
