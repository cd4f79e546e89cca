// On every real trace under ../shared/traces: `traceprism analyze` writes a report whose numbers
// hold the invariants of diagnosis.md §1.2 (validate-report finds no problem) and that prints no
// action whose precondition the trace does not show (§1.1, §9): no advice to remove
// synchronizations without a sync stall, no graph advice that does not say how many graph
// launches exist, no pinned-memory advice without pageable copies, no idle cause under 2 %; and
// whose compute tier is consistent (§1.2, §1.4, §6.7: see expect_consistent_compute_tier).
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

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

// The Top Operations rows' "% of Compute Time" cells.
std::vector<double> top_ops_shares(const std::string& md) {
  std::vector<double> out;
  const auto begin = md.find("<!-- impact-begin kind=top_ops -->");
  const auto end = md.find("<!-- impact-end -->", begin);
  if (begin == std::string::npos || end == std::string::npos) return out;
  std::istringstream block(md.substr(begin, end - begin));
  for (std::string line; std::getline(block, line);) {
    if (line.find("top-ops-row") == std::string::npos) continue;
    std::vector<std::string> cells;
    std::istringstream ss(line);
    for (std::string cell; std::getline(ss, cell, '|');) cells.push_back(cell);
    if (cells.size() > 4) out.push_back(std::stod(cells[4]));
  }
  return out;
}

// The executive summary's "Top Bottleneck Category" cell.
std::string top_bottleneck_cell(const std::string& md) {
  const std::string row = "| Top Bottleneck Category | ";
  const auto at = md.find(row);
  if (at == std::string::npos) return {};
  return md.substr(at + row.size(), md.find(" |", at + row.size()) - at - row.size());
}

// diagnosis.md §1.2, §1.4, §6.7 in analysis.md: category shares from the partition, no "within
// target" below 90 % coverage, Top Operations not empty beside compute items, and the top
// bottleneck the largest category.
void expect_consistent_compute_tier(const std::string& md, const json::object& report) {
  std::size_t compute = 0;
  for (const json::value& v : report.at("findings").as_array())
    if (text(v.as_object(), "tier") == "compute") ++compute;
  const std::vector<double> shares = top_ops_shares(md);
  double sum = 0;
  for (double s : shares) {
    EXPECT_LE(s, 100.0);
    sum += s;
  }
  EXPECT_LE(sum, 100.01) << "Top Operations shares sum past 100 %";
  if (compute > 0) {
    EXPECT_FALSE(shares.empty()) << "compute items but no Top Operations row";
  }
  const json::value* d = report.if_contains("diagnosis");
  if (!d || !d->is_object()) return;
  const json::object& diagnosis = d->as_object();
  const json::value* covered = diagnosis.if_contains("compute_coverage_percent");
  if (mentions(md, "within target performance bounds")) {
    EXPECT_TRUE(covered && covered->is_number() && covered->to_number<double>() >= 90.0)
        << "\"within target\" below 90 % perf-model coverage";
  }
  std::string largest;
  double largest_us = -1;
  for (const json::value& v : diagnosis.at("computation_by_category").as_array()) {
    const double us = v.as_object().at("time_us").to_number<double>();
    if (us > largest_us) largest_us = us, largest = text(v.as_object(), "category");
  }
  if (!largest.empty()) {
    EXPECT_EQ(top_bottleneck_cell(md).rfind(largest + " (", 0), 0u)
        << "Top Bottleneck Category is not the largest category " << largest;
  }
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
  expect_consistent_compute_tier(
      traceprism::testing::read_file((out.path() / "analysis.md").string()), report);
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
