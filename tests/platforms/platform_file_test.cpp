// Platform files: the bundled ones validate, device names match, bad files fail with one
// sentence naming the file and the field, and the reference's arch JSON loads.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>

#include "platform/platform_file.hpp"
#include "support/shared_traces.hpp"

namespace traceprism::platform {
namespace {

TEST(BundledPlatforms, EveryFileParsesAndHasSources) {
  const auto& all = bundled_platforms();
  ASSERT_EQ(all.size(), 11u);
  for (const auto& p : all) {
    SCOPED_TRACE(p.origin);
    EXPECT_FALSE(p.name.empty());
    EXPECT_FALSE(p.vendor.empty());
    EXPECT_FALSE(p.match.empty());
    EXPECT_FALSE(p.sources.empty());
    EXPECT_TRUE(p.memory_gb.has_value());
    EXPECT_TRUE(p.hbm_bandwidth_gbps.has_value());
    EXPECT_FALSE(p.peak_tflops.empty());
  }
}

TEST(BundledPlatforms, NamesAndAliasesAreUniqueAndFound) {
  for (const auto& p : bundled_platforms()) {
    EXPECT_EQ(find_platform(p.name), &p) << p.name;
    for (const auto& a : p.aliases) EXPECT_EQ(find_platform(a), &p) << a;
  }
  ASSERT_NE(find_platform("h100"), nullptr);
  EXPECT_EQ(find_platform("h100")->name, "H100-SXM");
  EXPECT_EQ(find_platform("nope"), nullptr);
}

TEST(BundledPlatforms, DeviceNamesMatch) {
  const std::pair<const char*, const char*> cases[] = {
      {"NVIDIA H100 80GB HBM3", "H100-SXM"},
      {"NVIDIA H100 PCIe", "H100-PCIe"},
      {"NVIDIA H200", "H200"},
      {"NVIDIA B200", "B200"},
      {"NVIDIA A100-SXM4-80GB", "A100-SXM-80GB"},
      {"Tesla V100-DGXS-32GB", "V100-SXM2-32GB"},
      {"Tesla V100-SXM2-32GB", "V100-SXM2-32GB"},
      {"NVIDIA L40S", "L40S"},
      {"AMD Instinct MI250X", "MI250X"},
      {"AMD Instinct MI300X VF", "MI300X"},
      {"AMD Instinct MI300X", "MI300X"},
      {"AMD Instinct MI325X", "MI325X"},
      {"AMD Instinct MI355X", "MI355X"},
  };
  for (const auto& [device, name] : cases) {
    const PlatformSpec* p = match_device(device);
    ASSERT_NE(p, nullptr) << device;
    EXPECT_EQ(p->name, name) << device;
  }
  EXPECT_EQ(match_device("NVIDIA GeForce RTX 4090"), nullptr);
  EXPECT_EQ(match_device(""), nullptr);
}

TEST(BundledPlatforms, InfoNumbersAndRooflinePreferAchievable) {
  const PlatformInfo h100 = find_platform("H100")->info("NVIDIA H100 80GB HBM3");
  EXPECT_EQ(h100.name, "H100-SXM");
  EXPECT_EQ(h100.device_name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(h100.number("peak_tflops.matrix_bf16"), 989.5);
  EXPECT_EQ(h100.roofline_tflops("matrix_bf16"), 989.5);
  EXPECT_EQ(h100.roofline_bandwidth_gbps(), 3350);
  EXPECT_EQ(h100.number("memory_gb"), 80);
  EXPECT_FALSE(h100.roofline_tflops("matrix_fp4").has_value());  // unknown, not made up

  const PlatformInfo mi300x = find_platform("mi300x")->info();
  EXPECT_EQ(mi300x.number("peak_tflops.matrix_bf16"), 1307.4);
  EXPECT_EQ(mi300x.roofline_tflops("matrix_bf16"), 708);
  EXPECT_EQ(mi300x.roofline_bandwidth_gbps(), 5300);
  EXPECT_EQ(find_platform("MI325X")->info().roofline_tflops("matrix_fp8"), 1519);
}

// The host link is the PCIe x16 slot each datasheet names, per direction: 16 GB/s for Gen3,
// 32 for Gen4, 64 for Gen5 (the lane rate in GT/s x 16 lanes / 8, as the vendors quote it).
// B200 has none: its host interface could not be sourced, and absent means unknown.
TEST(BundledPlatforms, HostLinkIsThePcieSlotPerDirectionWithASource) {
  const std::pair<const char*, double> cases[] = {
      {"V100-SXM2-32GB", 16}, {"A100-SXM-80GB", 32}, {"L40S", 32}, {"MI250X", 32},
      {"H100-SXM", 64},       {"H100-PCIe", 64},     {"H200", 64}, {"MI300X", 64},
      {"MI325X", 64},         {"MI355X", 64},
  };
  for (const auto& [name, gbps] : cases) {
    SCOPED_TRACE(name);
    const PlatformSpec* p = find_platform(name);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(p->host_link_gbps, gbps);
    EXPECT_EQ(p->info().number("host_link_gbps"), gbps);
    bool sourced = false;
    for (const auto& [what, url] : p->sources)
      if (what.find("host_link_gbps") != std::string::npos && !url.empty()) sourced = true;
    EXPECT_TRUE(sourced);
  }
  EXPECT_FALSE(find_platform("B200")->host_link_gbps.has_value());
  EXPECT_FALSE(find_platform("B200")->info().number("host_link_gbps").has_value());
}

TEST(BundledPlatforms, GlobPatternsMatchTheWholeName) {
  PlatformSpec p =
      parse_platform(R"({"schema_version":1,"name":"X","match":["*rtx 40?0"]})", "x.json");
  EXPECT_GT(match_length(p, "NVIDIA GeForce RTX 4090"), 0u);
  EXPECT_EQ(match_length(p, "NVIDIA GeForce RTX 4090 D"), 0u);
}

std::string error_of(const std::string& text) {
  try {
    parse_platform(text, "platforms/x.json");
  } catch (const PlatformError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(PlatformErrors, OneSentenceNamingFileAndField) {
  const std::string head = R"({"schema_version":1,"name":"X","sources":[{"what":"a","url":"b"}],)";
  EXPECT_EQ(error_of(head + R"("peak_tflops":{"matrix_bf16":-1}})"),
            "platforms/x.json: peak_tflops.matrix_bf16 must be a positive number.");
  EXPECT_EQ(error_of(head + R"("peak_tflops":{"matrix_bf16":"fast"}})"),
            "platforms/x.json: peak_tflops.matrix_bf16 must be a positive number.");
  EXPECT_EQ(error_of(head + R"("hbm_bandwidth_gbps":0})"),
            "platforms/x.json: hbm_bandwidth_gbps must be a positive number.");
  EXPECT_EQ(error_of(head + R"("host_link_gbps":-64})"),
            "platforms/x.json: host_link_gbps must be a positive number.");
  EXPECT_EQ(error_of(R"({"schema_version":1,"name":"X","host_link_gbps":64})"),
            "platforms/x.json: sources is missing; every number needs a source.");
  EXPECT_EQ(error_of(head + R"("peak_tflops":{"matrix_bf17":1}})"),
            "platforms/x.json: peak_tflops.matrix_bf17 is not a known spec (known: matrix_bf16, "
            "matrix_fp16, matrix_tf32, matrix_fp32, matrix_fp64, matrix_fp8, matrix_int8, "
            "matrix_fp6, matrix_fp4, vector_fp32, vector_fp64, vector_bf16, vector_fp16).");
  EXPECT_EQ(error_of(head + R"("match":"H100"})"),
            "platforms/x.json: match must be a list of strings.");
  EXPECT_EQ(error_of(head + R"("peak":{}})"),
            "platforms/x.json: 'peak' is not a platform file field (see docs/platforms.md).");
  EXPECT_EQ(error_of(R"({"schema_version":1,"memory_gb":80})"),
            "platforms/x.json: name is missing.");
  EXPECT_EQ(error_of(R"({"schema_version":1,"name":"X","memory_gb":80})"),
            "platforms/x.json: sources is missing; every number needs a source.");
  EXPECT_EQ(error_of(R"({"schema_version":2,"name":"X"})"),
            "platforms/x.json: schema_version must be 1 (the version this build reads).");
  EXPECT_EQ(error_of(R"({"name":"X"})"),
            "platforms/x.json: schema_version is missing (this build reads schema_version 1).");
  EXPECT_EQ(error_of("[1]"), "platforms/x.json: must hold a JSON object.");
  EXPECT_EQ(error_of(R"({"name":"X","mem_bw_gbps":-5})"),
            "platforms/x.json: mem_bw_gbps must be a positive number.");
  EXPECT_EQ(
      error_of("{"), std::string("platforms/x.json: not valid JSON (") + [] {
        boost::system::error_code ec;
        boost::json::parse("{", ec);
        return ec.message();
      }() + ").");
  try {
    load_platform_file("/nonexistent/gpu.json");
    FAIL();
  } catch (const PlatformError& e) {
    EXPECT_STREQ(e.what(), "/nonexistent/gpu.json: cannot read the platform file.");
  }
}

// Interconnect peaks (multi-rank.md §8): per GPU, per direction, GB/s, the published
// bidirectional figure halved; PCIe after 128b/130b encoding (15.75, 31.5, 63 for Gen3-5). The
// figures the spec asks to verify are absent: B200's PCIe, MI250X's Infinity Fabric per GCD.
TEST(BundledPlatforms, InterconnectPeaksPerDirectionWithASource) {
  struct Case {
    const char* name;
    const char* kind;  // nullptr: no scale-up link
    double scale_up;   // 0: absent
    int domain;        // 0: absent
    int gen;           // 0: no pcie object
    double pcie;
  };
  const Case cases[] = {
      {"V100-SXM2-32GB", "NVLink 2", 150, 0, 3, 15.75},
      {"A100-SXM-80GB", "NVLink 3", 300, 16, 4, 31.5},
      {"H100-SXM", "NVLink 4", 450, 8, 5, 63},
      {"H200", "NVLink 4", 450, 8, 5, 63},
      {"H100-PCIe", "NVLink 4 bridge", 300, 2, 5, 63},
      {"B200", "NVLink 5", 900, 8, 0, 0},
      {"L40S", nullptr, 0, 0, 4, 31.5},
      {"MI250X", "Infinity Fabric", 0, 0, 4, 31.5},
      {"MI300X", "Infinity Fabric", 448, 8, 5, 63},
      {"MI325X", "Infinity Fabric", 448, 8, 5, 63},
      {"MI355X", "Infinity Fabric", 537.6, 8, 5, 63},
  };
  ASSERT_EQ(std::size(cases), bundled_platforms().size());
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const PlatformSpec* p = find_platform(c.name);
    ASSERT_NE(p, nullptr);
    ASSERT_TRUE(p->interconnect.has_value());
    const Interconnect& i = *p->interconnect;
    EXPECT_FALSE(i.scale_out_gbps_per_direction.has_value());  // a property of the cluster
    if (c.kind) {
      ASSERT_TRUE(i.scale_up.has_value());
      EXPECT_EQ(i.scale_up->kind, c.kind);
      EXPECT_EQ(i.scale_up->gbps_per_direction.value_or(0), c.scale_up);
      EXPECT_EQ(i.scale_up->domain_gpus.value_or(0), c.domain);
    } else {
      EXPECT_FALSE(i.scale_up.has_value());
    }
    if (c.gen) {
      ASSERT_TRUE(i.pcie.has_value());
      EXPECT_EQ(i.pcie->gen, c.gen);
      EXPECT_EQ(i.pcie->gbps_per_direction, c.pcie);
    } else {
      EXPECT_FALSE(i.pcie.has_value());
    }
    bool scale_up_sourced = false, pcie_sourced = false;
    for (const auto& [what, url] : p->sources) {
      if (url.empty()) continue;
      if (what.find("interconnect.scale_up") != std::string::npos) scale_up_sourced = true;
      if (what.find("interconnect.pcie") != std::string::npos) pcie_sourced = true;
    }
    EXPECT_TRUE(scale_up_sourced);  // also where it is null or partly left out: the note says why
    EXPECT_TRUE(pcie_sourced);      // B200's note says why it is left out
  }
}

TEST(PlatformInterconnect, ParsesEveryPart) {
  const PlatformSpec p = parse_platform(
      R"({"schema_version":1,"name":"X","sources":[{"what":"a","url":"b"}],
          "interconnect":{"scale_up":{"kind":"NVLink 4","gbps_per_direction":450,"domain_gpus":8,
                                      "_note":"comment"},
                          "pcie":{"gen":5,"gbps_per_direction":63},
                          "scale_out_gbps_per_direction":50,"_why":"comment"}})",
      "x.json");
  ASSERT_TRUE(p.interconnect.has_value());
  ASSERT_TRUE(p.interconnect->scale_up.has_value());
  EXPECT_EQ(p.interconnect->scale_up->kind, "NVLink 4");
  EXPECT_EQ(p.interconnect->scale_up->gbps_per_direction, 450);
  EXPECT_EQ(p.interconnect->scale_up->domain_gpus, 8);
  ASSERT_TRUE(p.interconnect->pcie.has_value());
  EXPECT_EQ(p.interconnect->pcie->gen, 5);
  EXPECT_EQ(p.interconnect->pcie->gbps_per_direction, 63);
  EXPECT_EQ(p.interconnect->scale_out_gbps_per_direction, 50);
  // The analyzers' number map is unchanged: interconnect peaks live in PlatformSpec only.
  EXPECT_TRUE(p.info().numbers.empty());

  const PlatformSpec bare = parse_platform(
      R"({"schema_version":1,"name":"X","interconnect":{"scale_up":null,
          "scale_out_gbps_per_direction":null}})",
      "x.json");
  ASSERT_TRUE(bare.interconnect.has_value());
  EXPECT_FALSE(bare.interconnect->scale_up.has_value());
  EXPECT_FALSE(bare.interconnect->pcie.has_value());
  EXPECT_FALSE(bare.interconnect->scale_out_gbps_per_direction.has_value());
  // A scale-up kind alone (MI250X) is no number: no source needed.
  const PlatformSpec kind_only = parse_platform(
      R"({"schema_version":1,"name":"X","interconnect":{"scale_up":{"kind":"Infinity Fabric"}}})",
      "x.json");
  EXPECT_EQ(kind_only.interconnect->scale_up->kind, "Infinity Fabric");
  EXPECT_FALSE(kind_only.interconnect->scale_up->gbps_per_direction.has_value());
  EXPECT_FALSE(parse_platform(R"({"schema_version":1,"name":"X"})", "x.json").interconnect);
}

TEST(PlatformErrors, InterconnectFieldsAreValidated) {
  const std::string head = R"({"schema_version":1,"name":"X","sources":[{"what":"a","url":"b"}],)";
  const auto ic = [&](const std::string& body) {
    return error_of(head + R"("interconnect":)" + body + "}");
  };
  EXPECT_EQ(ic("[]"), "platforms/x.json: interconnect must be an object (see docs/platforms.md).");
  EXPECT_EQ(ic(R"({"scale_up":8})"),
            "platforms/x.json: interconnect.scale_up must be an object or null.");
  EXPECT_EQ(ic(R"({"scale_up":{"gbps_per_direction":450}})"),
            "platforms/x.json: interconnect.scale_up.kind is missing.");
  EXPECT_EQ(ic(R"({"scale_up":{"kind":""}})"),
            "platforms/x.json: interconnect.scale_up.kind must be a non-empty string.");
  EXPECT_EQ(ic(R"({"scale_up":{"kind":7}})"),
            "platforms/x.json: interconnect.scale_up.kind must be a non-empty string.");
  EXPECT_EQ(
      ic(R"({"scale_up":{"kind":"NVLink 4","gbps_per_direction":-450}})"),
      "platforms/x.json: interconnect.scale_up.gbps_per_direction must be a positive number.");
  EXPECT_EQ(
      ic(R"({"scale_up":{"kind":"NVLink 4","gbps_per_direction":0}})"),
      "platforms/x.json: interconnect.scale_up.gbps_per_direction must be a positive number.");
  EXPECT_EQ(
      ic(R"({"scale_up":{"kind":"NVLink 4","gbps_per_direction":"fast"}})"),
      "platforms/x.json: interconnect.scale_up.gbps_per_direction must be a positive number.");
  EXPECT_EQ(ic(R"({"scale_up":{"kind":"NVLink 4","domain_gpus":0}})"),
            "platforms/x.json: interconnect.scale_up.domain_gpus must be a positive integer.");
  EXPECT_EQ(ic(R"({"scale_up":{"kind":"NVLink 4","domain_gpus":7.5}})"),
            "platforms/x.json: interconnect.scale_up.domain_gpus must be a positive integer.");
  EXPECT_EQ(ic(R"({"scale_up":{"kind":"NVLink 4","links":18}})"),
            "platforms/x.json: 'interconnect.scale_up.links' is not a field of "
            "interconnect.scale_up (kind, gbps_per_direction, domain_gpus).");
  EXPECT_EQ(ic(R"({"pcie":null})"), "platforms/x.json: interconnect.pcie must be an object.");
  EXPECT_EQ(ic(R"({"pcie":{"gbps_per_direction":63}})"),
            "platforms/x.json: interconnect.pcie.gen is missing.");
  EXPECT_EQ(ic(R"({"pcie":{"gen":5}})"),
            "platforms/x.json: interconnect.pcie.gbps_per_direction is missing.");
  EXPECT_EQ(ic(R"({"pcie":{"gen":-5,"gbps_per_direction":63}})"),
            "platforms/x.json: interconnect.pcie.gen must be a positive integer.");
  EXPECT_EQ(ic(R"({"pcie":{"gen":"5","gbps_per_direction":63}})"),
            "platforms/x.json: interconnect.pcie.gen must be a positive integer.");
  EXPECT_EQ(ic(R"({"pcie":{"gen":5,"gbps_per_direction":-63}})"),
            "platforms/x.json: interconnect.pcie.gbps_per_direction must be a positive number.");
  EXPECT_EQ(ic(R"({"pcie":{"gen":5,"gbps_per_direction":63,"lanes":16}})"),
            "platforms/x.json: 'interconnect.pcie.lanes' is not a field of interconnect.pcie "
            "(gen, gbps_per_direction).");
  EXPECT_EQ(ic(R"({"scale_out_gbps_per_direction":0})"),
            "platforms/x.json: interconnect.scale_out_gbps_per_direction must be a positive "
            "number or null.");
  EXPECT_EQ(ic(R"({"scale_out_gbps_per_direction":"400G"})"),
            "platforms/x.json: interconnect.scale_out_gbps_per_direction must be a positive "
            "number or null.");
  EXPECT_EQ(ic(R"({"nvlink":900})"),
            "platforms/x.json: 'interconnect.nvlink' is not a field of interconnect (scale_up, "
            "pcie, scale_out_gbps_per_direction).");
  EXPECT_EQ(
      error_of(
          R"({"schema_version":1,"name":"X","interconnect":{"pcie":{"gen":5,"gbps_per_direction":63}}})"),
      "platforms/x.json: sources is missing; every number needs a source.");
}

TEST(ReferenceArchJson, InlineValuesCountAsAchievable) {
  PlatformSpec p = parse_platform(
      R"({"name":"GPU","mem_bw_gbps":100,"memory_gb":8,"max_achievable_tflops":{"matrix_bf16":10},"_reference":"x"})",
      "arch.json");
  PlatformInfo info = p.info();
  EXPECT_EQ(info.name, "GPU");
  EXPECT_EQ(info.number("achievable_tflops.matrix_bf16"), 10);
  EXPECT_FALSE(info.number("peak_tflops.matrix_bf16").has_value());
  EXPECT_EQ(info.roofline_tflops("matrix_bf16"), 10);
  EXPECT_EQ(info.roofline_bandwidth_gbps(), 100);
  EXPECT_EQ(info.number("memory_gb"), 8);
}

TEST(ReferenceArchJson, SharedGoldenFilesLoadWithTheSameNumbers) {
  const auto dir = testing::shared_traces() / "platforms_for_goldens";
  if (!std::filesystem::is_directory(dir)) GTEST_SKIP() << dir << " is absent";
  const PlatformSpec h100 = load_platform_file((dir / "H100.json").string());
  EXPECT_EQ(h100.name, "H100");
  EXPECT_EQ(h100.achievable_hbm_bandwidth_gbps, 3350);
  EXPECT_EQ(h100.memory_gb, 80);
  EXPECT_EQ(h100.achievable_tflops.at("matrix_bf16"), 989.5);
  EXPECT_EQ(h100.achievable_tflops.at("vector_fp64"), 33.5);
  EXPECT_EQ(h100.achievable_tflops.size(), 10u);
  for (const char* name : {"MI300X", "MI325X"}) {
    SCOPED_TRACE(name);
    const PlatformSpec arch = load_platform_file((dir / (std::string(name) + ".json")).string());
    const PlatformSpec& ours = *find_platform(name);
    EXPECT_EQ(arch.name, name);
    EXPECT_EQ(arch.achievable_tflops, ours.achievable_tflops);
    EXPECT_EQ(arch.achievable_hbm_bandwidth_gbps, ours.achievable_hbm_bandwidth_gbps);
    EXPECT_EQ(arch.memory_gb, ours.memory_gb);
  }
}

}  // namespace
}  // namespace traceprism::platform
