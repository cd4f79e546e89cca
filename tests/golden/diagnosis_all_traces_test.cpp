// On every real trace under ../shared/traces: `traceprism analyze` writes a report whose numbers
// hold the invariants of diagnosis.md §1.2 (validate-report finds no problem) and that prints no
// action whose precondition the trace does not show (§1.1, §9): no advice to remove
// synchronizations without a sync stall, no graph advice that does not say how many graph
// launches exist, no pinned-memory advice without pageable copies, no idle cause under 2 %.
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <filesystem>
#include <string>

#include "ingest/trace_reader.hpp"
#include "support/findings_json.hpp"
#include "support/run_cli.hpp"
#include "support/shared_traces.hpp"
#include "support/temp_dir.hpp"
#include "validate/report_validator.hpp"

namespace fs = std::filesystem;
namespace json = boost::json;
using traceprism::index::EventKind;

namespace {

const fs::path kTraces = traceprism::testing::shared_traces();

using TraceCase = traceprism::testing::SharedTrace;

// What the trace shows, counted from its events.
struct TraceFacts {
  std::size_t graph_launches = 0;
  std::size_t pageable_copies = 0;
};

TraceFacts facts_of(const fs::path& trace) {
  const auto index = traceprism::ingest::read_trace(trace.string()).index;
  TraceFacts f;
  for (EventKind k : {EventKind::kCudaRuntime, EventKind::kCudaDriver})
    for (auto r : index.rows_of_kind(k))
      if (index.name(r).find("GraphLaunch") != std::string_view::npos) ++f.graph_launches;
  for (auto r : index.rows_of_kind(EventKind::kGpuMemcpy))
    if (index.name(r).find("Pageable") != std::string_view::npos) ++f.pageable_copies;
  return f;
}

std::string text(const json::object& o, const char* key) {
  const json::value* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

bool mentions(const std::string& haystack, const char* needle) {
  return haystack.find(needle) != std::string::npos;
}

// The idle share diagnosis.idle_by_cause gives `cause` (0 when absent).
double idle_percent(const json::object& report, const std::string& cause) {
  const json::value* d = report.if_contains("diagnosis");
  if (!d || !d->is_object()) return 0;
  for (const json::value& c : d->as_object().at("idle_by_cause").as_array())
    if (c.as_object().at("cause").as_string() == cause)
      return c.as_object().at("percent_of_e2e").to_number<double>();
  return 0;
}

class DiagnosisAllTraces : public ::testing::TestWithParam<TraceCase> {};

TEST_P(DiagnosisAllTraces, ReportHoldsItsInvariantsAndEveryActionItsPrecondition) {
  const TraceCase& c = GetParam();
  if (c.path.empty()) GTEST_SKIP() << kTraces << " is absent";
  traceprism::testing::TempDir out;
  std::string log;
  ASSERT_EQ(traceprism::testing::run_cli(
                "analyze " + traceprism::testing::shell_quote(c.path.string()) + " -o " +
                    traceprism::testing::shell_quote(out.path().string()),
                &log),
            0)
      << log;
  for (const auto& p : traceprism::validate::validate_report(out.path()))
    ADD_FAILURE() << p.to_string();

  const json::object report =
      json::parse(traceprism::testing::read_file((out.path() / "findings.json").string()))
          .as_object();
  const TraceFacts facts = facts_of(c.path);
  for (const json::value& v : report.at("findings").as_array()) {
    const json::object& f = v.as_object();
    const std::string id = text(f, "id"), action = text(f, "action"), cause = text(f, "cause");
    const double stall = idle_percent(report, "sync") + idle_percent(report, "blocking_copy");
    if (mentions(action, "synchroniz") &&
        (mentions(action, "Remove") || mentions(action, "remove"))) {
      EXPECT_GE(stall, 2.0) << id << " advises removing synchronizations, but sync and blocking "
                            << "copies hold only " << stall << " % of the run: " << action;
    }
    if (mentions(action, "graph")) {
      if (facts.graph_launches > 0) {
        EXPECT_TRUE(mentions(action, std::to_string(facts.graph_launches).c_str()))
            << id << " gives graph advice without the trace's " << facts.graph_launches
            << " graph launches: " << action;
      } else {
        EXPECT_FALSE(mentions(action, "already replays")) << id << ": " << action;
      }
    }
    if (mentions(action, "pin_memory") || mentions(action, "pinned")) {
      EXPECT_GT(facts.pageable_copies, 0u)
          << id << " advises pinned memory, but the trace has no pageable copy: " << action;
    }
    if (!cause.empty() && idle_percent(report, cause) > 0 && text(f, "analyzer") == "cpu-idle") {
      EXPECT_GE(idle_percent(report, cause), 2.0) << id << " reports an idle cause under 2 %";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Traces, DiagnosisAllTraces,
                         ::testing::ValuesIn(traceprism::testing::all_shared_traces()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
