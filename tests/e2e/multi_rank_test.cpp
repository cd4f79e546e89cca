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

using traceprism::testing::read_file;
using traceprism::testing::run_cli;
using traceprism::testing::shell_quote;

constexpr int kExitBadInput = 2;
constexpr int kExitUsage = 64;

// synth --ranks 8 --layers 4 --steps 3 --seed 7 plus `injection` into dir/job.
void write_job(const traceprism::testing::TempDir& dir, const std::string& injection) {
  std::string output;
  ASSERT_EQ(run_cli("synth -o " + shell_quote(dir.file("job")) +
                        " --ranks 8 --layers 4 --steps 3 --seed 7 " + injection,
                    &output),
            0)
      << output;
}

// analyze -q dir/job -o dir/out, which must succeed.
void analyze_job(const traceprism::testing::TempDir& dir) {
  std::string output;
  ASSERT_EQ(
      run_cli("analyze -q " + shell_quote(dir.file("job")) + " -o " + shell_quote(dir.file("out")),
              &output),
      0)
      << output;
}

std::vector<std::string> titles_of(const fs::path& report, const std::string& analyzer) {
  const auto root = boost::json::parse(read_file(report / "findings.json")).as_object();
  std::vector<std::string> titles;
  for (const auto& f : root.at("findings").as_array()) {
    const auto& o = f.as_object();
    if (o.at("analyzer").as_string() == analyzer) titles.emplace_back(o.at("title").as_string());
  }
  return titles;
}

std::vector<std::string> straggler_titles(const fs::path& report) {
  return titles_of(report, "xrank-straggler");
}

// A metric of the one straggler card.
double straggler_metric(const fs::path& report, const std::string& name) {
  const auto root = boost::json::parse(read_file(report / "findings.json")).as_object();
  for (const auto& f : root.at("findings").as_array())
    if (f.as_object().at("analyzer").as_string() == "xrank-straggler")
      return f.as_object().at("metrics").as_object().at(name).to_number<double>();
  return -1;
}

TEST(MultiRankAnalyze, TheSlowerRankIsTheStragglerCard) {
  traceprism::testing::TempDir dir;
  write_job(dir, "--straggler 5:1.25 --skew-us 20");
  ASSERT_NO_FATAL_FAILURE(analyze_job(dir));
  const fs::path out = dir.file("out");
  const std::vector<std::string> titles = straggler_titles(out);
  ASSERT_EQ(titles.size(), 1u);
  EXPECT_EQ(titles[0].rfind("Rank 5 arrives last at ", 0), 0u) << titles[0];
  EXPECT_NE(titles[0].find("(compute: slower GPU"), std::string::npos) << titles[0];
  // §12: impact mid within ±15% of the truth file's, which the generator computes from its own
  // arrival times and kernels.
  const auto truth =
      boost::json::parse(read_file(fs::path(dir.file("job")) / "synth_truth.json")).as_object();
  const double truth_mid_ms =
      truth.at("late_arrival_ns").as_array().at(5).at("mid").to_number<double>() / 1e6;
  ASSERT_GT(truth_mid_ms, 0);
  EXPECT_NEAR(straggler_metric(out, "impact_mid_ms"), truth_mid_ms, 0.15 * truth_mid_ms);
  // One row per rank; rank 5 last at every skewed collective it joined.
  const std::string csv = read_file(out / "multi_rank_csvs" / "ranks.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 9);
  EXPECT_NE(csv.find("\n5,0,,rank5.json.gz,3,"), std::string::npos) << csv;
  std::string output;
  ASSERT_EQ(run_cli("validate-report " + shell_quote(out.string()), &output), 0) << output;
  // The executive summary says whose report this is and who is slowest (§9.3).
  const std::string md = read_file(out / "analysis.md");
  EXPECT_NE(md.find("Across 8 ranks (8 of 8 analysed); focus rank "), std::string::npos);
  EXPECT_NE(md.find("| Ranks Analyzed | 8 of 8 |"), std::string::npos);
  EXPECT_NE(md.find("| Slowest Rank(s) | 5 (last at "), std::string::npos);
  // The slow GPU computes longest per step, but its compute items would measure the GPU: the
  // focus is the healthy rank with the most compute, the report says so, and the first thing
  // to do is the straggler's.
  EXPECT_EQ(md.find("focus rank 5,"), std::string::npos);
  EXPECT_NE(md.find("is the rank with the most compute per step apart from the slower-GPU "
                    "straggler 5,"),
            std::string::npos);
  EXPECT_NE(md.find("Start with system P1, \"Rank 5 arrives last"), std::string::npos);
  // Named with --focus-rank, the slow GPU is the focus, with the warning that says what that
  // means.
  ASSERT_EQ(run_cli("analyze -q " + shell_quote(dir.file("job")) + " --focus-rank 5 -o " +
                        shell_quote(dir.file("five")),
                    &output),
            0)
      << output;
  EXPECT_NE(read_file(fs::path(dir.file("five")) / "analysis.md")
                .find("The focus rank 5 is the straggler whose GPU runs its kernels slower"),
            std::string::npos);
  const auto root = boost::json::parse(read_file(out / "findings.json")).as_object();
  const auto& multi = root.at("multi_rank").as_object();
  EXPECT_EQ(multi.at("ranks_analyzed").as_int64(), 8);
  ASSERT_EQ(multi.at("slowest_ranks").as_array().size(), 1u);
  EXPECT_EQ(multi.at("slowest_ranks").as_array()[0].as_int64(), 5);
  EXPECT_EQ(multi.at("ranks").as_array().size(), 8u);
}

// §12: "7 of 8 ranks", and rank 5 still found.
TEST(MultiRankAnalyze, AMissingRankIsNamedAndTheStragglerStillFound) {
  traceprism::testing::TempDir dir;
  write_job(dir, "--straggler 5:1.25 --missing-rank 6");
  ASSERT_NO_FATAL_FAILURE(analyze_job(dir));
  const std::string md = read_file(fs::path(dir.file("out")) / "analysis.md");
  EXPECT_NE(md.find("| Ranks Analyzed | 7 of 8 |"), std::string::npos);
  EXPECT_NE(md.find("7 of 8 ranks analysed: no readable trace for rank 6;"), std::string::npos);
  const std::vector<std::string> titles = straggler_titles(dir.file("out"));
  ASSERT_EQ(titles.size(), 1u);
  EXPECT_EQ(titles[0].rfind("Rank 5 arrives last", 0), 0u) << titles[0];
}

TEST(MultiRankAnalyze, ACleanJobHasNoCrossRankCard) {
  traceprism::testing::TempDir dir;
  write_job(dir, "--skew-us 20");
  ASSERT_NO_FATAL_FAILURE(analyze_job(dir));
  EXPECT_TRUE(straggler_titles(dir.file("out")).empty());
  for (const char* analyzer :
       {"xrank-arrival-jitter", "xrank-idle-outlier", "xrank-step-imbalance"})
    EXPECT_TRUE(titles_of(dir.file("out"), analyzer).empty()) << analyzer;
  const std::string md = read_file(fs::path(dir.file("out")) / "analysis.md");
  EXPECT_NE(md.find("| Slowest Rank(s) | none flagged |"), std::string::npos);
}

// §12: traces without process-group metadata (the 2023 set) are matched by end time, with the
// same collectives as the full metadata, and the report warns that it did so.
TEST(MultiRankAnalyze, WithoutMetadataTheTimelineTierIsUsedAndSaid) {
  traceprism::testing::TempDir dir;
  write_job(dir, "--nccl-meta none --skew-us 20");
  ASSERT_NO_FATAL_FAILURE(analyze_job(dir));
  const fs::path out = dir.file("out");
  const std::string md = read_file(out / "analysis.md");
  EXPECT_NE(md.find("were matched by end time alone"), std::string::npos);
  EXPECT_NE(md.find("- **Collectives**: 9 matched on every loaded member; 72 of 72 instances"),
            std::string::npos);
  EXPECT_NE(md.find(" matched by timeline"), std::string::npos);
  EXPECT_TRUE(straggler_titles(out).empty());
}

// §12: `--tp 2 --slow-link 3:0.5`: one bandwidth-outlier-group card, the group {2, 3} at 0.50 ±
// 0.05 of its siblings' bandwidth; its late arrivals are that card's (no straggler, no jitter).
TEST(MultiRankAnalyze, ASlowLinkIsItsGroupsCard) {
  traceprism::testing::TempDir dir;
  write_job(dir, "--tp 2 --slow-link 3:0.5");
  ASSERT_NO_FATAL_FAILURE(analyze_job(dir));
  const fs::path out = dir.file("out");
  const std::vector<std::string> titles = titles_of(out, "xrank-bandwidth-outlier-group");
  ASSERT_EQ(titles.size(), 1u);
  const std::string prefix = "Group 2, 3 runs collectives at ";
  ASSERT_EQ(titles[0].rfind(prefix, 0), 0u) << titles[0];
  const double ratio = std::stod(titles[0].substr(prefix.size()));
  EXPECT_NEAR(ratio, 0.50, 0.05) << titles[0];
  EXPECT_TRUE(straggler_titles(out).empty());
  EXPECT_TRUE(titles_of(out, "xrank-arrival-jitter").empty());
  const std::string groups = read_file(out / "multi_rank_csvs" / "process_groups.csv");
  EXPECT_NE(groups.find("\n2,tp_group,2,2-3,2,seq,"), std::string::npos) << groups;
}

// §12: `--collectives fsdp --vendor amd`: RCCL kernels name no collective, so kinds come from
// the metadata; the family table has bus bandwidths for the all-gathers and reduce-scatters;
// a clean job has no cross-rank card.
TEST(MultiRankAnalyze, FsdpOnAmdHasGatherAndScatterFamilies) {
  traceprism::testing::TempDir dir;
  write_job(dir, "--collectives fsdp --vendor amd");
  ASSERT_NO_FATAL_FAILURE(analyze_job(dir));
  const fs::path out = dir.file("out");
  const std::string families = read_file(out / "multi_rank_csvs" / "collectives_summary.csv");
  for (const char* kind : {"\ndefault_pg,8,allgather,BFloat16,", "\ndefault_pg,8,reducescatter,"}) {
    const std::size_t row = families.find(kind);
    ASSERT_NE(row, std::string::npos) << kind << "\n" << families;
    const std::string line = families.substr(row + 1, families.find('\n', row + 1) - row - 1);
    EXPECT_NE(line.back(), ',') << "busbw empty: " << line;
  }
  const auto root = boost::json::parse(read_file(out / "findings.json")).as_object();
  for (const auto& f : root.at("findings").as_array())
    EXPECT_NE(std::string(f.as_object().at("analyzer").as_string()).rfind("xrank-", 0), 0u)
        << f.as_object().at("title").as_string();
}

// Every rank late by a random amount before each collective: waiting with no straggler.
TEST(MultiRankAnalyze, JitterWithoutAStragglerIsItsOwnCard) {
  traceprism::testing::TempDir dir;
  write_job(dir, "--skew-us 2000");
  ASSERT_NO_FATAL_FAILURE(analyze_job(dir));
  EXPECT_TRUE(straggler_titles(dir.file("out")).empty());
  const std::vector<std::string> titles = titles_of(dir.file("out"), "xrank-arrival-jitter");
  ASSERT_EQ(titles.size(), 1u);
  EXPECT_EQ(titles[0].rfind("Collective arrival skew costs ", 0), 0u) << titles[0];
  EXPECT_NE(titles[0].find("% without a single straggler"), std::string::npos) << titles[0];
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
  // §9.2's "one mechanism, one card": its idle outlier is the straggler card's, not a second.
  EXPECT_TRUE(titles_of(dir.file("a"), "xrank-idle-outlier").empty());
  // §9.1: the focus rank's exposed communication is mostly waiting for rank 2, and says so.
  const std::string md = read_file(fs::path(dir.file("a")) / "analysis.md");
  EXPECT_NE(md.find("is waiting at collectives for later ranks to arrive (see system P1, "),
            std::string::npos);
  // ... and no longer says that one rank's trace cannot show the skew.
  EXPECT_EQ(md.find("A single rank's trace cannot show skew"), std::string::npos);
  const std::string heatmap = read_file(fs::path(dir.file("a")) / "multi_rank_heatmap.svg");
  EXPECT_EQ(heatmap.rfind("<svg", 0), 0u);
}

// The exposed-comm card's number from the findings.json of `report`, and its metric (-1 absent).
struct ExposedComm {
  double mid = -1, wait_percent = -1;
};

ExposedComm exposed_comm(const fs::path& report) {
  ExposedComm out;
  const auto root = boost::json::parse(read_file(report / "findings.json")).as_object();
  for (const auto& f : root.at("findings").as_array()) {
    const auto& o = f.as_object();
    if (o.at("key").as_string() != "exposed-comm") continue;
    out.mid = o.at("impact").as_object().at("mid").to_number<double>();
    const auto& metrics = o.at("metrics").as_object();
    if (metrics.contains("exposed_wait_percent"))
      out.wait_percent = metrics.at("exposed_wait_percent").to_number<double>();
  }
  return out;
}

// Time counted once (diagnosis.md §1.5): the focus rank's waiting for the host straggler is the
// straggler card's impact, so its exposed-comm card keeps only the rest of what the same rank's
// single-trace report gives it.
TEST(MultiRankAnalyze, TheExposedCommCardLeavesTheWaitingToTheStragglerCard) {
  traceprism::testing::TempDir dir;
  write_job(dir, "--host-straggler 2:3000");
  ASSERT_NO_FATAL_FAILURE(analyze_job(dir));
  const auto root =
      boost::json::parse(read_file(fs::path(dir.file("out")) / "findings.json")).as_object();
  const std::string focus = std::string(root.at("trace").as_object().at("path").as_string());
  std::string output;
  ASSERT_EQ(run_cli("analyze -q " + shell_quote(focus) + " -o " + shell_quote(dir.file("alone")),
                    &output),
            0)
      << output;
  const ExposedComm joint = exposed_comm(dir.file("out"));
  const ExposedComm alone = exposed_comm(dir.file("alone"));
  ASSERT_GT(alone.mid, 0);
  ASSERT_GT(joint.wait_percent, 50);  // most of it is waiting for rank 2
  EXPECT_EQ(alone.wait_percent, -1);
  // exposed_wait_percent is rounded to 0.1: the product agrees within that.
  EXPECT_NEAR(joint.mid, alone.mid * (1 - joint.wait_percent / 100), alone.mid * 0.001);
  const std::string md = read_file(fs::path(dir.file("out")) / "analysis.md");
  EXPECT_NE(md.find("; that card's impact counts the waiting, this one's the rest."),
            std::string::npos);
}

// §3.3's scheduler path: groups of ranks analysed as separate tasks, their summaries merged,
// give the report one run over all the traces gives, byte for byte.
TEST(MultiRankAnalyze, SummariesAndMergeGiveTheSameReport) {
  traceprism::testing::TempDir dir;
  write_job(dir, "--straggler 5:1.25 --skew-us 20");
  const std::string job = dir.file("job"), sums = dir.file("sums");
  std::string output;
  ASSERT_EQ(
      run_cli("analyze -q " + shell_quote(job) + " -o " + shell_quote(dir.file("all")), &output), 0)
      << output;
  for (const char* part : {"[0-3]", "[4-7]"})
    ASSERT_EQ(run_cli("analyze -q " + shell_quote(job + "/rank" + part + ".json.gz") +
                          " --summaries-out " + shell_quote(sums) + " -o " +
                          shell_quote(dir.file(std::string("part") + part)),
                      &output),
              0)
        << output;
  ASSERT_EQ(
      run_cli("merge -q " + shell_quote(sums) + " -o " + shell_quote(dir.file("merged")), &output),
      0)
      << output;
  for (const auto& entry : fs::recursive_directory_iterator(dir.file("all"))) {
    if (!entry.is_regular_file()) continue;
    const fs::path relative = fs::relative(entry.path(), dir.file("all"));
    EXPECT_EQ(read_file(entry.path()), read_file(fs::path(dir.file("merged")) / relative))
        << relative;
  }
  // summary dump: the summary as JSON, its rank and world size as analyze saved them.
  ASSERT_EQ(run_cli("summary dump " + shell_quote(sums + "/rank-00005.tpsum"), &output), 0)
      << output;
  const auto dump = boost::json::parse(output).as_object();
  EXPECT_EQ(dump.at("META").as_object().at("rank").as_int64(), 5);
  EXPECT_EQ(dump.at("META").as_object().at("world_size").as_int64(), 8);
}

TEST(MultiRankAnalyze, MergeOfSomethingElseIsOneSentence) {
  traceprism::testing::TempDir dir;
  std::string output;
  EXPECT_EQ(run_cli("merge " + shell_quote(dir.file("nothing_here")) + " -o " +
                        shell_quote(dir.file("out")),
                    &output),
            kExitBadInput);
  EXPECT_NE(output.find("not a folder; merge reads the rank-NNNNN.tpsum files"), std::string::npos)
      << output;
}

double straggler_impact_mid(const fs::path& report) {
  const auto root = boost::json::parse(read_file(report / "findings.json")).as_object();
  for (const auto& f : root.at("findings").as_array())
    if (f.as_object().at("analyzer").as_string() == "xrank-straggler")
      return f.as_object().at("impact").as_object().at("mid").to_number<double>();
  return -1;
}

// §12: node 1's clock off by up to 2 ms; its offset estimated within 25 µs of the truth, and
// the same straggler card as without the skew, impact within 2%.
TEST(MultiRankAnalyze, ClockOffsetsOfANodeAreEstimatedAndRemoved) {
  traceprism::testing::TempDir dir, plain;
  write_job(dir, "--gpus-per-node 4 --clock-skew-us 2000 --straggler 5:1.25");
  write_job(plain, "--gpus-per-node 4 --straggler 5:1.25");
  std::string output;
  for (const traceprism::testing::TempDir* d : {&dir, &plain})
    ASSERT_EQ(run_cli("analyze -q " + shell_quote(d->file("job")) + " --gpus-per-node 4 -o " +
                          shell_quote(d->file("out")),
                      &output),
              0)
        << output;
  const auto truth =
      boost::json::parse(read_file(fs::path(dir.file("job")) / "synth_truth.json")).as_object();
  const double true_offset_us =
      truth.at("clock_offsets_ns").as_array().at(1).to_number<double>() / 1e3;
  ASSERT_NE(true_offset_us, 0.0);
  const auto root = boost::json::parse(read_file(fs::path(dir.file("out")) / "findings.json"));
  const auto& node1 = root.at("multi_rank").at("clock_offsets").as_array().at(1).as_object();
  EXPECT_NEAR(node1.at("offset_us").to_number<double>(), true_offset_us, 25.0);
  EXPECT_TRUE(node1.at("applied").as_bool());
  const std::vector<std::string> titles = straggler_titles(dir.file("out"));
  ASSERT_EQ(titles.size(), 1u);
  EXPECT_EQ(titles[0].rfind("Rank 5 arrives last", 0), 0u) << titles[0];
  const double skewed = straggler_impact_mid(dir.file("out"));
  const double reference = straggler_impact_mid(plain.file("out"));
  ASSERT_GT(reference, 0);
  EXPECT_NEAR(skewed, reference, 0.02 * reference);
}

// Ranks read one at a time or four at once: the same bytes. A truncated rank file is left out
// with its sentence, and the run goes on (§2).
TEST(MultiRankAnalyze, RankJobsAndAnUnreadableRank) {
  traceprism::testing::TempDir dir;
  write_job(dir, "--straggler 5:1.25");
  const std::string job = dir.file("job");
  std::string output;
  for (const char* jobs : {"1", "4"})
    ASSERT_EQ(run_cli("analyze -q " + shell_quote(job) + " --rank-jobs " + jobs + " -o " +
                          shell_quote(dir.file(std::string("j") + jobs)),
                      &output),
              0)
        << output;
  for (const char* file : {"analysis.md", "findings.json", "multi_rank_csvs/ranks.csv"})
    EXPECT_EQ(read_file(fs::path(dir.file("j1")) / file),
              read_file(fs::path(dir.file("j4")) / file))
        << file;
  const std::string whole = read_file(fs::path(job) / "rank3.json.gz");
  std::ofstream(fs::path(job) / "rank3.json.gz", std::ios::binary | std::ios::trunc)
      << whole.substr(0, whole.size() / 2);
  ASSERT_EQ(
      run_cli("analyze -q " + shell_quote(job) + " -o " + shell_quote(dir.file("cut")), &output), 0)
      << output;
  const std::string md = read_file(fs::path(dir.file("cut")) / "analysis.md");
  EXPECT_NE(md.find("| Ranks Analyzed | 7 of 8 |"), std::string::npos);
  EXPECT_NE(md.find("rank3.json.gz: truncated gzip stream"), std::string::npos);
  EXPECT_NE(md.find("; excluded."), std::string::npos);
  EXPECT_EQ(straggler_titles(dir.file("cut")).size(), 1u);
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

// §2's rank-choice options: --ranks narrows the job, --focus-rank names whose report it is,
// --require-all-ranks refuses a job with a missing rank, --on-duplicate-rank first keeps the
// first path, and bad values are usage errors (exit 64) that name the option.
TEST(MultiRankAnalyze, RankChoiceOptions) {
  traceprism::testing::TempDir dir;
  write_job(dir, "--straggler 5:1.25 --missing-rank 6");
  const std::string job = shell_quote(dir.file("job"));
  std::string output;
  ASSERT_EQ(run_cli("analyze -q " + job + " --ranks 0-3,5 --focus-rank 2 -o " +
                        shell_quote(dir.file("some")),
                    &output),
            0)
      << output;
  const std::string md = read_file(fs::path(dir.file("some")) / "analysis.md");
  EXPECT_NE(md.find("| Ranks Analyzed | 5 of 8 |"), std::string::npos);
  EXPECT_NE(md.find("| Focus Rank | 2 |"), std::string::npos);
  const std::string csv = read_file(fs::path(dir.file("some")) / "multi_rank_csvs" / "ranks.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 6);
  EXPECT_EQ(csv.find("\n4,"), std::string::npos);

  EXPECT_EQ(run_cli("analyze -q " + job + " --require-all-ranks -o " + shell_quote(dir.file("all")),
                    &output),
            kExitBadInput);
  EXPECT_NE(output.find("6"), std::string::npos) << output;

  for (const char* bad : {"--focus-rank x", "--focus-rank 42", "--memory-budget 12Q", "--ranks 7-3",
                          "--rank-regex '('"}) {
    const int code =
        run_cli("analyze -q " + job + " " + bad + " -o " + shell_quote(dir.file("bad")), &output);
    EXPECT_TRUE(code == kExitUsage || code == kExitBadInput) << bad << ": " << code;
    EXPECT_NE(output.find(std::string(bad).substr(0, std::string(bad).find(' '))),
              std::string::npos)
        << bad << ": " << output;
  }
  fs::copy_file(fs::path(dir.file("job")) / "rank3.json.gz",
                fs::path(dir.file("job")) / "rank3_copy.json.gz");
  EXPECT_EQ(
      run_cli("analyze -q " + job + " --on-duplicate-rank first -o " + shell_quote(dir.file("dup")),
              &output),
      0)
      << output;
}

// --detail writes one row per matched collective; --match-tolerance-us bounds the timeline tier
// (0: no two ranks end at the same nanosecond, so nothing matches) and the warning names it.
TEST(MultiRankAnalyze, DetailAndMatchTolerance) {
  traceprism::testing::TempDir dir;
  write_job(dir, "--nccl-meta none --skew-us 20");
  std::string output;
  const std::string job = shell_quote(dir.file("job"));
  ASSERT_EQ(run_cli("analyze -q " + job + " --detail -o " + shell_quote(dir.file("out")), &output),
            0)
      << output;
  const std::string csv =
      read_file(fs::path(dir.file("out")) / "multi_rank_csvs" / "collectives.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 10) << csv;  // the header and 9 rows
  std::istringstream rows(csv);
  std::string row;
  std::getline(rows, row);
  while (std::getline(rows, row)) EXPECT_NE(row.find(",timeline,"), std::string::npos) << row;
  ASSERT_EQ(
      run_cli("analyze -q " + job + " --match-tolerance-us 0 -o " + shell_quote(dir.file("exact")),
              &output),
      0)
      << output;
  const std::string md = read_file(fs::path(dir.file("exact")) / "analysis.md");
  EXPECT_NE(md.find("- **Collectives**: 0 matched on every loaded member"), std::string::npos);
  EXPECT_NE(md.find("matched by end time alone (the traces carry no process-group metadata), "
                    "within 0 \u00b5s"),
            std::string::npos);
  EXPECT_FALSE(fs::exists(fs::path(dir.file("exact")) / "multi_rank_csvs" / "collectives.csv"));
  for (const char* bad : {"-5", "nan"}) {
    EXPECT_EQ(run_cli("analyze -q " + job + " --match-tolerance-us " + bad, &output), kExitUsage);
    EXPECT_NE(output.find("--match-tolerance-us takes a number of microseconds"), std::string::npos)
        << bad;
  }
  const std::string one_rank = shell_quote((fs::path(dir.file("job")) / "rank0.json.gz").string());
  EXPECT_EQ(
      run_cli("analyze -q " + one_rank + " --detail -o " + shell_quote(dir.file("one")), &output),
      kExitUsage);
  EXPECT_NE(output.find("--detail applies to a multi-rank job"), std::string::npos) << output;
}

// --no-clock-align: node 1's offset is still estimated and reported, but not applied.
TEST(MultiRankAnalyze, NoClockAlignKeepsTheWrittenClocks) {
  traceprism::testing::TempDir dir;
  write_job(dir, "--gpus-per-node 4 --clock-skew-us 2000 --straggler 5:1.25");
  std::string output;
  const std::string job = shell_quote(dir.file("job"));
  ASSERT_EQ(run_cli("analyze -q " + job + " -o " + shell_quote(dir.file("aligned")), &output), 0)
      << output;
  ASSERT_EQ(run_cli("analyze -q " + job + " --no-clock-align -o " + shell_quote(dir.file("raw")),
                    &output),
            0)
      << output;
  const auto offsets = [&](const char* out) {
    return read_file(fs::path(dir.file(out)) / "multi_rank_csvs" / "clock_offsets.csv");
  };
  EXPECT_NE(offsets("aligned").find(",true\n"), std::string::npos) << offsets("aligned");
  EXPECT_EQ(offsets("raw").find(",true\n"), std::string::npos) << offsets("raw");
  // The same estimate either way: only the applied column differs.
  std::string raw = offsets("raw");
  std::string aligned = offsets("aligned");
  for (std::size_t at; (at = aligned.find(",true\n")) != std::string::npos;)
    aligned.replace(at, 6, ",false\n");
  EXPECT_EQ(raw, aligned);
}

// --per-rank-reports: every rank's own report under ranks/ (the one `analyze` writes for that
// file alone, each folder valid on its own), and the focus rank's compute cards say on how many
// ranks they recur.
TEST(MultiRankAnalyze, PerRankReports) {
  traceprism::testing::TempDir dir;
  write_job(dir, "--straggler 5:1.25 --skew-us 20");
  std::string output;
  const fs::path out = dir.file("out");
  ASSERT_EQ(run_cli("analyze -q " + shell_quote(dir.file("job")) + " --per-rank-reports -o " +
                        shell_quote(out.string()),
                    &output),
            0)
      << output;
  for (int rank = 0; rank < 8; ++rank) {
    const fs::path folder = out / "ranks" / ("rank-0000" + std::to_string(rank));
    EXPECT_TRUE(fs::exists(folder / "analysis.md")) << folder;
  }
  ASSERT_EQ(
      run_cli("validate-report " + shell_quote((out / "ranks" / "rank-00003").string()), &output),
      0)
      << output;
  const fs::path alone = dir.file("alone");
  ASSERT_EQ(
      run_cli("analyze -q " + shell_quote((fs::path(dir.file("job")) / "rank3.json.gz").string()) +
                  " -o " + shell_quote(alone.string()),
              &output),
      0)
      << output;
  for (const char* file : {"analysis.md", "findings.json"})
    EXPECT_EQ(read_file(out / "ranks" / "rank-00003" / file), read_file(alone / file)) << file;
  // The first GEMM card recurs on every rank; every compute card is seen on the focus rank at
  // least.
  const auto root = boost::json::parse(read_file(out / "findings.json")).as_object();
  for (const auto& f : root.at("findings").as_array()) {
    const auto& o = f.as_object();
    if (o.at("tier").as_string() != "compute") continue;
    const double seen = o.at("metrics").as_object().at("seen_on_ranks").to_number<double>();
    EXPECT_GE(seen, 1) << o.at("id");
    EXPECT_EQ(o.at("metrics").as_object().at("ranks_compared").to_number<double>(), 8);
    if (o.at("id").as_string() != "compute-p1") continue;
    EXPECT_EQ(o.at("analyzer").as_string(), "gemm-efficiency");
    EXPECT_EQ(seen, 8);
    EXPECT_NE(std::string(o.at("insight").as_string()).find("Seen on 8 of 8 ranks (impact "),
              std::string::npos)
        << o.at("insight");
  }
  ASSERT_EQ(run_cli("validate-report " + shell_quote(out.string()), &output), 0) << output;
}

// The cross-rank thresholds are configuration options (§9.2): a minimum lateness above rank 5's
// (about 0.73 ms) leaves no straggler card; a value that is not a number is a usage error.
TEST(MultiRankAnalyze, ThresholdsComeFromTheConfig) {
  traceprism::testing::TempDir dir;
  write_job(dir, "--straggler 5:1.25 --skew-us 20");
  const std::string config = dir.file("xrank.json");
  std::ofstream(config) << R"({"options": {"xrank.StragglerMinLatenessUs": "5000"}})";
  std::string output;
  ASSERT_EQ(run_cli("analyze -q " + shell_quote(dir.file("job")) + " --config " +
                        shell_quote(config) + " -o " + shell_quote(dir.file("out")),
                    &output),
            0)
      << output;
  EXPECT_TRUE(straggler_titles(dir.file("out")).empty());
  std::ofstream(config) << R"({"options": {"xrank.StragglerMinZ": "high"}})";
  EXPECT_EQ(run_cli("analyze -q " + shell_quote(dir.file("job")) + " --config " +
                        shell_quote(config) + " -o " + shell_quote(dir.file("bad")),
                    &output),
            kExitUsage);
  EXPECT_NE(output.find("xrank.StragglerMinZ: expected a number"), std::string::npos) << output;
}

// --rank-depth light indexes only what the rank summaries read: the same report, byte for byte,
// whatever the job's metadata and groups.
TEST(MultiRankAnalyze, LightDepthGivesTheSameReport) {
  for (const char* injection : {"--straggler 5:1.25 --skew-us 20", "--nccl-meta none --skew-us 20",
                                "--tp 2 --slow-link 3:0.5"}) {
    traceprism::testing::TempDir dir;
    write_job(dir, injection);
    std::string output;
    for (const char* depth : {"full", "light"})
      ASSERT_EQ(run_cli("analyze -q " + shell_quote(dir.file("job")) + " --detail --rank-depth " +
                            depth + " -o " + shell_quote(dir.file(depth)),
                        &output),
                0)
          << output;
    for (const char* file :
         {"analysis.md", "findings.json", "multi_rank_csvs/ranks.csv",
          "multi_rank_csvs/collectives.csv", "multi_rank_csvs/clock_offsets.csv"})
      EXPECT_EQ(read_file(fs::path(dir.file("full")) / file),
                read_file(fs::path(dir.file("light")) / file))
          << injection << ": " << file;
  }
}

}  // namespace
