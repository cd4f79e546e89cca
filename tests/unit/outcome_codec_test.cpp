#include "schedule/outcome_codec.hpp"

#include <gtest/gtest.h>

namespace traceprism::schedule {
namespace {

findings::AnalyzerOutcome sample() {
  findings::AnalyzerOutcome o;
  o.status = findings::AnalyzerStatus::kSkipped;
  o.error = "not applicable";
  o.refused_findings = 2;
  findings::Finding f;
  f.analyzer = "a";
  f.tier = findings::Tier::kCompute;
  f.severity = findings::Severity::kCritical;
  f.impact_kind = findings::ImpactKind::kHeuristic;
  f.title = "t";
  f.cause = "dataloader";
  f.insight = std::string("with\0nul", 8);
  f.impact_low = 1.25, f.impact_mid = 2.5, f.impact_high = 3.75, f.share_percent = -1;
  f.first_evidence_ts_ns = -7;
  f.rows = {3, 1, 4294967295u};
  f.kernels = {2, 5, 4294967294u};
  f.metrics = {{"m", 0.1}};
  f.tables = {{"T", {"A", "B"}, {{"1", "2"}, {"", "x|y"}}}};
  o.findings = {f, findings::Finding{}};
  o.figures = {{"b", 2.0}, {"a", 1e-300}};
  o.log = {{2, "warning text"}};
  return o;
}

TEST(OutcomeCodec, RoundTripsEveryField) {
  const findings::AnalyzerOutcome in = sample();
  findings::AnalyzerOutcome out;
  ASSERT_TRUE(decode_outcome(encode_outcome(in), out));
  EXPECT_EQ(out.status, in.status);
  EXPECT_EQ(out.error, in.error);
  EXPECT_EQ(out.refused_findings, 2u);
  ASSERT_EQ(out.findings.size(), 2u);
  const auto& f = out.findings[0];
  EXPECT_EQ(f.tier, findings::Tier::kCompute);
  EXPECT_EQ(f.severity, findings::Severity::kCritical);
  EXPECT_EQ(f.impact_kind, findings::ImpactKind::kHeuristic);
  EXPECT_EQ(f.insight, std::string("with\0nul", 8));
  EXPECT_EQ(f.impact_mid, 2.5);
  EXPECT_EQ(f.cause, "dataloader");
  EXPECT_EQ(f.first_evidence_ts_ns, -7);
  EXPECT_EQ(f.rows, in.findings[0].rows);
  EXPECT_EQ(f.kernels, in.findings[0].kernels);
  EXPECT_EQ(f.metrics, in.findings[0].metrics);
  ASSERT_EQ(f.tables.size(), 1u);
  EXPECT_EQ(f.tables[0].rows, in.findings[0].tables[0].rows);
  EXPECT_EQ(out.figures, in.figures);
  ASSERT_EQ(out.log.size(), 1u);
  EXPECT_EQ(out.log[0].message, "warning text");
}

TEST(OutcomeCodec, RefusesTruncatedOrPaddedBytes) {
  const std::string bytes = encode_outcome(sample());
  findings::AnalyzerOutcome out;
  for (std::size_t cut : {std::size_t(0), std::size_t(5), bytes.size() / 2, bytes.size() - 1})
    EXPECT_FALSE(decode_outcome(std::string_view(bytes).substr(0, cut), out)) << cut;
  EXPECT_FALSE(decode_outcome(bytes + "x", out));
}

TEST(OutcomeCodec, HugeCountsDoNotAllocate) {
  std::string bytes = encode_outcome(findings::AnalyzerOutcome{});
  // Overwrite the findings count (after status, error length and refused count) with 2^60.
  const std::uint64_t huge = std::uint64_t(1) << 60;
  bytes.replace(8 + 8 + 8, 8, reinterpret_cast<const char*>(&huge), 8);
  findings::AnalyzerOutcome out;
  EXPECT_FALSE(decode_outcome(bytes, out));
}

}  // namespace
}  // namespace traceprism::schedule
