#pragma once

#include <traceprism/abi.h>

#include <map>
#include <string>
#include <vector>

#include "config/run_config.hpp"
#include "findings/finding.hpp"
#include "platform/platform_info.hpp"
#include "plugins/run_products.hpp"

// The host's side of the opaque context handed to every plugin callback: what the call may read
// (products, options, platform) and where its results go (one outcome per analyzer, so nodes
// running in parallel never share a sink).
struct traceprism_run_ctx {
  const traceprism::plugins::RunProducts* products = nullptr;
  const traceprism::config::RunConfig* config = nullptr;
  const traceprism::platform::PlatformInfo* platform = nullptr;
  const std::string* trace_path = nullptr;
  std::string owner;                                 // analyzer / op model name (option prefix)
  const traceprism_analyzer_v1* analyzer = nullptr;  // for declared option defaults
  traceprism::findings::AnalyzerOutcome* outcome = nullptr;  // null for op models (read-only)
  // Outcomes of the analyzer's dependencies, finished before it started (their products).
  std::vector<const traceprism::findings::AnalyzerOutcome*> dependencies;
  // ABI views of the products this call read, kept until the call ends.
  struct ProductView {
    std::vector<traceprism_str> columns, cells;
    traceprism_table_v1 table{};
  };
  mutable std::map<std::string, ProductView, std::less<>> product_views;
};

namespace traceprism::plugins {

// The function table given to plugins (abi.h traceprism_host_api_v1); lives for the process.
const traceprism_host_api_v1* host_api();

}  // namespace traceprism::plugins
