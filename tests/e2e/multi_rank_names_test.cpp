// `synth --ranks` with --name-pattern and --time-base (multi-rank.md §11), read by `analyze`: files
// named as torch.profiler.tensorboard_trace_handler names them carry no rank, so each rank comes
// from the trace's distributedInfo, and times without baseTimeNanoseconds are epoch µs; the
// cross-rank analysis is the one the default names and time base give.
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "support/run_cli.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

using traceprism::testing::read_file;
using traceprism::testing::run_cli;
using traceprism::testing::shell_quote;

constexpr int kExitUsage = 64;

// synth --ranks 4 --layers 2 --steps 2 --seed 7 `options` into dir/job, then analyze -q dir/job
// -o dir/out; both must succeed.
void synth_and_analyze(const traceprism::testing::TempDir& dir, const std::string& options) {
  const std::string job = shell_quote(dir.file("job"));
  std::string output;
  ASSERT_EQ(
      run_cli("synth -o " + job + " --ranks 4 --layers 2 --steps 2 --seed 7 " + options, &output),
      0)
      << output;
  ASSERT_EQ(run_cli("analyze -q " + job + " -o " + shell_quote(dir.file("out")), &output), 0)
      << output;
}

json::object multi_rank_of(const traceprism::testing::TempDir& dir) {
  return json::parse(read_file(fs::path(dir.file("out")) / "findings.json"))
      .as_object()
      .at("multi_rank")
      .as_object();
}

// Each rank's file as synth_truth.json names it.
std::vector<std::string> truth_files(const traceprism::testing::TempDir& dir) {
  const json::value truth = json::parse(read_file(fs::path(dir.file("job")) / "synth_truth.json"));
  std::vector<std::string> files;
  for (const json::value& rank : truth.at("ranks").as_array())
    files.emplace_back(rank.at("file").as_string());
  return files;
}

// The multi_rank object with every rank's "file" left out.
json::object without_files(json::object multi_rank) {
  for (json::value& rank : multi_rank.at("ranks").as_array()) rank.as_object().erase("file");
  return multi_rank;
}

// ranks.csv with its host and file columns (the 3rd and 4th) left out.
std::string without_host_and_file(const std::string& csv) {
  std::istringstream lines(csv);
  std::string out, line;
  while (std::getline(lines, line)) {
    const std::size_t node_end = line.find(',', line.find(',') + 1);
    const std::size_t file_end = line.find(',', line.find(',', node_end + 1) + 1);
    out += line.substr(0, node_end) + line.substr(file_end) + "\n";
  }
  return out;
}

std::string ranks_csv(const traceprism::testing::TempDir& dir) {
  return read_file(fs::path(dir.file("out")) / "multi_rank_csvs" / "ranks.csv");
}

std::string analysis_md(const traceprism::testing::TempDir& dir) {
  return read_file(fs::path(dir.file("out")) / "analysis.md");
}

// The tensorboard names hold no rank: discovery takes each from distributedInfo, the host from
// the name, and the cross-rank results are the default job's. Epoch times move the focus
// rank's single-rank figures in their last digits (the reference's double timestamps step by
// 0.25 µs at 1.7e15 µs, docs/compatibility.md), so only the cross-rank parts are compared.
TEST(MultiRankNames, TensorBoardNamesAndEpochTimesGiveTheSameCrossRankAnalysis) {
  traceprism::testing::TempDir named, plain;
  synth_and_analyze(named, "--name-pattern tensorboard --time-base epoch");
  synth_and_analyze(plain, "");
  const std::vector<std::string> files = truth_files(named);
  ASSERT_EQ(files.size(), 4u);
  const json::object multi = multi_rank_of(named);
  EXPECT_EQ(multi.at("ranks_analyzed").as_int64(), 4);
  const json::array& ranks = multi.at("ranks").as_array();
  ASSERT_EQ(ranks.size(), 4u);
  const std::string csv = ranks_csv(named);
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    EXPECT_EQ(files[r], "node000_" + std::to_string(19392 + r) + ".1701419247332.pt.trace.json.gz");
    EXPECT_TRUE(fs::exists(fs::path(named.file("job")) / files[r])) << files[r];
    EXPECT_EQ(ranks[r].at("rank").as_int64(), static_cast<std::int64_t>(r));
    EXPECT_EQ(ranks[r].at("file").as_string(), files[r]);
    EXPECT_NE(csv.find("\n" + std::to_string(r) + ",0,node000," + files[r] + ","),
              std::string::npos)
        << csv;
  }
  EXPECT_EQ(json::serialize(without_files(multi)),
            json::serialize(without_files(multi_rank_of(plain))));
  EXPECT_EQ(without_host_and_file(csv), without_host_and_file(ranks_csv(plain)));
  for (const traceprism::testing::TempDir* dir : {&named, &plain}) {
    const std::string md = analysis_md(*dir);
    EXPECT_NE(md.find("| Ranks Analyzed | 4 of 4 |"), std::string::npos);
    EXPECT_NE(md.find("| Slowest Rank(s) | none flagged |"), std::string::npos);
    EXPECT_NE(md.find("- **Ranks**: 4 of 4 analysed; focus rank 0"), std::string::npos);
  }
}

// With the default time base the names are all that differs: the same analysis.md.
TEST(MultiRankNames, NamesAloneLeaveTheReportAsItWas) {
  traceprism::testing::TempDir named, plain;
  synth_and_analyze(named, "--name-pattern 'rank{R}_trace.json.gz'");
  synth_and_analyze(plain, "");
  EXPECT_TRUE(fs::exists(fs::path(named.file("job")) / "rank3_trace.json.gz"));
  EXPECT_EQ(analysis_md(named), analysis_md(plain));
  EXPECT_NE(ranks_csv(named).find("\n3,0,,rank3_trace.json.gz,"), std::string::npos);
}

TEST(MultiRankNames, BadValuesAreRefusedWithOneSentence) {
  traceprism::testing::TempDir dir;
  const std::string synth = "synth -o " + shell_quote(dir.file("job")) + " --ranks 4 ";
  std::string output;
  EXPECT_EQ(run_cli(synth + "--name-pattern rank.json.gz", &output), kExitUsage);
  EXPECT_NE(output.find("--name-pattern \"rank.json.gz\" must hold {R} (the rank) exactly once, "
                        "or be tensorboard."),
            std::string::npos)
      << output;
  EXPECT_EQ(run_cli(synth + "--time-base utc", &output), kExitUsage);
  EXPECT_NE(output.find("--time-base"), std::string::npos) << output;
  EXPECT_FALSE(fs::exists(dir.file("job")));
}

// §7.6: tensorboard host names are nodes only while no host holds more ranks than its devices.
// With every file named after node000 (8 ranks, 4 devices each) the names cannot be machines,
// so the nodes are rank div 4 again and node 1's clock offset is still found and applied.
TEST(MultiRankNames, AHostWithMoreRanksThanDevicesIsNotANode) {
  traceprism::testing::TempDir dir;
  const fs::path job = dir.file("job");
  std::string output;
  ASSERT_EQ(run_cli("synth -o " + shell_quote(job.string()) +
                        " --ranks 8 --layers 4 --steps 3 --seed 7 --gpus-per-node 4 "
                        "--name-pattern tensorboard --clock-skew-us 2000",
                    &output),
            0)
      << output;
  for (const auto& entry : fs::directory_iterator(job)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("node001_", 0) == 0)
      fs::rename(entry.path(), job / ("node000_" + name.substr(8)));
  }
  ASSERT_EQ(
      run_cli("analyze -q " + shell_quote(job.string()) + " -o " + shell_quote(dir.file("out")),
              &output),
      0)
      << output;
  const std::string offsets =
      read_file(fs::path(dir.file("out")) / "multi_rank_csvs" / "clock_offsets.csv");
  EXPECT_NE(offsets.find("\n1,"), std::string::npos) << offsets;
  EXPECT_NE(offsets.find(",true\n"), std::string::npos) << offsets;
}

}  // namespace
