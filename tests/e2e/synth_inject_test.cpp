// `traceprism synth --inject` through the CLI: the written trace reads back cleanly with the
// injected idle in its GPU timeline, the same command writes the same bytes, --help lists the
// kinds, and a wrong kind or amount is one sentence and the usage exit code.
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>

#include "support/run_cli.hpp"
#include "support/temp_dir.hpp"

namespace {

using traceprism::testing::run_cli;
using traceprism::testing::shell_quote;

constexpr int kExitUsage = 64;

boost::json::object inspect(const std::string& path) {
  std::string output;
  EXPECT_EQ(run_cli("inspect -q --json " + shell_quote(path), &output), 0) << output;
  return boost::json::parse(output).as_object();
}

double timeline(const boost::json::object& o, const char* key) {
  return o.at("gpu_timeline_us").as_object().at(key).to_number<double>();
}

TEST(SynthInject, InjectedIdleShowsInTheTimeline) {
  traceprism::testing::TempDir dir;
  const std::string clean = dir.file("clean.json"), stalled = dir.file("stalled.json.gz");
  std::string output;
  ASSERT_EQ(run_cli("synth -o " + shell_quote(clean) + " --steps 3", &output), 0) << output;
  ASSERT_EQ(run_cli("synth -o " + shell_quote(stalled) +
                        " --steps 3 --inject sync=2ms --inject dataloader=5ms",
                    &output),
            0)
      << output;
  const boost::json::object before = inspect(clean), after = inspect(stalled);
  for (const auto* o : {&before, &after}) {
    EXPECT_TRUE(o->at("import_issues").as_object().empty());
    EXPECT_EQ(o->at("gpu_events").as_object().at("unlinked").to_number<std::int64_t>(), 0);
  }
  EXPECT_LT(timeline(before, "idle"), 0.02 * timeline(before, "total"));
  // 3 syncs and 2 fetches inside the window (the first step's fetch precedes the GPU's first
  // event), plus under 0.25 ms of host dispatch after each stall.
  const double added = timeline(after, "idle") - timeline(before, "idle");
  EXPECT_GE(added, 0.98 * (3 * 2000 + 2 * 5000));
  EXPECT_LE(added, 1.02 * (3 * 2000 + 2 * 5000) + 5 * 250);
}

TEST(SynthInject, SameCommandWritesTheSameBytes) {
  traceprism::testing::TempDir dir;
  const std::string args =
      " --steps 2 --nccl --inject blocking-copy --inject small-allreduce "
      "--inject fp32-gemm=1ms --inject recompute=500us";
  ASSERT_EQ(run_cli("synth -o " + shell_quote(dir.file("a.json")) + args), 0);
  ASSERT_EQ(run_cli("synth -o " + shell_quote(dir.file("b.json")) + args), 0);
  const std::string a = traceprism::testing::read_file(dir.file("a.json"));
  EXPECT_GT(a.size(), 100'000u);
  EXPECT_EQ(a, traceprism::testing::read_file(dir.file("b.json")));
}

TEST(SynthInject, HelpListsTheKinds) {
  std::string output;
  ASSERT_EQ(run_cli("synth --help", &output), 0);
  // One line per kind: the kind, its default amount, its meaning.
  std::set<std::string> listed;
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string kind, amount, meaning;
    if (words >> kind >> amount >> meaning && amount.ends_with("ms")) listed.insert(kind);
  }
  for (const char* kind : {"dataloader", "blocking-copy", "sync", "allocator", "launch-overhead",
                           "host-compute", "fp32-gemm", "recompute", "d2d-copy",
                           "exposed-allreduce", "small-allreduce", "layout-transpose"}) {
    EXPECT_TRUE(listed.count(kind)) << kind << "\n" << output;
  }
  EXPECT_NE(output.find("--inject KIND[=AMOUNT]"), std::string::npos) << output;
}

TEST(SynthInject, WrongKindOrAmountIsAUsageError) {
  traceprism::testing::TempDir dir;
  const std::string out = " -o " + shell_quote(dir.file("t.json"));
  std::string output;
  EXPECT_EQ(run_cli("synth" + out + " --inject dataloder", &output), kExitUsage);
  EXPECT_NE(output.find("unknown kind 'dataloder'"), std::string::npos) << output;
  EXPECT_NE(output.find("dataloader, blocking-copy"), std::string::npos) << output;
  EXPECT_EQ(run_cli("synth" + out + " --inject sync=5", &output), kExitUsage);
  EXPECT_NE(output.find("'5' is not a duration"), std::string::npos) << output;
  EXPECT_EQ(run_cli("synth" + out + " --inject sync --inject sync=1ms", &output), kExitUsage);
  EXPECT_NE(output.find("given twice"), std::string::npos) << output;
  EXPECT_EQ(run_cli("synth" + out + " --inference --inject recompute", &output), kExitUsage);
  EXPECT_NE(output.find("drop --inference"), std::string::npos) << output;
  EXPECT_FALSE(std::filesystem::exists(dir.file("t.json")));
}

}  // namespace
