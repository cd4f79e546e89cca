#pragma once

#include <string>
#include <vector>

#include "config/run_config.hpp"
#include "findings/finding.hpp"
#include "platform/platform_info.hpp"
#include "plugins/plugin_registry.hpp"
#include "plugins/run_products.hpp"

namespace traceprism::schedule {

struct GraphResult {
  std::vector<findings::AnalyzerOutcome> analyzers;  // every loaded analyzer, sorted by name
};

struct GraphInputs {
  const plugins::PluginRegistry* registry = nullptr;
  const config::RunConfig* config = nullptr;
  const platform::PlatformInfo* platform = nullptr;
  const std::string* trace_path = nullptr;
  int jobs = 0;  // threads; 0 = all cores
  // Run the analyzers in forked worker processes (isolated_call.hpp), so a crash or hang
  // fails only that analyzer; `jobs` workers at a time. Off runs analyzers in-process on `jobs`
  // threads (and for debugging plugins).
  bool isolate = true;
  double analyzer_timeout_seconds = 0;  // with isolate: stop an analyzer after this; 0 = never
};

// Runs the analyzers (phase 2) along their depends_on (plugin-sdk.md §6.8): in worker processes
// forked from this thread when isolated, else as a oneTBB flow graph (start -> enabled
// analyzers -> done). Phase 1 (op models, plugins/op_model_runner.hpp) and the op metrics are
// done before, so the perf report and the analyzers read the same numbers. Every analyzer is
// guarded: one that fails, throws or returns an unknown status is reported as failed and the
// others finish. Results land in per-analyzer slots, so the output does not depend on `jobs`
// or on timing.
GraphResult run_analysis_graph(const GraphInputs& inputs, plugins::RunProducts& products);

}  // namespace traceprism::schedule
