#include <gtest/gtest.h>

#include "config/run_config.hpp"

namespace traceprism::config {
namespace {

TEST(Glob, MatchesStarsAndQuestionMarks) {
  EXPECT_TRUE(glob_match("*", "cpu-idle"));
  EXPECT_TRUE(glob_match("cpu-*", "cpu-idle"));
  EXPECT_TRUE(glob_match("*-idle", "cpu-idle"));
  EXPECT_TRUE(glob_match("c?u-idle", "cpu-idle"));
  EXPECT_TRUE(glob_match("*i*e*", "cpu-idle"));
  EXPECT_FALSE(glob_match("gemm-*", "cpu-idle"));
  EXPECT_FALSE(glob_match("cpu", "cpu-idle"));
  EXPECT_FALSE(glob_match("cpu-idle?", "cpu-idle"));
}

TEST(RunConfig, LastMatchingGlobWins) {
  RunConfig c = parse_config(R"({"analyzers": "*, -mem*, memcpy"})", "t.json");
  EXPECT_TRUE(c.enabled("cpu-idle"));
  EXPECT_TRUE(c.enabled("memcpy"));
  EXPECT_FALSE(c.enabled("memory-other"));
  RunConfig none = parse_config(R"({"analyzers": ""})", "t.json");
  EXPECT_FALSE(none.enabled("cpu-idle"));
}

TEST(RunConfig, OptionsBecomeText) {
  RunConfig c = parse_config(
      R"({"options": {"a-b.X": "1.5", "a-b.Y": 20, "a-b.Z": true, "a-b.W": 0.25}})", "t.json");
  ASSERT_NE(c.option("a-b", "X"), nullptr);
  EXPECT_EQ(*c.option("a-b", "X"), "1.5");
  EXPECT_EQ(*c.option("a-b", "Y"), "20");
  EXPECT_EQ(*c.option("a-b", "Z"), "true");
  EXPECT_EQ(std::stod(*c.option("a-b", "W")), 0.25);
  EXPECT_EQ(c.option("a-b", "Missing"), nullptr);
  EXPECT_EQ(c.option("other", "X"), nullptr);
}

TEST(RunConfig, MergeAppendsGlobsAndOverridesOptions) {
  RunConfig base = default_config();
  EXPECT_TRUE(base.enabled("anything"));
  RunConfig user = parse_config(R"({"analyzers": "-comm", "options": {"x-y.A": "2"},
                                    "report": {"fail_on": "critical"}})",
                                "user.json");
  merge_config(base, user);
  EXPECT_FALSE(base.enabled("comm"));
  EXPECT_TRUE(base.enabled("memcpy"));
  EXPECT_EQ(*base.option("x-y", "A"), "2");
  EXPECT_EQ(base.fail_on, "critical");
}

TEST(RunConfig, ErrorsNameTheFileAndTheProblem) {
  auto message = [](std::string_view text) {
    try {
      parse_config(text, "cfg.json");
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("{"),
            "cfg.json: not valid JSON (" +
                message("{").substr(std::string("cfg.json: not valid JSON (").size()));
  EXPECT_EQ(message("[]"), "cfg.json: expected a JSON object at the top.");
  EXPECT_EQ(message(R"({"checks": "*"})"),
            "cfg.json: unknown key 'checks' (expected analyzers, options, report).");
  EXPECT_EQ(message(R"({"options": {"NoDot": "1"}})"),
            "cfg.json: option 'NoDot' must be written '<analyzer>.<Option>'.");
  EXPECT_EQ(message(R"({"options": {"a.B": [1]}})"),
            "cfg.json: option 'a.B' must be a string, a number or true/false.");
  EXPECT_EQ(message(R"({"report": {"fail_on": "sometimes"}})"),
            "cfg.json: report.fail_on must be none, info, warning or critical.");
}

}  // namespace
}  // namespace traceprism::config
