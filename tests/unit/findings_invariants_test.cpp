// validate-report's findings.json invariants (diagnosis.md §1.2, §8): each broken one is
// reported, a consistent document gives no problem.
#include "validate/findings_invariants.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>

namespace json = boost::json;
using traceprism::validate::findings_invariant_problems;

namespace {

// A consistent document: 10 ms window, 4 ms idle split 3 + 1, one finding named first.
json::object consistent() {
  return json::parse(R"({
    "gpu_utilization": {"gpu_events": 4, "computation_time_percent": 50.0,
      "exposed_comm_time_percent": 5.0, "exposed_memcpy_time_percent": 5.0,
      "idle_time_percent": 40.0},
    "diagnosis": {"window_us": 10000.0, "idle_us": 4000.0,
      "idle_by_cause": [
        {"cause": "dataloader", "idle_us": 3000.0, "percent_of_idle": 75.0, "percent_of_e2e": 30.0},
        {"cause": "sync", "idle_us": 1000.0, "percent_of_idle": 25.0, "percent_of_e2e": 10.0}],
      "steps": [{"name": "ProfilerStep#1", "dur_us": 10000.0, "gpu_busy_us": 6000.0,
                 "idle_us": 4000.0}],
      "first": {"finding": "system-p1", "cause": "dataloader"}},
    "findings": [{"id": "system-p1", "cause": "dataloader", "share_percent": 30.0,
      "impact": {"kind": "quantified", "low": 15.0, "mid": 22.5, "high": 28.5}}]
  })")
      .as_object();
}

std::string problems_of(const json::object& o) {
  std::string all;
  for (const std::string& p : findings_invariant_problems(o)) all += p + "\n";
  return all;
}

TEST(FindingsInvariants, ConsistentDocumentHasNoProblem) {
  EXPECT_EQ(problems_of(consistent()), "");
}

TEST(FindingsInvariants, GpuSplitMustSumToHundred) {
  json::object o = consistent();
  o["gpu_utilization"].as_object()["idle_time_percent"] = 45.0;
  EXPECT_NE(problems_of(o).find("sum to 105"), std::string::npos) << problems_of(o);
}

TEST(FindingsInvariants, IdleByCauseMustSumToIdle) {
  json::object o = consistent();
  o["diagnosis"].as_object()["idle_us"] = 5000.0;
  EXPECT_NE(problems_of(o).find("idle_by_cause sums to 4000"), std::string::npos) << problems_of(o);
}

TEST(FindingsInvariants, CausesComeFromTheVocabularyAndInOrder) {
  json::object o = consistent();
  auto& causes = o["diagnosis"].as_object()["idle_by_cause"].as_array();
  causes[1].as_object()["cause"] = "gremlins";
  std::swap(causes[0], causes[1]);
  const std::string p = problems_of(o);
  EXPECT_NE(p.find("'gremlins', not an idle cause"), std::string::npos) << p;
  EXPECT_NE(p.find("not sorted"), std::string::npos) << p;
  o = consistent();
  o["findings"].as_array()[0].as_object()["cause"] = "bad_luck";
  EXPECT_NE(problems_of(o).find("outside the vocabulary"), std::string::npos);
}

TEST(FindingsInvariants, FirstMustNameAFindingWithItsCause) {
  json::object o = consistent();
  o["diagnosis"].as_object()["first"].as_object()["finding"] = "compute-p9";
  EXPECT_NE(problems_of(o).find("'compute-p9', which is no finding"), std::string::npos);
  o = consistent();
  o["diagnosis"].as_object()["first"].as_object()["cause"] = "sync";
  EXPECT_NE(problems_of(o).find("not the cause of finding system-p1"), std::string::npos);
}

TEST(FindingsInvariants, ImpactsAndSharesStayInBounds) {
  json::object o = consistent();
  auto& f = o["findings"].as_array()[0].as_object();
  f["share_percent"] = 130.0;
  f["impact"].as_object()["low"] = 40.0;
  const std::string p = problems_of(o);
  EXPECT_NE(p.find("above 100 %"), std::string::npos) << p;
  EXPECT_NE(p.find("not ordered"), std::string::npos) << p;
}

TEST(FindingsInvariants, StepPartsFitInTheStep) {
  json::object o = consistent();
  o["diagnosis"].as_object()["steps"].as_array()[0].as_object()["idle_us"] = 9000.0;
  EXPECT_NE(problems_of(o).find("exceeds the step's duration"), std::string::npos);
}

}  // namespace
