#pragma once

#include <string>
#include <vector>

#include "config/run_config.hpp"
#include "model/op_work.hpp"
#include "platform/platform_info.hpp"
#include "plugins/plugin_registry.hpp"
#include "plugins/run_products.hpp"

namespace traceprism::plugins {

// How one op model fared over a run (reported in findings.json and `--verbose` output).
struct OpModelOutcome {
  std::string name;
  std::string plugin;
  std::size_t claimed = 0;   // host ops it was asked about
  std::size_t modelled = 0;  // with FLOPs/bytes
  std::size_t failed = 0;    // the model applies but failed on the op's args
};

struct OpModelRun {
  model::OpWorkTable table;
  std::vector<OpModelOutcome> outcomes;  // in load order
};

struct OpModelInputs {
  const PluginRegistry* registry = nullptr;
  const config::RunConfig* config = nullptr;
  const platform::PlatformInfo* platform = nullptr;
  const std::string* trace_path = nullptr;
  int jobs = 0;  // threads; 0 = all cores
};

// Phase 1: every host op (cpu_op or user annotation) is offered to the first op model, in load
// order, that claims its name (exactly, or by a "prefix*" pattern). Runs on `jobs` threads;
// results do not depend on the thread count. An op model is taken to be a function of the op
// call it reads (sdk OpCall: the name, the four shape-arg texts and the names of the GPU events
// below; not the Sequence number): ops with the same call share the answer the model gave for
// the first of them, so each distinct call is modelled once.
OpModelRun run_op_models(const OpModelInputs& in, const RunProducts& products);

}  // namespace traceprism::plugins
