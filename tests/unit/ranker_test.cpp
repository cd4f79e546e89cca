#include <gtest/gtest.h>

#include "findings/ranker.hpp"

namespace traceprism::findings {
namespace {

Finding system(std::string key, double share, Severity sev = Severity::kWarning,
               std::vector<std::uint32_t> rows = {}) {
  Finding f;
  f.tier = Tier::kSystem;
  f.key = std::move(key);
  f.title = f.key;
  f.share_percent = share;
  f.severity = sev;
  f.rows = std::move(rows);
  return f;
}

Finding compute(std::string key, double mid, ImpactKind kind = ImpactKind::kQuantified) {
  Finding f;
  f.tier = Tier::kCompute;
  f.key = std::move(key);
  f.title = f.key;
  f.impact_kind = kind;
  f.impact_low = mid * 0.8;
  f.impact_mid = mid;
  f.impact_high = mid * 1.2;
  return f;
}

AnalyzerOutcome outcome(std::string name, std::vector<Finding> findings,
                        AnalyzerStatus status = AnalyzerStatus::kOk) {
  AnalyzerOutcome o;
  o.name = name;
  o.status = status;
  for (auto& f : findings) f.analyzer = name;
  o.findings = std::move(findings);
  return o;
}

std::vector<std::string> keys(const std::vector<Finding>& v) {
  std::vector<std::string> out;
  for (const auto& f : v) out.push_back(f.key + "#" + std::to_string(f.rank));
  return out;
}

TEST(Ranker, SystemTierByShareThenSeverity) {
  auto r =
      rank_findings({outcome("b", {system("small", 3), system("unknown", -1)}),
                     outcome("a", {system("big", 40), system("tie", 3, Severity::kCritical)})});
  EXPECT_EQ(keys(r.system), (std::vector<std::string>{"big#1", "tie#2", "small#3", "unknown#4"}));
}

TEST(Ranker, ComputeTierByImpactQuantifiedFirstOnTies) {
  auto r = rank_findings(
      {outcome("x", {compute("h", 10, ImpactKind::kHeuristic), compute("q", 10), compute("top", 50),
                     compute("u", 0, ImpactKind::kNotQuantifiable)})});
  EXPECT_EQ(keys(r.compute), (std::vector<std::string>{"top#1", "q#2", "h#3", "u#4"}));
}

TEST(Ranker, TiersAreNumberedIndependently) {
  auto r = rank_findings({outcome("x", {compute("c1", 5), system("s1", 5), compute("c2", 1)})});
  EXPECT_EQ(keys(r.compute), (std::vector<std::string>{"c1#1", "c2#2"}));
  EXPECT_EQ(keys(r.system), (std::vector<std::string>{"s1#1"}));
}

TEST(Ranker, TiesBreakByAnalyzerNameNotInputOrder) {
  auto one = rank_findings({outcome("b", {system("k", 5)}), outcome("a", {system("k", 5)})});
  auto two = rank_findings({outcome("a", {system("k", 5)}), outcome("b", {system("k", 5)})});
  ASSERT_EQ(one.system.size(), 2u);
  EXPECT_EQ(one.system[0].analyzer, "a");
  EXPECT_EQ(two.system[0].analyzer, "a");
}

TEST(Ranker, DropsDuplicateKeysAndIdenticalEvidence) {
  auto r =
      rank_findings({outcome("a", {system("k", 9, Severity::kWarning, {1, 2}), system("k", 8)}),
                     outcome("b", {system("other", 5, Severity::kWarning, {2, 1})})});
  EXPECT_EQ(keys(r.system), (std::vector<std::string>{"k#1"}));
  EXPECT_EQ(r.duplicates_dropped, 2u);
}

TEST(Ranker, FailedAnalyzersContributeNothing) {
  auto r = rank_findings({outcome("a", {system("k", 9)}, AnalyzerStatus::kFailed)});
  EXPECT_TRUE(r.system.empty());
}

}  // namespace
}  // namespace traceprism::findings
