// On every real trace under ../shared/traces, what `traceprism analyze` reports of fusion and
// attention holds diagnosis.md §6.2 and §1.1: no fusion finding claims more time than the kernels
// its instances cover, the fusion findings together claim no more than the computation time,
// no finding advises fusing an attention (or its softmax) whose kernels already are fused, and no
// finding advises folding a frozen batch-norm on a trace that trains (has a backward pass).
#include <gtest/gtest.h>

#include <traceprism/fused_attention.hpp>
#include <traceprism/training.hpp>

#include <boost/json.hpp>
#include <filesystem>
#include <string>

#include "ingest/trace_reader.hpp"
#include "support/findings_json.hpp"
#include "support/shared_traces.hpp"

namespace {

namespace json = boost::json;
using traceprism::index::EventKind;
using traceprism::testing::SharedTrace;

// Whether the trace runs a backward pass, from its cpu ops.
bool trains(const std::filesystem::path& trace) {
  const auto index = traceprism::ingest::read_trace(trace.string()).index;
  for (auto r : index.rows_of_kind(EventKind::kCpuOp))
    if (traceprism::is_backward_op_name(index.name(r))) return true;
  return false;
}

std::string text(const json::object& o, const char* key) {
  const json::value* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

double metric(const json::object& finding, const char* key) {
  const json::value* m = finding.at("metrics").as_object().if_contains(key);
  return m ? traceprism::testing::number(*m) : -1;
}

bool mentions(const std::string& haystack, const char* needle) {
  return haystack.find(needle) != std::string::npos;
}

// The cells of a finding's tables that name kernels.
std::vector<std::string> kernel_cells(const json::object& finding) {
  std::vector<std::string> out;
  const json::value* tables = finding.if_contains("tables");
  if (!tables) return out;
  for (const json::value& t : tables->as_array()) {
    const json::array& columns = t.at("columns").as_array();
    for (std::size_t c = 0; c < columns.size(); ++c) {
      if (!mentions(std::string(columns[c].as_string()), "Kernel")) continue;
      for (const json::value& row : t.at("rows").as_array())
        if (c < row.as_array().size()) out.emplace_back(row.as_array()[c].as_string());
    }
  }
  return out;
}

bool advises_fused_attention(const json::object& f) {
  const std::string action = text(f, "action"), insight = text(f, "insight");
  return mentions(action, "unfused attention") || mentions(action, "fuse the softmax into") ||
         mentions(action, "Fuse the softmax into") ||
         mentions(insight, "attention implementation is unfused");
}

class FusionAllTraces : public ::testing::TestWithParam<SharedTrace> {};

TEST_P(FusionAllTraces, FusionTimeIsMeasuredAndAdviceFitsTheKernels) {
  const SharedTrace& c = GetParam();
  if (c.path.empty()) GTEST_SKIP() << traceprism::testing::shared_traces() << " is absent";
  const json::object report = traceprism::testing::analyze_findings(c.path);
  if (report.empty()) return;
  const json::object& gpu = report.at("gpu_utilization").as_object();
  const double computation_ms = traceprism::testing::number(gpu.at("total_time_ms")) *
                                traceprism::testing::number(gpu.at("computation_time_percent")) /
                                100;
  const bool training = trains(c.path);
  double fusion_ms = 0;
  for (const json::value& v : report.at("findings").as_array()) {
    const json::object& f = v.as_object();
    const std::string id = text(f, "id");
    if (text(f, "analyzer") == "kernel-fusion") {
      const double time_ms = metric(f, "time_ms");
      // diagnosis.md §6.2: a candidate's time is what its instances' kernels took, no more.
      EXPECT_LE(time_ms, metric(f, "covered_kernel_time_ms") + 1e-3) << id;
      fusion_ms += time_ms;
    }
    if (advises_fused_attention(f)) {
      for (const std::string& kernel : kernel_cells(f))
        EXPECT_FALSE(traceprism::is_fused_attention_kernel(kernel))
            << id << " calls the attention of " << kernel << " unfused: " << text(f, "action");
    }
    if (training) {
      EXPECT_FALSE(mentions(text(f, "action"), "frozen batch-norm"))
          << id << " advises folding batch-norm on a training trace: " << text(f, "action");
    }
  }
  EXPECT_LE(fusion_ms, computation_ms + 1e-3)
      << "the fusion findings claim more than the computation time";
}

INSTANTIATE_TEST_SUITE_P(Traces, FusionAllTraces,
                         ::testing::ValuesIn(traceprism::testing::all_shared_traces()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
