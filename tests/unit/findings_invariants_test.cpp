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

// A serving step's busy and idle time are over the GPU work it launched, which may outlast
// its host range: they are checked against gpu_span_us.
TEST(FindingsInvariants, ServingStepPartsFitInTheirGpuSpan) {
  json::object o = consistent();
  auto& step = o["diagnosis"].as_object()["steps"].as_array()[0].as_object();
  step["phase"] = "decode_only";
  step["dur_us"] = 2000.0;  // the host range; busy + idle = 10000 over the GPU span
  step["gpu_span_us"] = 12000.0;
  EXPECT_EQ(problems_of(o).find("exceeds"), std::string::npos) << problems_of(o);
  step["gpu_span_us"] = 9000.0;
  EXPECT_NE(problems_of(o).find("exceeds the GPU span of the work it launched"), std::string::npos);
}

// diagnosis.md §1.5: a compute finding with 1000 µs of kernels, 250 µs of them under
// fusion-p1, keeps 3/4 of its emitted impact; a folded finding names an existing finding.
json::object with_shared_kernels() {
  json::object o = consistent();
  json::array& findings = o["findings"].as_array();
  findings.push_back(json::parse(R"({"id": "fusion-p1", "cause": "fusion",
      "impact": {"kind": "quantified", "low": 6.0, "mid": 7.0, "high": 8.0},
      "shared_kernels": null})"));
  findings.push_back(json::parse(R"({"id": "compute-p1", "cause": "roofline",
      "impact": {"kind": "quantified", "low": 3.0, "mid": 6.0, "high": 9.0},
      "shared_kernels": {"kernel_time_us": 1000.0,
        "reported_elsewhere": [{"finding": "fusion-p1", "analyzer": "kernel-fusion",
                                "time_us": 250.0}],
        "impact_as_emitted": {"low": 4.0, "mid": 8.0, "high": 12.0},
        "share_percent_as_emitted": 10.0}})"));
  o["folded_findings"] = json::parse(R"([{"key": "k", "folded_into": "fusion-p1"}])");
  return o;
}

TEST(FindingsInvariants, SharedKernelTimeShrinksTheImpactAndPointsAtAFinding) {
  EXPECT_EQ(problems_of(with_shared_kernels()), "");
  json::object o = with_shared_kernels();
  json::object& shared = o["findings"].as_array()[2].as_object()["shared_kernels"].as_object();
  shared["reported_elsewhere"].as_array()[0].as_object()["finding"] = "fusion-p7";
  shared["reported_elsewhere"].as_array()[0].as_object()["time_us"] = 1500.0;
  o["folded_findings"].as_array()[0].as_object()["folded_into"] = "compute-p9";
  const std::string p = problems_of(o);
  EXPECT_NE(p.find("under 'fusion-p7', which is no finding"), std::string::npos) << p;
  EXPECT_NE(p.find("more than their 1000 µs"), std::string::npos) << p;
  EXPECT_NE(p.find("folded into 'compute-p9', which is no finding"), std::string::npos) << p;
  o = with_shared_kernels();
  o["findings"].as_array()[2].as_object()["impact"].as_object()["mid"] = 8.0;
  EXPECT_NE(problems_of(o).find("impact mid 8 is not its emitted impact"), std::string::npos)
      << problems_of(o);
}

}  // namespace
