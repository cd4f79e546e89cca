// `synth` output read back by `inspect`: every vendor/option combination must give a clean,
// fully linked trace whose timeline reflects what was generated.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <boost/json/parse.hpp>

#include <cstdlib>
#include <string>

#include "support/temp_dir.hpp"

namespace {

std::string run_ok(const std::string& args) {
  traceprism::testing::TempDir dir;
  const std::string out = dir.file("stdout");
  const std::string command = std::string(TRACEPRISM_BINARY) + " " + args + " >" + out + " 2>&1";
  int status = std::system(command.c_str());
  std::string text = traceprism::testing::read_file(out);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << command << "\n" << text;
  return text;
}

boost::json::object inspect_json(const std::string& path) {
  return boost::json::parse(run_ok("inspect -q --json '" + path + "'")).as_object();
}

double timeline(const boost::json::object& o, const char* key) {
  return o.at("gpu_timeline_us").as_object().at(key).to_number<double>();
}

TEST(SynthRoundTrip, NvidiaTrainingWithNccl) {
  traceprism::testing::TempDir dir;
  const std::string path = dir.file("t.json.zst");
  run_ok("synth -o '" + path + "' --layers 2 --steps 2 --nccl --seed 3");
  auto o = inspect_json(path);
  EXPECT_EQ(o.at("compression").as_string(), "zstd");
  const auto& gpu = o.at("gpu_events").as_object();
  EXPECT_GT(gpu.at("total").to_number<std::int64_t>(), 0);
  EXPECT_EQ(gpu.at("unlinked").to_number<std::int64_t>(), 0);
  EXPECT_TRUE(o.at("import_issues").as_object().empty());
  EXPECT_GT(timeline(o, "total_comm"), 0.0);
  EXPECT_GT(timeline(o, "computation"), 0.0);
  EXPECT_EQ(o.at("devices").as_array()[0].as_object().at("name").as_string(),
            "NVIDIA H100 80GB HBM3");
  EXPECT_TRUE(o.contains("distributed"));
}

TEST(SynthRoundTrip, AmdInference) {
  traceprism::testing::TempDir dir;
  const std::string path = dir.file("t.json.gz");
  run_ok("synth -o '" + path + "' --vendor amd --inference --layers 2 --seed 4");
  auto o = inspect_json(path);
  EXPECT_EQ(o.at("compression").as_string(), "gzip");
  EXPECT_EQ(o.at("gpu_events").as_object().at("unlinked").to_number<std::int64_t>(), 0);
  EXPECT_TRUE(o.at("import_issues").as_object().empty());
  EXPECT_EQ(timeline(o, "total_comm"), 0.0);
  EXPECT_NE(
      std::string(o.at("devices").as_array()[0].as_object().at("name").as_string()).find("MI300X"),
      std::string::npos);
}

}  // namespace
