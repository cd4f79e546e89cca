// diagnosis.md §6.3 / §9: `traceprism synth --inject recompute` reruns the checkpointed blocks'
// forward in the backward pass; analyze finds it as the first compute-tier finding, with the
// injected GPU time and selective checkpointing as the action. The clean trace and the
// inference trace (no backward pass) have no recompute finding. Every report written here
// passes validate-report.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>

#include "support/run_cli.hpp"
#include "support/temp_dir.hpp"
#include "validate/report_validator.hpp"

namespace json = boost::json;

namespace {

using traceprism::testing::run_cli;
using traceprism::testing::shell_quote;

// synth (3 steps, the default seed and model) with `args`, then analyze: findings.json.
json::object analyze_synth(const std::string& args) {
  traceprism::testing::TempDir dir;
  const std::string trace = dir.file("t.json"), out = dir.file("out");
  std::string log;
  EXPECT_EQ(run_cli("synth -o " + shell_quote(trace) + " --steps 3 " + args, &log), 0) << log;
  EXPECT_EQ(run_cli("analyze " + shell_quote(trace) + " -o " + shell_quote(out), &log), 0) << log;
  for (const auto& p : traceprism::validate::validate_report(out))
    ADD_FAILURE() << args << ": " << p.to_string();
  return json::parse(traceprism::testing::read_file(out + "/findings.json")).as_object();
}

std::string text(const json::object& o, const char* key) {
  const json::value* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

const json::object* recompute_finding(const json::object& report) {
  for (const json::value& f : report.at("findings").as_array())
    if (text(f.as_object(), "cause") == "recompute") return &f.as_object();
  return nullptr;
}

// The compute tier's P1, or nullptr.
const json::object* first_compute_finding(const json::object& report) {
  for (const json::value& f : report.at("findings").as_array()) {
    const json::object& o = f.as_object();
    if (text(o, "tier") == "compute" && o.at("rank").to_number<std::int64_t>() == 1) return &o;
  }
  return nullptr;
}

double figure(const json::object& report, const char* key) {
  return report.at("figures").at("recompute").at(key).to_number<double>();
}

TEST(RecomputeInject, FoundFirstInTheComputeTierWithTheInjectedTime) {
  const json::object report = analyze_synth("--inject recompute");
  const json::object* f = recompute_finding(report);
  ASSERT_NE(f, nullptr) << json::serialize(report.at("figures").at("recompute"));
  // The default amount is 1 ms of recomputed kernels per step (docs/synth.md: 3.01 ms for 3
  // steps); the rerun's kernels are scaled to it, so 2 % covers the rounding of their durations.
  const double recompute_us = f->at("metrics").at("recompute_us").to_number<double>();
  EXPECT_NEAR(recompute_us, 3 * 1000.0, 0.02 * 3 * 1000.0);
  EXPECT_NE(text(*f, "action").find("selective activation checkpointing"), std::string::npos)
      << text(*f, "action");
  EXPECT_EQ(text(*f, "tier"), "compute");
  const json::object* first = first_compute_finding(report);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(text(*first, "cause"), "recompute") << text(*first, "title");
  // Its share of E2E is the recomputed time over the gpu_timeline window.
  const double window_us = report.at("diagnosis").at("window_us").to_number<double>();
  EXPECT_NEAR(f->at("metrics").at("percent_of_e2e").to_number<double>(),
              recompute_us / window_us * 100, 0.01);
  EXPECT_LE(f->at("impact").at("high").to_number<double>(),
            f->at("metrics").at("percent_of_e2e").to_number<double>() + 1e-9);
}

TEST(RecomputeInject, CleanTraceHasNoRecompute) {
  const json::object report = analyze_synth("");
  EXPECT_EQ(recompute_finding(report), nullptr);
  EXPECT_EQ(figure(report, "recompute.kernel_count"), 0.0);
  EXPECT_EQ(figure(report, "recompute.has_backward"), 1.0);  // it is a training trace
}

TEST(RecomputeInject, InferenceTraceHasNoRecompute) {
  const json::object report = analyze_synth("--inference");
  EXPECT_EQ(recompute_finding(report), nullptr);
  EXPECT_EQ(figure(report, "recompute.has_backward"), 0.0);
  EXPECT_EQ(figure(report, "recompute.kernel_count"), 0.0);
}

}  // namespace
