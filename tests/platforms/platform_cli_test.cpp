// `traceprism analyze --platform` / `--platform-file` and `traceprism platforms` end to end.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <fstream>

#include "support/run_cli.hpp"
#include "support/temp_dir.hpp"
#include "support/trace_builder.hpp"

namespace traceprism::testing {
namespace {

namespace fs = std::filesystem;

class PlatformCli : public ::testing::Test {
 protected:
  // One GEMM kernel; `device` becomes the deviceProperties name when given.
  fs::path trace(const std::string& device = "") {
    TraceText t;
    t.launch("aten::mm", 0, 20, "gemm_kernel_a", 10, 10, 7, 1);
    const std::string props =
        device.empty() ? "" : R"("deviceProperties":[{"id":0,"name":")" + device + R"("}])";
    fs::path p = dir_.path() / "trace.json";
    std::ofstream(p, std::ios::binary) << t.str(props);
    return p;
  }
  int analyze(const fs::path& trace, const std::string& args, std::string* out) {
    return run_program(TRACEPRISM_BINARY,
                       "analyze -q " + shell_quote(trace.string()) + " -o " +
                           shell_quote((dir_.path() / "out").string()) + " " + args,
                       out);
  }
  boost::json::object platform() {
    return boost::json::parse(read_file((dir_.path() / "out" / "findings.json").string()))
        .as_object()
        .at("platform")
        .as_object();
  }
  TempDir dir_;
};

TEST_F(PlatformCli, UnknownPlatformExits64ListingTheNames) {
  std::string out;
  EXPECT_EQ(analyze(trace(), "--platform nope", &out), 64) << out;
  EXPECT_NE(out.find("unknown --platform 'nope'; known platforms: "), std::string::npos) << out;
  for (const char* name : {"H100-SXM", "B200", "MI300X", "MI355X", "V100-SXM2-32GB"})
    EXPECT_NE(out.find(name), std::string::npos) << name << " missing from: " << out;
}

TEST_F(PlatformCli, NamedPlatformIsUsed) {
  std::string out;
  ASSERT_EQ(analyze(trace(), "--platform h100", &out), 0) << out;
  EXPECT_NE(std::string(platform().at("name").as_string()).find("H100"), std::string::npos);
  const std::string md = read_file((dir_.path() / "out" / "analysis.md").string());
  EXPECT_NE(md.find("- **Peak HBM BW**: 3.4 TB/s"), std::string::npos) << md;
  EXPECT_NE(md.find("- **Peak MAF (BF16)**: 990 TFLOPS"), std::string::npos) << md;
  EXPECT_NE(md.find("- **Peak MAF (FP8)**: 1979 TFLOPS"), std::string::npos) << md;
}

TEST_F(PlatformCli, AutoDetectsFromDeviceProperties) {
  std::string out;
  ASSERT_EQ(analyze(trace("AMD Instinct MI300X VF"), "", &out), 0) << out;
  EXPECT_EQ(platform().at("name").as_string(), "MI300X");
  EXPECT_EQ(platform().at("device_name").as_string(), "AMD Instinct MI300X VF");
  // The Appendix shows the measured achievable numbers when the platform has them.
  const std::string md = read_file((dir_.path() / "out" / "analysis.md").string());
  EXPECT_NE(md.find("- **Peak MAF (BF16)**: 708 TFLOPS"), std::string::npos) << md;
}

TEST_F(PlatformCli, AutoWarnsOnAnUnknownDevice) {
  std::string out;
  ASSERT_EQ(analyze(trace("Mystery GPU 9000"), "", &out), 0) << out;
  EXPECT_NE(out.find("warning: no platform file matches the device 'Mystery GPU 9000'"),
            std::string::npos)
      << out;
  EXPECT_EQ(platform().at("name").as_string(), "");
}

// Serving traces often write deviceProperties without a name: the properties still tell the GPU.
TEST_F(PlatformCli, AutoRecognizesAnUnnamedDeviceByItsProperties) {
  TraceText t;
  t.launch("aten::mm", 0, 20, "gemm_kernel_a", 10, 10, 7, 1);
  const fs::path p = dir_.path() / "trace.json";
  std::ofstream(p, std::ios::binary)
      << t.str(R"("deviceProperties":[{"id":0,"name":"","totalGlobalMem":206141652992,)"
               R"("computeMajor":9,"computeMinor":4,"warpSize":64,"numSms":304}])");
  std::string out;
  ASSERT_EQ(analyze(p, "", &out), 0) << out;
  EXPECT_NE(out.find("warning: the trace names no device; using MI300X from its device "
                     "properties: gfx94x, 304 compute units, 192 GiB"),
            std::string::npos)
      << out;
  EXPECT_EQ(platform().at("name").as_string(), "MI300X");
}

TEST_F(PlatformCli, PlatformFileTakesTheReferenceArchJson) {
  const fs::path arch = dir_.path() / "arch.json";
  std::ofstream(arch)
      << R"({"name":"MyGPU","mem_bw_gbps":1000,"max_achievable_tflops":{"matrix_bf16":100}})";
  std::string out;
  ASSERT_EQ(analyze(trace("NVIDIA H100 80GB HBM3"), "--platform-file " + shell_quote(arch.string()),
                    &out),
            0)
      << out;
  EXPECT_EQ(platform().at("name").as_string(), "MyGPU");
}

TEST_F(PlatformCli, BadPlatformFileExits64WithItsSentence) {
  const fs::path bad = dir_.path() / "bad.json";
  std::ofstream(bad) << R"({"schema_version":1,"name":"X","memory_gb":-1})";
  std::string out;
  EXPECT_EQ(analyze(trace(), "--platform-file " + shell_quote(bad.string()), &out), 64) << out;
  EXPECT_NE(out.find("bad.json: memory_gb must be a positive number."), std::string::npos) << out;
}

TEST_F(PlatformCli, PlatformsCommandListsEveryFile) {
  std::string out;
  ASSERT_EQ(run_program(TRACEPRISM_BINARY, "platforms", &out), 0) << out;
  EXPECT_NE(out.find("H100-SXM  (NVIDIA, platforms/h100_sxm.json)"), std::string::npos) << out;
  EXPECT_NE(out.find("matches: MI300X"), std::string::npos) << out;
  EXPECT_NE(out.find("host link: 64 GB/s per direction"), std::string::npos) << out;
  EXPECT_NE(out.find("host link: unknown"), std::string::npos) << out;  // B200
  EXPECT_NE(out.find("interconnect: NVLink 4 450 GB/s per direction (8 GPUs), PCIe Gen5 63 GB/s "
                     "per direction"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("interconnect: no scale-up link, PCIe Gen4 31.5 GB/s"), std::string::npos)
      << out;  // L40S
  ASSERT_EQ(run_program(TRACEPRISM_BINARY, "platforms --json", &out), 0) << out;
  const auto list = boost::json::parse(out).as_array();
  EXPECT_EQ(list.size(), 11u);
  for (const auto& p : list) {
    const auto& o = p.as_object();
    if (o.at("name").as_string() == "H100-SXM") {
      EXPECT_EQ(o.at("host_link_gbps").to_number<double>(), 64);
    }
    if (o.at("name").as_string() == "B200") {
      EXPECT_FALSE(o.contains("host_link_gbps"));
    }
  }
}

}  // namespace
}  // namespace traceprism::testing
