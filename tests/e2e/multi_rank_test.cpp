// `traceprism analyze` over a folder of rank traces (multi-rank.md §2, §9; the rows of §12's
// end-to-end table the CLI answers so far): the focus rank's report with the straggler card of
// the injected rank and none for a clean job, multi_rank_csvs/ranks.csv, byte-identical reruns,
// and a duplicate rank refused with one sentence.
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "support/run_cli.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;

namespace {

using traceprism::testing::run_cli;
using traceprism::testing::shell_quote;

constexpr int kExitBadInput = 2;

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// synth --ranks 8 --layers 4 --steps 3 --seed 7 plus `injection` into dir/job.
void write_job(const traceprism::testing::TempDir& dir, const std::string& injection) {
  std::string output;
  ASSERT_EQ(run_cli("synth -o " + shell_quote(dir.file("job")) +
                        " --ranks 8 --layers 4 --steps 3 --seed 7 " + injection,
                    &output),
            0)
      << output;
}

std::vector<std::string> straggler_titles(const fs::path& report) {
  const auto root = boost::json::parse(read_file(report / "findings.json")).as_object();
  std::vector<std::string> titles;
  for (const auto& f : root.at("findings").as_array()) {
    const auto& o = f.as_object();
    if (o.at("analyzer").as_string() == "xrank-straggler")
      titles.emplace_back(o.at("title").as_string());
  }
  return titles;
}

TEST(MultiRankAnalyze, TheSlowerRankIsTheStragglerCard) {
  traceprism::testing::TempDir dir;
  write_job(dir, "--straggler 5:1.25 --skew-us 20");
  std::string output;
  ASSERT_EQ(
      run_cli("analyze -q " + shell_quote(dir.file("job")) + " -o " + shell_quote(dir.file("out")),
              &output),
      0)
      << output;
  const fs::path out = dir.file("out");
  const std::vector<std::string> titles = straggler_titles(out);
  ASSERT_EQ(titles.size(), 1u);
  EXPECT_EQ(titles[0].rfind("Rank 5 arrives last at ", 0), 0u) << titles[0];
  EXPECT_NE(titles[0].find("(compute: slower GPU"), std::string::npos) << titles[0];
  // One row per rank; rank 5 last at every skewed collective it joined.
  const std::string csv = read_file(out / "multi_rank_csvs" / "ranks.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 9);
  EXPECT_NE(csv.find("\n5,rank5.json.gz,"), std::string::npos);
  ASSERT_EQ(run_cli("validate-report " + shell_quote(out.string()), &output), 0) << output;
}

TEST(MultiRankAnalyze, ACleanJobHasNoCrossRankCard) {
  traceprism::testing::TempDir dir;
  write_job(dir, "--skew-us 20");
  std::string output;
  ASSERT_EQ(
      run_cli("analyze -q " + shell_quote(dir.file("job")) + " -o " + shell_quote(dir.file("out")),
              &output),
      0)
      << output;
  EXPECT_TRUE(straggler_titles(dir.file("out")).empty());
}

TEST(MultiRankAnalyze, TheSameJobGivesTheSameBytes) {
  traceprism::testing::TempDir dir;
  write_job(dir, "--host-straggler 2:3000");
  std::string output;
  for (const char* out : {"a", "b"})
    ASSERT_EQ(
        run_cli("analyze -q " + shell_quote(dir.file("job")) + " -o " + shell_quote(dir.file(out)),
                &output),
        0)
        << output;
  for (const char* file : {"analysis.md", "findings.json", "multi_rank_csvs/ranks.csv"})
    EXPECT_EQ(read_file(fs::path(dir.file("a")) / file), read_file(fs::path(dir.file("b")) / file))
        << file;
  const std::vector<std::string> titles = straggler_titles(dir.file("a"));
  ASSERT_EQ(titles.size(), 1u);
  EXPECT_EQ(titles[0].rfind("Rank 2 arrives last", 0), 0u) << titles[0];
  EXPECT_NE(titles[0].find("(host)"), std::string::npos) << titles[0];
}

TEST(MultiRankAnalyze, TwoFilesOfOneRankAreRefused) {
  traceprism::testing::TempDir dir;
  write_job(dir, "");
  const fs::path job = dir.file("job");
  fs::copy_file(job / "rank3.json.gz", job / "rank3_copy.json.gz");
  std::string output;
  EXPECT_EQ(
      run_cli("analyze -q " + shell_quote(job.string()) + " -o " + shell_quote(dir.file("out")),
              &output),
      kExitBadInput);
  EXPECT_NE(output.find("rank 3 is given by two files: "), std::string::npos) << output;
  EXPECT_NE(output.find("rank3.json.gz"), std::string::npos) << output;
  EXPECT_NE(output.find("rank3_copy.json.gz"), std::string::npos) << output;
  EXPECT_FALSE(fs::exists(dir.file("out") + "/analysis.md"));
}

}  // namespace
